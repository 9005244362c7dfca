package cursor

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusDir holds real captures written by other people (not in the repo).
const corpusDir = "../../../shared/corpus/cursor"

// TestCorpus converts every Cursor CLI capture and compares the dialog with
// what an independent reading of the source (encoding/json, sharing no code
// with the adapter) says it must hold.
func TestCorpus(t *testing.T) {
	source := adaptertest.Source{Format: Format(), Forced: true, Options: dialog.Options{Clock: adaptertest.Pinned(), DefaultCWD: "/w", MaxText: -1}}
	source.Oracle(t, adaptertest.Captures(t, corpusDir, "*.jsonl"), func(t *testing.T, c adaptertest.Capture, d adaptertest.Dialog) {
		check(t, expect(t, c.Src), adaptertest.Decode[entry](t, d.Out))
	})
}

type expected struct {
	model, cwd, prompt string
	texts, thinking    []string
	tools              []string
	failed             map[string]bool
	output             map[string]string
	end                adaptertest.Ending
	cost               float64
	hasCost            bool
}

type srcText struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

type srcEvent struct {
	Type        string   `json:"type"`
	Subtype     string   `json:"subtype"`
	Model       string   `json:"model"`
	CWD         string   `json:"cwd"`
	Text        string   `json:"text"`
	Message     *srcText `json:"message"`
	ModelCallID *string  `json:"model_call_id"`
	TimestampMS *int64   `json:"timestamp_ms"`
	CallID      string   `json:"call_id"`
	ToolCall    map[string]struct {
		Result *struct {
			Success *struct {
				ExitCode *int64 `json:"exitCode"`
				Stdout   string `json:"stdout"`
				Stderr   string `json:"stderr"`
			} `json:"success"`
		} `json:"result"`
	} `json:"tool_call"`
	IsError  bool   `json:"is_error"`
	Result   string `json:"result"`
	Duration int64  `json:"duration_ms"`
	Usage    *struct {
		Input      int64    `json:"inputTokens"`
		Output     int64    `json:"outputTokens"`
		CacheRead  int64    `json:"cacheReadTokens"`
		CacheWrite int64    `json:"cacheWriteTokens"`
		TotalCost  *float64 `json:"totalCost"`
	} `json:"usage"`
}

func (m *srcText) join() string {
	var parts []string
	for _, c := range m.Content {
		if c.Type == "text" && c.Text != "" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// expect reads a capture with the README's rules.
func expect(t *testing.T, src []byte) expected {
	e := expected{failed: map[string]bool{}, output: map[string]string{}}
	var think, text string
	inThink, inText := false, false
	boundary, cur := true, ""
	output := func(mc *string) {
		id := ""
		if mc != nil {
			id = *mc
		}
		if boundary {
			boundary = false
			if id != "" && id == cur {
				return
			}
			e.end.Turns++
			cur = id
		} else if cur == "" {
			cur = id
		}
	}
	for line := range bytes.Lines(src) {
		var ev srcEvent
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		isThinkDelta := ev.Type == "thinking" && ev.Subtype == "delta"
		isTextDelta := ev.Type == "assistant" && ev.TimestampMS != nil && ev.ModelCallID == nil
		if !isThinkDelta && inThink {
			e.thinking = append(e.thinking, think)
			think, inThink = "", false
		}
		recap := false
		if !isTextDelta && inText {
			e.texts = append(e.texts, text)
			text, inText = "", false
			recap = ev.Type == "assistant"
		}
		switch ev.Type {
		case "system":
			e.model, e.cwd = ev.Model, ev.CWD
		case "user":
			if e.prompt == "" {
				e.prompt = ev.Message.join()
			}
			boundary = true
		case "thinking":
			if isThinkDelta && ev.Text != "" {
				output(nil)
				think += ev.Text
				inThink = true
			}
		case "assistant":
			if s := ev.Message.join(); s != "" && !recap {
				output(ev.ModelCallID)
				if isTextDelta {
					text += s
					inText = true
				} else {
					e.texts = append(e.texts, s)
				}
			}
		case "tool_call":
			for _, c := range ev.ToolCall {
				switch ev.Subtype {
				case "started":
					output(ev.ModelCallID)
					e.tools = append(e.tools, ev.CallID)
				case "completed":
					s := c.Result.Success
					e.failed[ev.CallID] = s == nil || s.ExitCode == nil || *s.ExitCode != 0
					if s != nil {
						e.output[ev.CallID] = s.Stdout + s.Stderr
					}
					boundary = true
				}
			}
		case "result":
			e.end.Status, e.end.Message = "success", ""
			if ev.IsError {
				e.end.Status, e.end.Message = "error", ev.Result
			}
			e.end.DurationMS += ev.Duration
			if u := ev.Usage; u != nil {
				e.end.Tokens.In += u.Input + u.CacheRead + u.CacheWrite
				e.end.Tokens.Out += u.Output
				e.end.Tokens.CacheRead += u.CacheRead
				e.end.Tokens.CacheWrite += u.CacheWrite
				if u.TotalCost != nil {
					e.cost += *u.TotalCost
					e.hasCost = true
				}
			}
		}
	}
	if inThink {
		e.thinking = append(e.thinking, think)
	}
	if inText {
		e.texts = append(e.texts, text)
	}
	return e
}

func check(t *testing.T, want expected, es []entry) {
	t.Helper()
	adaptertest.CheckInit(t, es, "cursor-agent", want.model)
	adaptertest.CheckPrompt(t, es, want.prompt)

	var texts, thinking []string
	for _, m := range adaptertest.OfType(es, "message") {
		texts = append(texts, m.Content)
	}
	for _, m := range adaptertest.OfType(es, "thinking") {
		thinking = append(thinking, m.Content)
	}
	assert.Equal(t, want.texts, texts, "assistant texts, joined, each once")
	assert.Equal(t, want.thinking, thinking, "thinking, joined per run")

	var started []string
	for _, e := range adaptertest.OfType(es, "tool") {
		if e.Status == "running" {
			started = append(started, e.ToolID)
			assert.Equal(t, "bash", e.Name, "the captures hold shell calls only")
			continue
		}
		failed, ok := want.failed[e.ToolID]
		require.True(t, ok, "a result for %s, which the source never ended", e.ToolID)
		got := ""
		if failed {
			assert.Equal(t, "error", e.Status, e.ToolID)
			if e.Error != nil {
				got = *e.Error
			}
		} else {
			assert.Equal(t, "success", e.Status, e.ToolID)
			if e.Result != nil {
				got = *e.Result
			}
		}
		assert.Contains(t, strings.ReplaceAll(got, "\n", ""), strings.ReplaceAll(want.output[e.ToolID], "\n", ""), e.ToolID)
	}
	assert.Equal(t, want.tools, started)

	c := adaptertest.CheckComplete(t, want.end, es)
	if want.hasCost {
		require.NotNil(t, c.CostUSD)
		assert.InDelta(t, want.cost, *c.CostUSD, 1e-9)
	}
}
