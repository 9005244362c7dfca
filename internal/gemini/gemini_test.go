package gemini

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
)

func TestModelFromArgs(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-p", "fix it", "--output-format", "stream-json"}, ""},
		{[]string{"-p", "fix it", "-m", "gemini-2.5-pro"}, "gemini-2.5-pro"},
		{[]string{"--model", "gemini-2.5-flash", "-p", "x"}, "gemini-2.5-flash"},
		{[]string{"--model=gemini-3-pro-preview", "-p", "x"}, "gemini-3-pro-preview"},
		{[]string{"-m=auto", "-p", "x"}, "auto"},
		{[]string{"-m", "a", "--model", "b"}, "b"},
		{[]string{"-p", "x", "--", "-m", "not-a-flag"}, ""},
		{[]string{"-p", "x", "-m"}, ""},
		{[]string{"--output-format=stream-json", "-p", "use -m wisely"}, ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, modelFromArgs(tt.args), "%q", tt.args)
	}
}

func TestDetect(t *testing.T) {
	adaptertest.Detects(t, Detect, map[string]adapter.Claim{
		`{"type":"init","timestamp":"2026-01-01T00:00:00.000Z","session_id":"s","model":"auto-gemini-3"}`: adapter.Yes,
		`{"type":"message","role":"assistant","content":"hi","delta":true}`:                               adapter.Yes,
		`{"type":"tool_use","tool_name":"read_file","tool_id":"read_file_1_0","parameters":{}}`:           adapter.Yes,
		`{"type":"tool_result","tool_id":"read_file_1_0","status":"success"}`:                             adapter.Yes,
		`{"type":"result","status":"success","stats":{}}`:                                                 adapter.Yes,
		`{"type":"error","severity":"warning","message":"Loop detected"}`:                                 adapter.Maybe,
		`{"session_id":"s","response":"hi","stats":{"models":{}}}`:                                        adapter.Yes,
		`{"session_id":"s","error":{"type":"x","message":"y"}}`:                                           adapter.Yes,
		// Others' events with the same types.
		`{"type":"result","subtype":"success","is_error":false,"session_id":"s"}`: adapter.No,
		`{"type":"tool_use","sessionID":"ses_1","part":{"tool":"bash"}}`:          adapter.No,
		`{"type":"init","model":"x"}`:                                             adapter.No,
		`{"type":"","response":"x","stats":{}}`:                                   adapter.No,
	})
}

// A run of deltas ends at any other event, an unknown one too; an
// assistant message that is not a delta is a message of its own.
func TestTextRuns(t *testing.T) {
	es, _ := convert(t, `{"type":"init","session_id":"s","model":"m"}
{"type":"message","role":"assistant","content":"a","delta":true}
{"type":"message","role":"assistant","content":"b","delta":true}
{"type":"something_new","x":1}
{"type":"message","role":"assistant","content":"c","delta":true}
{"type":"message","role":"assistant","content":"whole"}
{"type":"message","role":"assistant","content":"","delta":true}
{"type":"message","role":"assistant","content":"d","delta":true}
{"type":"result","status":"success","stats":{}}
`)
	var texts []string
	for _, e := range adaptertest.OfType(es, "message") {
		texts = append(texts, e.Content)
	}
	assert.Equal(t, []string{"ab", "c", "whole", "d"}, texts)
	assert.Equal(t, 1, es[len(es)-1].Turns, "no tool result: one response")
}

// The status field decides a tool's outcome; without one, an error object
// does. The error text is error.message, else the output, else error.type.
func TestToolStatus(t *testing.T) {
	es, _ := convert(t, `{"type":"init","session_id":"s","model":"m"}
{"type":"tool_use","tool_name":"a","tool_id":"1","parameters":{"x":1}}
{"type":"tool_result","tool_id":"1","status":"success","output":"fine","error":{"message":"ignored"}}
{"type":"tool_use","tool_name":"b","tool_id":"2","parameters":{}}
{"type":"tool_result","tool_id":"2","status":"cancelled","output":"stopped"}
{"type":"tool_use","tool_name":"c","tool_id":"3","parameters":{}}
{"type":"tool_result","tool_id":"3","error":{"type":"invalid_tool_params"}}
{"type":"tool_use","tool_name":"d","tool_id":"4","parameters":{}}
{"type":"tool_result","tool_id":"4"}
{"type":"result","status":"success","stats":{}}
`)
	ends := map[string]entry{}
	for _, e := range adaptertest.OfType(es, "tool") {
		if e.Status != "running" {
			ends[e.ToolID] = e
		}
	}
	require.Len(t, ends, 4)
	assert.Equal(t, "success", ends["1"].Status)
	assert.Equal(t, "fine", *ends["1"].Result)
	assert.Equal(t, "error", ends["2"].Status)
	assert.Equal(t, "stopped", *ends["2"].Error)
	assert.Equal(t, "error", ends["3"].Status)
	assert.Equal(t, "invalid_tool_params", *ends["3"].Error)
	assert.Equal(t, "success", ends["4"].Status)
	assert.Nil(t, ends["4"].Result)
	assert.Equal(t, "d", ends["4"].Name)
	assert.Equal(t, 4, es[len(es)-1].Turns)
}

// A result whose status is not success is the run's failure; a later
// process's success decides the ending, the failure stays as a warning.
func TestResultStatus(t *testing.T) {
	es, _ := convert(t, `{"type":"init","session_id":"s","model":"m"}
{"type":"result","status":"error","stats":{}}
`)
	c := es[len(es)-1]
	assert.Equal(t, "error", c.Status)
	assert.Equal(t, "the run ended in error", c.Message)

	es, _ = convert(t, `{"type":"init","session_id":"s","model":"m"}
{"type":"result","status":"error","error":{"type":"t","message":"quota"},"stats":{"input_tokens":5,"output_tokens":1}}
{"type":"init","session_id":"s","model":"m"}
{"type":"result","status":"success","stats":{"input_tokens":7,"output_tokens":2,"cached":3}}
`)
	c = es[len(es)-1]
	assert.Equal(t, "success", c.Status)
	assert.Equal(t, 1, c.Warnings)
	assert.Equal(t, "⚠ run failed: quota", adaptertest.OfType(es, "message")[0].Content)
	assert.Equal(t, int64(12), c.TotalTokens.In)
	assert.Equal(t, int64(3), c.TotalTokens.Out)
	assert.Equal(t, int64(3), c.TotalTokens.CacheRead)
}

// With --prompt, the echoed user message is no entry.
func TestPromptOption(t *testing.T) {
	var out bytes.Buffer
	c := dispatch.New(&out, dialog.Options{Clock: dialog.FixedClock(time.Unix(0, 0)), Prompt: "given", HasPrompt: true},
		dispatch.Options{Formats: []adapter.Format{Format()}, Forced: true})
	require.NoError(t, c.Feed(strings.NewReader(`{"type":"init","session_id":"s","model":"m"}
{"type":"message","role":"user","content":"echoed"}
{"type":"result","status":"success","stats":{}}
`), "input"))
	require.NoError(t, c.Close(nil))
	assert.Contains(t, out.String(), `"content":"given"`)
	assert.NotContains(t, out.String(), "echoed")
}

// entry is one decoded dialog entry.
type entry = adaptertest.Fields

// convert runs input through the pipeline with this format (the dialog
// valid) and decodes it; stderr is what the pipeline reported.
func convert(t *testing.T, input string) (entries []entry, stderr string) {
	t.Helper()
	d := adaptertest.Pipeline(t, Format(), options(), strings.NewReader(input))
	return adaptertest.Decode[entry](t, d.Out), d.Stderr
}

// options are the writer's options of every test: the clock pinned, no cut.
func options() dialog.Options {
	return dialog.Options{Clock: adaptertest.Pinned(), DefaultCWD: "/w", MaxText: -1}
}
