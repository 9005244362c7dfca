package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/testskip"
)

const corpusDir = "../../../shared/corpus/claude"

// TestCorpus converts every real capture and checks the dialog against
// figures derived from the source by expect, an independent reading with
// encoding/json that shares no code with the adapter.
func TestCorpus(t *testing.T) {
	source := adaptertest.Source{Format: Format(), Forced: true, Options: options()}
	source.Oracle(t, adaptertest.Captures(t, corpusDir, "*.jsonl"), func(t *testing.T, c adaptertest.Capture, d adaptertest.Dialog) {
		checkAgainstSource(t, expect(t, c.Src), readDialog(t, string(d.Out)))
	})
}

// TestCorpusResumeLegs joins the two legs of a --resume run into one input:
// each leg is a process of its own, so the totals are the sum of both legs'
// last results.
func TestCorpusResumeLegs(t *testing.T) {
	leg1, err1 := os.ReadFile(filepath.Join(corpusDir, "cc2.1.195-resume-leg1-plant-codeword.jsonl"))
	leg2, err2 := os.ReadFile(filepath.Join(corpusDir, "cc2.1.195-resume-leg2-same-session-id.jsonl"))
	if err1 != nil || err2 != nil {
		testskip.Missingf(t, "resume captures not found in %s", corpusDir)
	}
	e1, e2 := expect(t, leg1), expect(t, leg2)
	out, _ := runPipeline(t, string(leg1)+string(leg2))
	requireValid(t, out)
	d := readDialog(t, out)
	c := d.complete
	assert.Equal(t, e1.tokens.In+e2.tokens.In, c.TotalTokens.In)
	assert.Equal(t, e1.tokens.Out+e2.tokens.Out, c.TotalTokens.Out)
	assert.InDelta(t, e1.cost+e2.cost, c.CostUSD, 1e-9)
	assert.Equal(t, e1.duration+e2.duration, c.DurationMS)
	assert.Equal(t, e1.turns+e2.turns, c.Turns)
	assert.Equal(t, "success", c.Status)
	assert.Len(t, d.inits, 1)
}

// expected is what a dialog must say, derived from the source alone.
type expected struct {
	toolIDs  []string        // in order of first appearance
	toolErr  map[string]bool // is_error of the first result; no result → true
	texts    map[string]int  // non-empty text blocks, each block once
	thinking map[string]int
	turns    int
	status   string
	tokens   dialog.Tokens
	cost     float64
	hasCost  bool
	duration int64
}

type srcBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	Thinking  *string         `json:"thinking"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   *bool           `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

type srcUsage struct {
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheRead  int64 `json:"cache_read_input_tokens"`
	CacheWrite int64 `json:"cache_creation_input_tokens"`
}

type srcLine struct {
	Type    string `json:"type"`
	Message *struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
		Usage   *srcUsage       `json:"usage"`
	} `json:"message"`
	Parent     *string         `json:"parent_tool_use_id"`
	Error      json.RawMessage `json:"error"`
	IsError    bool            `json:"is_error"`
	Duration   *int64          `json:"duration_ms"`
	Cost       *float64        `json:"total_cost_usd"`
	Usage      *srcUsage       `json:"usage"`
	ModelUsage map[string]struct {
		Input      int64 `json:"inputTokens"`
		Output     int64 `json:"outputTokens"`
		CacheRead  int64 `json:"cacheReadInputTokens"`
		CacheWrite int64 `json:"cacheCreationInputTokens"`
	} `json:"modelUsage"`
}

func expect(t *testing.T, src []byte) expected {
	t.Helper()
	e := expected{toolErr: map[string]bool{}, texts: map[string]int{}, thinking: map[string]int{}, status: "error"}
	resulted := map[string]bool{}
	seenBlock := map[string]bool{}
	turnIDs := map[string]bool{}
	perMsg := map[string]srcUsage{}
	var last *srcLine
	var usageSum dialog.Tokens
	haveUsage := false
	for line := range bytes.Lines(src) {
		var l srcLine
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		switch l.Type {
		case "assistant":
			m := l.Message
			var blocks []json.RawMessage
			_ = json.Unmarshal(m.Content, &blocks)
			synthetic := m.Model == "<synthetic>" || (len(l.Error) > 0 && string(l.Error) != "null")
			if !synthetic && (l.Parent == nil || *l.Parent == "") {
				turnIDs[m.ID] = true
			}
			if !synthetic && m.Usage != nil {
				u := perMsg[m.ID]
				u.Input, u.Output = max(u.Input, m.Usage.Input), max(u.Output, m.Usage.Output)
				u.CacheRead, u.CacheWrite = max(u.CacheRead, m.Usage.CacheRead), max(u.CacheWrite, m.Usage.CacheWrite)
				perMsg[m.ID] = u
			}
			for _, raw := range blocks {
				key := m.ID + "\x00" + string(raw)
				if seenBlock[key] {
					continue
				}
				seenBlock[key] = true
				var b srcBlock
				require.NoError(t, json.Unmarshal(raw, &b))
				switch {
				case b.Type == "text" && b.Text != nil && *b.Text != "":
					e.texts[*b.Text]++
				case b.Type == "thinking" && b.Thinking != nil && *b.Thinking != "":
					e.thinking[*b.Thinking]++
				case b.Type == "tool_use" || b.Type == "server_tool_use":
					if _, ok := e.toolErr[b.ID]; !ok {
						e.toolIDs = append(e.toolIDs, b.ID)
						e.toolErr[b.ID] = true // until a result says otherwise
					}
				case strings.HasSuffix(b.Type, "_tool_result") && !resulted[b.ToolUseID]:
					resulted[b.ToolUseID] = true
					e.toolErr[b.ToolUseID] = b.IsError != nil && *b.IsError
				}
			}
		case "user":
			var blocks []srcBlock
			if json.Unmarshal(l.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_result" && !resulted[b.ToolUseID] {
					resulted[b.ToolUseID] = true
					if _, ok := e.toolErr[b.ToolUseID]; !ok {
						e.toolIDs = append(e.toolIDs, b.ToolUseID)
					}
					e.toolErr[b.ToolUseID] = b.IsError != nil && *b.IsError
				}
			}
		case "result":
			last = &l
			if l.Duration != nil {
				e.duration += *l.Duration
			}
			if l.Usage != nil {
				haveUsage = true
				usageSum.In += l.Usage.Input + l.Usage.CacheRead + l.Usage.CacheWrite
				usageSum.Out += l.Usage.Output
			}
		}
	}
	e.turns = len(turnIDs)
	switch {
	case last != nil && len(last.ModelUsage) > 0:
		for _, mu := range last.ModelUsage {
			e.tokens.In += mu.Input + mu.CacheRead + mu.CacheWrite
			e.tokens.Out += mu.Output
		}
	case haveUsage:
		e.tokens = usageSum
	default:
		for _, u := range perMsg {
			e.tokens.In += u.Input + u.CacheRead + u.CacheWrite
			e.tokens.Out += u.Output
		}
	}
	if last != nil {
		e.status = "success"
		if last.IsError {
			e.status = "error"
		}
		if last.Cost != nil {
			e.cost, e.hasCost = *last.Cost, true
		}
	}
	return e
}

// entry is the part of a dialog entry the checks read.
type entry struct {
	Type        string  `json:"type"`
	Content     string  `json:"content"`
	ToolID      string  `json:"tool_id"`
	Status      string  `json:"status"`
	Parent      string  `json:"parent_tool_id"`
	Turns       int     `json:"turns"`
	DurationMS  int64   `json:"duration_ms"`
	CostUSD     float64 `json:"cost_usd"`
	TotalTokens struct {
		In  int64 `json:"in"`
		Out int64 `json:"out"`
	} `json:"total_tokens"`
}

type readout struct {
	inits    []entry
	messages map[string]int
	thinking map[string]int
	starts   map[string]int
	ends     map[string]string // tool id → status of its result
	complete entry
}

func readDialog(t *testing.T, out string) readout {
	t.Helper()
	d := readout{messages: map[string]int{}, thinking: map[string]int{}, starts: map[string]int{}, ends: map[string]string{}}
	for line := range strings.Lines(out) {
		var e entry
		require.NoError(t, json.Unmarshal([]byte(line), &e))
		switch e.Type {
		case "init":
			d.inits = append(d.inits, e)
		case "message":
			d.messages[e.Content]++
		case "thinking":
			d.thinking[e.Content]++
		case "tool":
			if e.Status == "running" {
				d.starts[e.ToolID]++
			} else {
				d.ends[e.ToolID] = e.Status
			}
		case "complete":
			d.complete = e
		}
	}
	return d
}

func checkAgainstSource(t *testing.T, e expected, d readout) {
	t.Helper()
	assert.Len(t, d.inits, 1)
	for _, id := range e.toolIDs {
		assert.Equal(t, 1, d.starts[id], "tool %s: starts", id)
		want := "success"
		if e.toolErr[id] {
			want = "error"
		}
		assert.Equal(t, want, d.ends[id], "tool %s: result", id)
	}
	assert.Len(t, d.starts, len(e.toolIDs), "tool calls")
	// Messages may also hold synthetic texts, which are text blocks too.
	assert.Equal(t, e.texts, d.messages, "message entries vs text blocks")
	assert.Equal(t, e.thinking, d.thinking, "thinking entries vs thinking blocks")
	c := d.complete
	assert.Equal(t, e.status, c.Status)
	assert.Equal(t, e.turns, c.Turns, "turns")
	assert.Equal(t, e.tokens.In, c.TotalTokens.In, "total_tokens.in")
	assert.Equal(t, e.tokens.Out, c.TotalTokens.Out, "total_tokens.out")
	if e.hasCost {
		assert.InDelta(t, e.cost, c.CostUSD, 1e-12, "cost_usd")
	}
	if e.duration > 0 {
		assert.Equal(t, e.duration, c.DurationMS, "duration_ms")
	}
}

// TestCorpusSlashCommandPrompts: in every capture, a prompt is never a
// slash command's tags or a local command's output; a replayed command
// followed by anything but its output in the CLI is the prompt as typed.
// The expected text comes from regular expressions over the source.
func TestCorpusSlashCommandPrompts(t *testing.T) {
	files := adaptertest.Captures(t, corpusDir, "*.jsonl")
	name := regexp.MustCompile(`<command-name>/?([^<]*)</command-name>`)
	args := regexp.MustCompile(`<command-args>([^<]*(?:<[^/][^<]*)*)</command-args>`)
	commands := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		// The replayed user texts of the main thread, in order.
		var replays []string
		for line := range strings.Lines(string(src)) {
			var l struct {
				Type    string  `json:"type"`
				Replay  bool    `json:"isReplay"`
				Parent  *string `json:"parent_tool_use_id"`
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal([]byte(line), &l) != nil || l.Type != "user" || !l.Replay || l.Parent != nil {
				continue
			}
			var s string
			if json.Unmarshal(l.Message.Content, &s) != nil {
				var bs []struct{ Text string }
				_ = json.Unmarshal(l.Message.Content, &bs)
				if len(bs) > 0 {
					s = bs[0].Text
				}
			}
			replays = append(replays, s)
		}
		want := ""
		for i, r := range replays {
			m := name.FindStringSubmatch(r)
			if m == nil {
				continue
			}
			if i+1 < len(replays) && strings.HasPrefix(strings.TrimSpace(replays[i+1]), "<local-command-") {
				continue // stayed in the CLI
			}
			want = "/" + strings.TrimSpace(m[1])
			if a := args.FindStringSubmatch(r); a != nil && strings.TrimSpace(a[1]) != "" {
				want += " " + strings.TrimSpace(a[1])
			}
			commands++
			break
		}
		out, _ := runPipeline(t, string(src))
		var prompts []string
		for line := range strings.Lines(out) {
			var e entry
			require.NoError(t, json.Unmarshal([]byte(line), &e))
			if e.Type == "prompt" {
				prompts = append(prompts, e.Content)
				assert.NotContains(t, e.Content, "<command-", f)
				assert.NotContains(t, e.Content, "<local-command-", f)
			}
		}
		if want != "" {
			assert.Equal(t, []string{want}, prompts, f)
		}
	}
	assert.Positive(t, commands, "captures with a replayed slash command")
}
