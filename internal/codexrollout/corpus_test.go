package codexrollout_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/codexrollout"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
)

// corpusDir holds real rollouts written by other people (not in the repo).
const corpusDir = "../../../shared/corpus/codex-rollout"

// TestCorpus converts every real rollout through the pipeline the command
// runs (auto-detection among every format) and compares the dialog with
// what an independent reading of the file with encoding/json says.
func TestCorpus(t *testing.T) {
	source := adaptertest.Source{Format: codexrollout.Format(), Among: registry.All(), Options: dialog.Options{Clock: dialog.FixedClock(time.Unix(0, 0)), Saved: true}}
	source.Oracle(t, adaptertest.Captures(t, corpusDir, "*.jsonl"), func(t *testing.T, c adaptertest.Capture, d adaptertest.Dialog) {
		check(t, adaptertest.Decode[entry](t, d.Out), expectFrom(t, c.Src))
	})
}

// entry is the part of a dialog entry the checks read.
type entry struct {
	Type    string           `json:"type"`
	TS      string           `json:"ts"`
	ToolID  string           `json:"tool_id"`
	Name    string           `json:"name"`
	Status  string           `json:"status"`
	Content string           `json:"content"`
	Turns   int              `json:"turns"`
	Reason  string           `json:"reason"`
	Total   map[string]int64 `json:"total_tokens"`
}

// expected is what a rollout says, read with encoding/json alone.
type expected struct {
	calls      []string        // call ids, in order (web searches: "")
	failed     map[string]bool // call id -> must end in error
	messages   []string        // assistant texts, in order
	prompts    int             // the user's turns
	tokens     map[string]int64
	status     string // "" when the file shows no ending
	reason     string
	timestamps map[string]bool // every line's time, as the dialog writes it
}

var (
	exitLine  = regexp.MustCompile(`^Exit code: (-?\d+)`)
	exitedRe  = regexp.MustCompile(`(?m)^Process exited with code (-?\d+)$`)
	outputTag = "\nOutput:\n"
)

// exitOf reads the exit code an output states, the spec's way: a JSON
// output's metadata, or Codex's header before "Output:".
func exitOf(raw json.RawMessage) (int64, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	var inner struct {
		Output   *string `json:"output"`
		Metadata struct {
			ExitCode *int64 `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(s, "{") && json.Unmarshal([]byte(s), &inner) == nil && inner.Output != nil {
		if inner.Metadata.ExitCode != nil {
			return *inner.Metadata.ExitCode, true
		}
		return 0, false
	}
	head, _, _ := strings.Cut(s, outputTag)
	for _, re := range []*regexp.Regexp{exitLine, exitedRe} {
		if m := re.FindStringSubmatch(head); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			return n, true
		}
	}
	return 0, false
}

func expectFrom(t *testing.T, src []byte) expected {
	t.Helper()
	type part struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type usage struct {
		In        int64 `json:"input_tokens"`
		Cached    int64 `json:"cached_input_tokens"`
		Out       int64 `json:"output_tokens"`
		Reasoning int64 `json:"reasoning_output_tokens"`
	}
	type payload struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content []part          `json:"content"`
		CallID  string          `json:"call_id"`
		Output  json.RawMessage `json:"output"`
		Info    *struct {
			Total json.RawMessage `json:"total_token_usage"` // an object; a redacting export wrote a string
		} `json:"info"`
		Item *struct {
			Type     string `json:"type"`
			ID       string `json:"id"`
			ExitCode *int64 `json:"exit_code"`
		} `json:"item"`
		Error json.RawMessage `json:"error"`
	}
	type record struct {
		Timestamp string  `json:"timestamp"`
		Type      string  `json:"type"`
		Payload   payload `json:"payload"`
	}
	w := expected{failed: map[string]bool{}, timestamps: map[string]bool{}}
	outputs := map[string]bool{}
	exits := map[string]int64{}
	userMessages, userItems := 0, 0
	taskEvents, lastEvent, lastItemIsAnswer := false, "", false
	for line := range bytes.Lines(src) {
		var r record
		require.NoError(t, json.Unmarshal(line, &r))
		ts, err := time.Parse(time.RFC3339Nano, r.Timestamp)
		require.NoError(t, err)
		w.timestamps[ts.UTC().Format("2006-01-02T15:04:05.000Z")] = true
		p := r.Payload
		switch r.Type + "/" + p.Type {
		case "response_item/message":
			if p.Role != "assistant" {
				continue
			}
			var texts []string
			for _, c := range p.Content {
				if c.Text != "" {
					texts = append(texts, c.Text)
				}
			}
			if len(texts) > 0 {
				w.messages = append(w.messages, strings.Join(texts, "\n"))
				lastItemIsAnswer = true
			}
		case "response_item/function_call", "response_item/custom_tool_call", "response_item/local_shell_call":
			w.calls = append(w.calls, p.CallID)
			lastItemIsAnswer = false
		case "response_item/web_search_call":
			w.calls = append(w.calls, "")
		case "response_item/function_call_output", "response_item/custom_tool_call_output":
			outputs[p.CallID] = true
			if code, ok := exitOf(p.Output); ok {
				exits[p.CallID] = code
			}
		case "event_msg/item_completed":
			switch {
			case p.Item.Type == "UserMessage":
				userItems++
			case p.Item.Type == "CommandExecution" && p.Item.ExitCode != nil:
				exits[p.Item.ID] = *p.Item.ExitCode
			}
		case "event_msg/user_message":
			userMessages++
			lastEvent = "user_message"
		case "event_msg/token_count":
			var u usage
			if p.Info != nil && json.Unmarshal(p.Info.Total, &u) == nil {
				w.tokens = map[string]int64{"in": u.In, "out": u.Out}
				if u.Cached > 0 {
					w.tokens["cache_read"] = u.Cached
				}
				if u.Reasoning > 0 {
					w.tokens["reasoning"] = u.Reasoning
				}
			}
		case "event_msg/task_started":
			taskEvents, lastEvent = true, "started"
		case "event_msg/task_complete":
			taskEvents, lastEvent = true, "complete"
			if len(p.Error) > 0 && string(p.Error) != "null" {
				lastEvent = "failed"
			}
		case "event_msg/turn_aborted":
			lastEvent = "aborted"
		}
	}
	for _, id := range w.calls {
		if id == "" {
			continue
		}
		w.failed[id] = !outputs[id] || exits[id] != 0
	}
	w.prompts = userMessages
	if userMessages == 0 {
		w.prompts = userItems
	}
	if w.tokens == nil {
		w.tokens = map[string]int64{"in": 0, "out": 0}
	}
	switch lastEvent {
	case "complete":
		w.status = "success"
	case "failed":
		w.status = "error"
	case "aborted":
		w.status, w.reason = "error", "interrupted"
	case "started":
		w.status, w.reason = "error", "incomplete"
	default:
		allAnswered := true
		for _, id := range w.calls {
			allAnswered = allAnswered && (id == "" || outputs[id])
		}
		if !taskEvents && lastItemIsAnswer && allAnswered {
			w.status = "success"
		}
	}
	return w
}

func check(t *testing.T, es []entry, w expected) {
	t.Helper()
	var starts []string
	results := map[string]string{}
	var messages []string
	prompts := 0
	for _, e := range es {
		assert.True(t, w.timestamps[e.TS], "entry %s at %s: a time no line of the file has", e.Type, e.TS)
		switch e.Type {
		case "tool":
			if e.Status == "running" {
				starts = append(starts, e.ToolID)
			} else {
				assert.NotContains(t, results, e.ToolID, "tool %s ended twice", e.ToolID)
				results[e.ToolID] = e.Status
			}
		case "message":
			if !strings.HasPrefix(e.Content, "⚠ ") {
				messages = append(messages, e.Content)
			}
		case "prompt":
			prompts++
		}
	}
	require.Len(t, starts, len(w.calls), "one start per call")
	for i, id := range w.calls {
		if id == "" {
			continue // a web search: its id is the converter's
		}
		assert.Equal(t, id, starts[i], "call %d", i)
		want := "success"
		if w.failed[id] {
			want = "error"
		}
		assert.Equal(t, want, results[id], "status of %s", id)
	}
	assert.Len(t, results, len(starts), "one result per start")
	assert.Equal(t, w.messages, messages)
	assert.Equal(t, w.prompts, prompts, "the user's turns")
	last := es[len(es)-1]
	require.Equal(t, "complete", last.Type)
	assert.Equal(t, w.tokens, last.Total, "the last cumulative total, never summed")
	if w.status != "" {
		assert.Equal(t, w.status, last.Status)
		assert.Equal(t, w.reason, last.Reason)
	}
}
