package cursor

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

func TestModelFromArgs(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-p", "fix it", "--output-format", "stream-json"}, ""},
		{[]string{"-p", "--model", "gpt-5", "fix it"}, "gpt-5"},
		{[]string{"--model=sonnet-4.5-thinking", "-p", "x"}, "sonnet-4.5-thinking"},
		{[]string{"--model", "a", "--model=b"}, "b"},
		{[]string{"-p", "--", "--model", "x"}, ""},
		{[]string{"-p", "x", "--model"}, ""},
		{[]string{"-m", "x"}, ""}, // cursor-agent has no -m
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, modelFromArgs(tt.args), "%q", tt.args)
	}
}

func TestDetect(t *testing.T) {
	adaptertest.Detects(t, Detect, map[string]adapter.Claim{
		`{"type":"thinking","subtype":"delta","text":"x","session_id":"s","timestamp_ms":1}`:                    adapter.Yes,
		`{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{},"session_id":"s"}`:                adapter.Yes,
		`{"type":"assistant","message":{"role":"assistant","content":[]},"session_id":"s","model_call_id":"m"}`: adapter.Yes,
		`{"type":"result","subtype":"success","is_error":false,"session_id":"s","request_id":"r"}`:              adapter.Yes,
		// Cursor's init has these members and no other; Claude Code's has tools,
		// uuid or its version besides.
		`{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s","model":"Auto","permissionMode":"default"}`:                           adapter.Yes,
		`{"type":"system","subtype":"init","apiKeySource":"none","cwd":"/w","session_id":"s","model":"m","permissionMode":"default","claude_code_version":"2.1.0"}`: adapter.Maybe,
		`{"type":"system","subtype":"init","cwd":"/w","session_id":"s","model":"Auto","permissionMode":"default"}`:                                                  adapter.Maybe,
		`{"type":"system","subtype":"status","apiKeySource":"login","session_id":"s"}`:                                                                              adapter.Maybe,
		`{"type":"assistant","message":{"role":"assistant","content":[]},"session_id":"s"}`:                                                                         adapter.Maybe,
		// A run that fails before the model answers has only these of its own.
		`{"type":"connection","subtype":"reconnecting","session_id":"s","timestamp_ms":1,"attempt":1,"endpoint_url":"https://x"}`: adapter.Yes,
		`{"type":"retry","subtype":"starting","session_id":"s","timestamp_ms":1,"attempt":1,"is_resume":false}`:                   adapter.Yes,
		`{"type":"connection","subtype":"reconnected","session_id":"s","timestamp_ms":1}`:                                         adapter.Yes,
		`{"type":"retry","subtype":"starting"}`: adapter.No,
		// Claude Code's own lines.
		`{"type":"system","subtype":"init","session_id":"s","tools":["Bash"],"model":"m"}`:                                 adapter.No,
		`{"type":"result","subtype":"success","is_error":false,"session_id":"s","num_turns":1,"total_cost_usd":0.1}`:       adapter.No,
		`{"type":"assistant","message":{"id":"msg_1","content":[]},"session_id":"s","uuid":"u","parent_tool_use_id":null}`: adapter.No,
	})
}

func TestToolName(t *testing.T) {
	tests := []struct{ kind, args, want string }{
		{"shellToolCall", `{}`, "bash"},
		{"readToolCall", `{}`, "read"},
		{"lsToolCall", `{}`, "ls"},
		{"updateTodosToolCall", `{}`, "update_todos"},
		{"askUserQuestionToolCall", `{}`, "ask_user_question"},
		{"mcpToolCall", `{"providerIdentifier":"gh","toolName":"list_issues"}`, "mcp__gh__list_issues"},
		{"mcpToolCall", `{"name":"gh-list_issues"}`, "mcp__gh-list_issues"},
		{"mcpToolCall", `{}`, "mcp"},
	}
	for _, tt := range tests {
		args := adaptertest.Event(t, tt.args).Value
		assert.Equal(t, tt.want, toolName([]byte(tt.kind), args, args), tt.kind)
	}
	fn := adaptertest.Event(t, `{"name":"custom_tool","arguments":"{}"}`).Value
	assert.Equal(t, "custom_tool", toolName([]byte("function"), fn, fn.Get("arguments")))
}

// The exit code decides a shell call: anything but an integer 0 is a
// failure; a result without success is a failure; no result is an empty
// success.
func TestToolResults(t *testing.T) {
	call := func(id, result string) string {
		r := ""
		if result != "" {
			r = `,"result":` + result
		}
		return `{"type":"tool_call","subtype":"started","call_id":"` + id + `","tool_call":{"shellToolCall":{"args":{"command":"x"}}},"session_id":"s","timestamp_ms":1}
{"type":"tool_call","subtype":"completed","call_id":"` + id + `","tool_call":{"shellToolCall":{"args":{"command":"x"}` + r + `}},"session_id":"s","timestamp_ms":2}
`
	}
	es, _ := convert(t, `{"type":"system","subtype":"init","session_id":"s","model":"m"}
`+call("ok", `{"success":{"exitCode":0,"stdout":"out","stderr":""}}`)+
		call("exit2", `{"success":{"exitCode":2,"stdout":"","stderr":"boom"}}`)+
		call("exitnull", `{"success":{"exitCode":null,"stdout":"partial"}}`)+
		call("exitstr", `{"success":{"exitCode":"0","stdout":"s"}}`)+
		call("failure", `{"failure":{"exitCode":1,"stdout":"","stderr":"bad"}}`)+
		call("rejected", `{"rejected":{"reason":"user said no"}}`)+
		call("rejectedcmd", `{"rejected":{"command":"git push","workingDirectory":"","reason":"Hook blocked with message: no\nsecond line","retry":{"after":2}}}`)+
		call("rejectedbare", `{"rejected":{"workingDirectory":"/w","reason":""}}`)+
		call("rejectedstr", `{"rejected":"denied"}`)+
		call("errstr", `{"error":"spawn failed"}`)+
		call("none", ``)+
		`{"type":"result","subtype":"success","is_error":false,"session_id":"s"}
`)
	ends := map[string]entry{}
	for _, e := range adaptertest.OfType(es, "tool") {
		if e.Status != "running" {
			ends[e.ToolID] = e
		}
	}
	text := func(e entry) string {
		if e.Result != nil {
			return *e.Result
		}
		if e.Error != nil {
			return *e.Error
		}
		return ""
	}
	want := map[string][2]string{
		"ok":           {"success", "out"},
		"exit2":        {"error", "[exit code 2]\nboom"},
		"exitnull":     {"error", "[exit code none]\npartial"},
		"exitstr":      {"error", "[exit code none]\ns"},
		"failure":      {"error", "[exit code 1]\nbad"},
		"rejected":     {"error", "rejected: user said no"},
		"rejectedcmd":  {"error", "rejected: Hook blocked with message: no\nsecond line\ncommand: git push\nworkingDirectory: \"\"\nretry: {\"after\":2}"},
		"rejectedbare": {"error", "rejected (no reason given)\nworkingDirectory: /w"},
		"rejectedstr":  {"error", "rejected: denied"},
		"errstr":       {"error", "spawn failed"},
		"none":         {"success", ""},
	}
	require.Len(t, ends, len(want))
	for id, w := range want {
		assert.Equal(t, w[0], ends[id].Status, id)
		assert.Equal(t, w[1], text(ends[id]), id)
	}
}

// A result's is_error decides, whatever its subtype; without is_error, the
// subtype does. A result with text and no assistant line before it (the
// json output) shows that text.
func TestResults(t *testing.T) {
	es, _ := convert(t, `{"type":"result","subtype":"success","is_error":"true","result":"Rate limited","session_id":"s"}`+"\n")
	c := es[len(es)-1]
	assert.Equal(t, "error", c.Status)
	assert.Equal(t, `is_error is "true", not a JSON boolean: read as an error (Rate limited)`, c.Message)
	assert.Empty(t, adaptertest.OfType(es, "message"))

	es, _ = convert(t, `{"type":"result","subtype":"error_max_turns","session_id":"s"}`+"\n")
	assert.Equal(t, "error", es[len(es)-1].Status)
	assert.Equal(t, "error_max_turns", es[len(es)-1].Message)

	es, _ = convert(t, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"4"}]},"session_id":"s"}
{"type":"result","subtype":"success","is_error":false,"result":"4","session_id":"s"}
`)
	require.Len(t, adaptertest.OfType(es, "message"), 1, "the result repeats the text: not shown twice")
	assert.Equal(t, "success", es[len(es)-1].Status)
}

// A completed call never started is shown as a call of its own, named from
// its kind.
func TestResultWithoutStart(t *testing.T) {
	es, _ := convert(t, `{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"grepToolCall":{"args":{"pattern":"x"},"result":{"success":{"content":"a:1"}}}},"session_id":"s","timestamp_ms":5}
{"type":"result","subtype":"success","is_error":false,"session_id":"s","request_id":"r"}
`)
	tools := adaptertest.OfType(es, "tool")
	require.Len(t, tools, 2)
	assert.Equal(t, "grep", tools[0].Name)
	assert.Equal(t, "running", tools[0].Status)
	assert.Equal(t, "grep", tools[1].Name)
	assert.Equal(t, "a:1", *tools[1].Result)
}

// Cursor's echoed user line has no timestamp: the prompt takes the time
// of the line after it, so no entry of a saved stream takes the
// converter's clock (which ts, never going back, would then hold every
// later entry at: the conversion's date on the whole dialog).
func TestPromptTakesTheNextLinesTime(t *testing.T) {
	const stream = `{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/p","session_id":"s","model":"Auto","permissionMode":"default"}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"say hi"}]},"session_id":"s"}
{"type":"thinking","subtype":"delta","text":"hm","session_id":"s","timestamp_ms":1770823841542}
{"type":"thinking","subtype":"completed","session_id":"s","timestamp_ms":1770823842000}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]},"session_id":"s","model_call_id":"m1","timestamp_ms":1770823843000}
{"type":"result","subtype":"success","duration_ms":1500,"is_error":false,"result":"hi","session_id":"s","request_id":"r"}
`
	clock := dialog.FixedClock(time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)) // later than the run: it would win
	es, _ := convertWith(t, stream, dialog.Options{Clock: clock, Saved: true})
	require.Equal(t, "init prompt thinking message complete", adaptertest.TypesOf(es))
	want := []string{"2026-02-11T15:30:41.542Z", "2026-02-11T15:30:41.542Z", "2026-02-11T15:30:41.542Z", "2026-02-11T15:30:43.000Z", "2026-02-11T15:30:43.000Z"}
	for i, e := range es {
		assert.Equal(t, want[i], e.TS, "%s", e.Type)
	}
	assert.Equal(t, "source", es[0].Data.Clock)
	assert.Equal(t, "say hi", es[1].Content)

	// A stream that ends at the user line still has its prompt.
	es, _ = convertWith(t, strings.SplitAfterN(stream, "\n", 3)[0]+strings.SplitAfterN(stream, "\n", 3)[1], dialog.Options{Clock: clock, Saved: true})
	assert.Equal(t, "init prompt complete", adaptertest.TypesOf(es))
}

// A result whose is_error is not a boolean is an error, saying why.
func TestResultIsErrorAsAString(t *testing.T) {
	es, _ := convert(t, `{"type":"result","subtype":"success","duration_ms":1,"is_error":"false","result":"ok","session_id":"s","request_id":"r"}`+"\n")
	c := es[len(es)-1]
	assert.Equal(t, "error", c.Status)
	assert.Equal(t, `is_error is "false", not a JSON boolean: read as an error (ok)`, c.Message)
}

// entry is one decoded dialog entry.
type entry = adaptertest.Fields

// convert runs input through the pipeline with this format (the dialog
// valid) and decodes it; stderr is what the pipeline reported.
func convert(t *testing.T, input string) (entries []entry, stderr string) {
	t.Helper()
	return convertWith(t, input, dialog.Options{Clock: adaptertest.Pinned(), DefaultCWD: "/w", MaxText: -1})
}

// convertWith is convert with the writer's options given.
func convertWith(t *testing.T, input string, opt dialog.Options) (entries []entry, stderr string) {
	t.Helper()
	d := adaptertest.Pipeline(t, Format(), opt, strings.NewReader(input))
	return adaptertest.Decode[entry](t, d.Out), d.Stderr
}
