package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// corpusDir holds real captures written by other people (not in the repo).
const corpusDir = "../../../shared/corpus/codex"

// TestCorpus converts every Codex capture through the real pipeline (auto
// detection among all formats) and compares the dialog with what a small,
// independent reading of the source says it must hold.
func TestCorpus(t *testing.T) {
	source().Oracle(t, adaptertest.Captures(t, corpusDir, "*.jsonl", "*.ndjson", "*.pretty.json"), func(t *testing.T, c adaptertest.Capture, d adaptertest.Dialog) {
		checkDialog(t, d, expectFrom(t, c.Src))
	})
}

// source converts a capture as the command converts a file: the format is
// detected, not forced.
func source() adaptertest.Source {
	return adaptertest.Source{Format: Format(), Options: dialog.Options{Clock: dialog.FixedClock(time.Unix(0, 0)), DefaultCWD: "/w"}}
}

// expected is what the source says, read with encoding/json alone.
type expected struct {
	messages, thinking []string
	warnings           int
	commands           int      // command executions, each must get a result
	outputs            []string // completed commands' output, each must appear
	status             string   // success, error, or "" for none seen
	message            string   // the failure's message
	tokens             map[string]int64
}

// expectFrom reads a capture as a JSON stream (which covers JSON Lines and
// pretty-printed objects alike) with the spec's rules, independently of
// the adapter: messages and reasoning texts, command executions, the last
// usage of each process summed, and the ending.
func expectFrom(t *testing.T, src []byte) expected {
	t.Helper()
	type usage struct {
		In    int64 `json:"input_tokens"`
		Cache int64 `json:"cached_input_tokens"`
		Write int64 `json:"cache_write_input_tokens"`
		Out   int64 `json:"output_tokens"`
		Reas  int64 `json:"reasoning_output_tokens"`
	}
	type event struct {
		Type string `json:"type"`
		Item *struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			ItemType string `json:"item_type"`
			Text     string `json:"text"`
			Output   string `json:"aggregated_output"`
		} `json:"item"`
		Usage *usage `json:"usage"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
		Msg *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Text    string `json:"text"`
			CallID  string `json:"call_id"`
			Last    string `json:"last_agent_message"`
			Info    *struct {
				Total *usage `json:"total_token_usage"`
			} `json:"info"`
			usage
		} `json:"msg"`
		Workdir string `json:"workdir"`
	}
	var w expected
	var done, cur usage
	commands := map[string]bool{}
	newProcess := func() {
		done = usage{In: done.In + cur.In, Cache: done.Cache + cur.Cache, Write: done.Write + cur.Write, Out: done.Out + cur.Out, Reas: done.Reas + cur.Reas}
		cur = usage{}
		clear(commands)
	}
	lastMsg := ""
	dec := json.NewDecoder(bytes.NewReader(src))
	for {
		var ev event
		if err := dec.Decode(&ev); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		switch {
		case ev.Type == "thread.started" || ev.Type == "session.created" || ev.Workdir != "":
			newProcess()
			w.status, w.message = "", ""
		case ev.Type == "turn.started":
			w.status, w.message = "", ""
		case ev.Type == "turn.completed":
			w.status = "success"
			if ev.Usage != nil {
				cur = *ev.Usage
			}
		case ev.Type == "turn.failed":
			w.status, w.message = "error", ev.Error.Message
		case ev.Type == "error":
			w.warnings++
		case strings.HasPrefix(ev.Type, "item."):
			typ := ev.Item.Type
			if typ == "" {
				typ = ev.Item.ItemType
			}
			switch {
			case ev.Type != "item.completed" && typ == "command_execution":
				if !commands[ev.Item.ID] {
					commands[ev.Item.ID] = true
					w.commands++
				}
			case ev.Type != "item.completed":
			case typ == "agent_message" || typ == "assistant_message":
				if ev.Item.Text != "" {
					w.messages = append(w.messages, ev.Item.Text)
				}
			case typ == "reasoning":
				if ev.Item.Text != "" {
					w.thinking = append(w.thinking, ev.Item.Text)
				}
			case typ == "error":
				w.warnings++
			case typ == "command_execution":
				if !commands[ev.Item.ID] {
					w.commands++
				}
				delete(commands, ev.Item.ID)
				w.outputs = append(w.outputs, ev.Item.Output)
			}
		case ev.Msg != nil:
			m := ev.Msg
			switch m.Type {
			case "task_started":
				w.status, w.message = "", ""
			case "agent_message":
				w.messages = append(w.messages, m.Message)
				lastMsg = m.Message
			case "agent_reasoning":
				w.thinking = append(w.thinking, m.Text)
			case "exec_command_begin":
				w.commands++
			case "error":
				w.status, w.message = "error", m.Message
			case "stream_error":
				w.warnings++
			case "task_complete":
				if m.Last != "" && m.Last != lastMsg {
					w.messages = append(w.messages, m.Last)
				}
				if w.status != "error" {
					w.status = "success"
				}
			case "token_count":
				if m.Info != nil && m.Info.Total != nil {
					cur = *m.Info.Total
				} else if m.In > 0 || m.Out > 0 {
					cur = m.usage
				}
			}
		}
	}
	newProcess()
	w.tokens = map[string]int64{"in": done.In, "out": done.Out}
	for k, v := range map[string]int64{"cache_read": done.Cache, "cache_write": done.Write, "reasoning": done.Reas} {
		if v > 0 {
			w.tokens[k] = v
		}
	}
	return w
}

func checkDialog(t *testing.T, d adaptertest.Dialog, w expected) {
	t.Helper()
	assert.Equal(t, "codex", d.Entries[0]["data"].(map[string]any)["agent"], "detected as another format")

	var msgs []string
	for _, e := range d.Of("message") {
		msgs = append(msgs, e.Str("content"))
	}
	// Every agent message, in order; the only other messages are warnings.
	assert.Equal(t, w.messages, subsequence(msgs, w.messages), "agent messages")
	assert.Len(t, msgs, len(w.messages)+w.warnings, "messages besides the agent's are the warnings")
	assert.EqualValues(t, w.warnings, d.Complete.Num("warnings"))

	var thinking []string
	for _, e := range d.Of("thinking") {
		thinking = append(thinking, e.Str("content"))
	}
	assert.Equal(t, w.thinking, thinking, "reasoning")

	var bash []adaptertest.Entry
	for _, r := range d.Results() {
		if r.Str("name") == "bash" {
			bash = append(bash, r)
		}
	}
	assert.Len(t, bash, w.commands, "a tool result for every command execution")
	for _, out := range w.outputs {
		if out == "" || len(out) > dialog.DefaultMaxText {
			continue
		}
		found := false
		for _, r := range bash {
			found = found || strings.Contains(r.Text(), out)
		}
		assert.True(t, found, "command output %q in a bash result", out)
	}

	assert.Equal(t, w.tokens, d.Tokens(), "totals: the last usage of each process, summed")

	d.CheckEnding(t, w.status, w.message)
}

// subsequence returns the elements of want found in order in have.
func subsequence(have, want []string) []string {
	var out []string
	i := 0
	for _, h := range have {
		if i < len(want) && h == want[i] {
			out = append(out, h)
			i++
		}
	}
	return out
}
