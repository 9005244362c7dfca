package codex

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

func TestDetect(t *testing.T) {
	const yes, no, maybe = adapter.Yes, adapter.No, adapter.Maybe
	adaptertest.Detects(t, Detect, map[string]adapter.Claim{
		`{"type":"thread.started","thread_id":"x"}`:                                                    yes,
		`{"type":"session.created","session_id":"x"}`:                                                  yes,
		`{"type":"turn.failed","error":{"message":"m"}}`:                                               yes,
		`{"type":"item.completed","item":{"id":"item_0","item_type":"assistant_message","text":"hi"}}`: yes,
		`{"id":"1","msg":{"type":"task_started"}}`:                                                     yes,
		`{"prompt":"do it"}`: yes,
		`{"sandbox":"read-only","reasoning summaries":"auto","workdir":"/w","model":"m","approval":"Never","provider":"openai"}`: yes,
		`{"model":"m","provider":"openai"}`: yes,
		// Claude Code stream-json, the other format, is never claimed.
		`{"type":"system","subtype":"init","model":"claude","cwd":"/w"}`: no,
		`{"type":"assistant","message":{"content":[]}}`:                  no,
		`{"type":"user","message":{"content":[]}}`:                       no,
		`{"type":"result","is_error":false}`:                             no,
		`{"type":"stream_event","event":{"type":"message_start"}}`:       no,
		// Ambiguous or not exec output.
		`{"type":"error","message":"m"}`:                                          maybe,
		`{"timestamp":"2025-01-01T00:00:00Z","type":"session_meta","payload":{}}`: no,
		`{"model":"m"}`:  no,
		`{"msg":"text"}`: no,
		`{}`:             no,
		// opencode's event bus has dotted types too.
		`{"type":"session.idle","properties":{"sessionID":"s"}}`:   no,
		`{"type":"message.part.updated","properties":{"part":{}}}`: no,
		`{"prompt":42}`: no,
	})
}

func TestUsage(t *testing.T) {
	u1 := `{"input_tokens":1000,"cached_input_tokens":600,"output_tokens":50,"reasoning_output_tokens":20}`
	u2 := `{"input_tokens":1500,"cached_input_tokens":900,"output_tokens":80,"reasoning_output_tokens":30,"cache_write_input_tokens":100}`
	u3 := `{"input_tokens":300,"cached_input_tokens":0,"output_tokens":7}`
	tests := []struct {
		name  string
		lines []string
		want  map[string]int64
	}{
		{"one process: the last running total", []string{thread(), turn(), completed(u1)},
			map[string]int64{"in": 1000, "out": 50, "cache_read": 600, "reasoning": 20}},
		{"cumulative within a process: never added", []string{thread(), turn(), completed(u1), turn(), completed(u2)},
			map[string]int64{"in": 1500, "out": 80, "cache_read": 900, "reasoning": 30, "cache_write": 100}},
		{"a resumed process adds its own total", []string{thread(), turn(), completed(u2), thread(), turn(), completed(u3)},
			map[string]int64{"in": 1800, "out": 87, "cache_read": 900, "reasoning": 30, "cache_write": 100}},
		{"a lower total without thread.started is a new process", []string{turn(), completed(u2), turn(), completed(u3)},
			map[string]int64{"in": 1800, "out": 87, "cache_read": 900, "reasoning": 30, "cache_write": 100}},
		{"no usage", []string{thread(), turn(), `{"type":"turn.failed","error":{"message":"x"}}`},
			map[string]int64{"in": 0, "out": 0}},
		{"legacy info form: the last total_token_usage", []string{
			`{"id":"0","msg":{"type":"token_count","info":null}}`,
			`{"id":"0","msg":{"type":"token_count","info":{"total_token_usage":` + u1 + `,"last_token_usage":` + u3 + `}}}`,
			`{"id":"0","msg":{"type":"token_count","info":{"total_token_usage":` + u2 + `,"last_token_usage":` + u3 + `}}}`,
		}, map[string]int64{"in": 1500, "out": 80, "cache_read": 900, "reasoning": 30, "cache_write": 100}},
		{"legacy flat form (≤ 0.30)", []string{
			`{"id":"1","msg":{"type":"token_count","input_tokens":1000,"cached_input_tokens":600,"output_tokens":50,"total_tokens":1050}}`,
		}, map[string]int64{"in": 1000, "out": 50, "cache_read": 600}},
		{"legacy processes split by config lines", []string{
			`{"model":"m","workdir":"/w"}`,
			`{"id":"1","msg":{"type":"token_count","input_tokens":1000,"output_tokens":50}}`,
			`{"model":"m","workdir":"/w"}`,
			`{"id":"1","msg":{"type":"token_count","input_tokens":2000,"output_tokens":60}}`,
		}, map[string]int64{"in": 3000, "out": 110}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, adaptertest.Lines(t, Format(), tt.lines...).Tokens())
		})
	}
}

func TestIDRestart(t *testing.T) {
	started := func(command string) string {
		return itemLine("started", cmd("item_0", command, "", "null", "in_progress"))
	}
	done := func(command, out string) string {
		return itemLine("completed", cmd("item_0", command, out, "0", "completed"))
	}
	type call struct{ id, name, status, text string }
	tests := []struct {
		name  string
		lines []string
		want  []call // results, in order
	}{
		{"two processes", []string{
			thread(), turn(), started("a"), done("a", "A"), completed(`{}`),
			thread(), turn(), started("b"), done("b", "B"), completed(`{}`),
		}, []call{{"item_0", "bash", "success", "A"}, {"item_0#2", "bash", "success", "B"}}},
		{"the first run's item_0 left open", []string{
			thread(), turn(), started("a"),
			thread(), turn(), started("b"), done("b", "B"), completed(`{}`),
		}, []call{{"item_0", "bash", "error", "the run ended before the tool call finished"}, {"item_0#2", "bash", "success", "B"}}},
		{"restart with no thread.started: started again", []string{
			turn(), started("a"), turn(), started("b"), done("b", "B"),
		}, []call{{"item_0", "bash", "error", "the run ended before the tool call finished"}, {"item_0#2", "bash", "success", "B"}}},
		{"restart with no thread.started: another kind, completed only", []string{
			turn(), started("a"),
			itemLine("completed", `{"id":"item_0","type":"file_change","changes":[{"path":"/f","kind":"add"}],"status":"completed"}`),
		}, []call{{"item_0", "bash", "error", "the run ended before the tool call finished"}, {"item_0#2", "edit", "success", "add /f"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := adaptertest.Lines(t, Format(), tt.lines...)
			var got []call
			for _, r := range d.Results() {
				got = append(got, call{r.Str("tool_id"), r.Str("name"), r.Str("status"), r.Text()})
			}
			assert.Equal(t, tt.want, got)
			assert.Len(t, d.Starts(), len(tt.want))
		})
	}
}

func TestTodoList(t *testing.T) {
	todo := func(ev string, a, b bool) string {
		return itemLine(ev, `{"id":"item_1","type":"todo_list","items":[{"text":"one","completed":`+bstr(a)+`},{"text":"two","completed":`+bstr(b)+`}]}`)
	}
	tests := []struct {
		name       string
		lines      []string
		args       string // the items of the start's args: [completed…]
		status     string
		checklist  string
		turnsAfter int
	}{
		{"started, updated twice, completed", []string{
			thread(), turn(), todo("started", false, false), todo("updated", true, false), todo("updated", true, true),
			todo("completed", true, true), completed(`{}`),
		}, "false,false", "success", "[x] one\n[x] two", 3},
		{"first seen at item.updated, never completed: closed at turn end with the last update", []string{
			thread(), turn(), todo("updated", true, false), todo("updated", true, true), completed(`{}`),
		}, "true,false", "success", "[x] one\n[x] two", 2},
		{"completed only", []string{thread(), turn(), todo("completed", false, true), completed(`{}`)},
			"false,true", "success", "[ ] one\n[x] two", 1},
		{"cut short after an update", []string{
			thread(), turn(), todo("started", false, false), todo("updated", true, false),
			`{"type":"turn.failed","error":{"message":"boom"}}`,
		}, "false,false", "error", "[x] one\n[ ] two", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := adaptertest.Lines(t, Format(), tt.lines...)
			require.Len(t, d.Starts(), 1)
			require.Len(t, d.Results(), 1)
			s, r := d.Starts()[0], d.Results()[0]
			assert.Equal(t, "todo_list", s.Str("name"))
			var got []string
			for _, it := range s["args"].(map[string]any)["items"].([]any) {
				got = append(got, bstr(it.(map[string]any)["completed"].(bool)))
			}
			assert.Equal(t, tt.args, join(got))
			assert.Equal(t, tt.status, r.Str("status"))
			assert.Equal(t, tt.checklist, r.Text())
			assert.EqualValues(t, tt.turnsAfter, d.Complete.Num("turns"))
		})
	}
}

func bstr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

func TestCommandResult(t *testing.T) {
	tests := []struct {
		name, item string
		status     string
		text       string
	}{
		{"exit 0", cmd("item_0", "ls", "a\\n", "0", "completed"), "success", "a\n"},
		{"exit 0, no status (old)", `{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0}`, "success", "a"},
		{"non-zero exit", cmd("item_0", "ls", "boom\\n", "2", "failed"), "error", "[exit code 2]\nboom\n"},
		{"non-zero exit, empty output", cmd("item_0", "grep x", "", "1", "failed"), "error", "[exit code 1]"},
		{"non-zero exit whatever the status says", cmd("item_0", "ls", "", "127", "completed"), "error", "[exit code 127]"},
		{"declined", cmd("item_0", "rm -rf /", "", "null", "declined"), "error", "[declined]"},
		{"failed without an exit code", cmd("item_0", "x", "denied", "null", "failed"), "error", "[failed]\ndenied"},
		{"completed with exit_code null: abandoned at turn end", cmd("item_0", "sleep 9", "part", "null", "completed"), "error", "[no exit code: the command did not finish]\npart"},
		{"completed with no exit_code key", `{"id":"item_0","type":"command_execution","command":"x","aggregated_output":"","status":"completed"}`, "error", "[no exit code: the command did not finish]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := adaptertest.Lines(t, Format(), thread(), turn(), itemLine("completed", tt.item), completed(`{}`))
			require.Len(t, d.Results(), 1)
			r := d.Results()[0]
			assert.Equal(t, tt.status, r.Str("status"))
			assert.Equal(t, tt.text, r.Text())
			assert.Equal(t, "bash", r.Str("name"))
		})
	}
}

func TestCommandArgs(t *testing.T) {
	d := adaptertest.Lines(t, Format(), itemLine("started", `{"id":"item_0","type":"command_execution","command":"bash -lc \"echo \\\"hi\\\"\"","status":"in_progress"}`))
	require.Len(t, d.Starts(), 1)
	assert.Equal(t, map[string]any{"command": `bash -lc "echo \"hi\""`}, d.Starts()[0]["args"])
}

func TestMCPResult(t *testing.T) {
	mcp := func(result, errv, status string) string {
		return itemLine("completed", `{"id":"item_0","type":"mcp_tool_call","server":"srv","tool":"do","arguments":{"a":1},"result":`+result+`,"error":`+errv+`,"status":"`+status+`"}`)
	}
	tests := []struct {
		name, line string
		status     string
		text       string
	}{
		{"text blocks joined", mcp(`{"content":[{"type":"text","text":"one"},{"type":"text","text":"two"}],"structured_content":null}`, "null", "completed"), "success", "one\ntwo"},
		{"failure inside result (isError)", mcp(`{"content":[{"type":"text","text":"not found"}],"structured_content":null}`, "null", "failed"), "error", "not found"},
		{"failure of the call", mcp("null", `{"message":"timed out"}`, "failed"), "error", "timed out"},
		{"failed with nothing to say", mcp("null", "null", "failed"), "error", "failed"},
		{"image that is not what it says: a placeholder", mcp(`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}`, "null", "completed"), "success", "[image image/png 3 bytes: data is not a PNG, not shown]"},
		{"image carried after the text", mcp(`{"content":[{"type":"image","data":"`+pixelPNG+`","mimeType":"image/png"},{"type":"text","text":"captured"}]}`, "null", "completed"), "success", "captured\n\n![image/png 73 bytes](data:image/png;base64," + pixelPNG + ")"},
		{"audio as a placeholder", mcp(`{"content":[{"type":"audio","data":"AAAA","mimeType":"audio/wav"}]}`, "null", "completed"), "success", "[audio audio/wav 3 bytes]"},
		{"structured content only", mcp(`{"content":[],"structured_content":{"n":1}}`, "null", "completed"), "success", `{"n":1}`},
		{"legacy Ok", `{"id":"1","msg":{"type":"mcp_tool_call_end","call_id":"c","invocation":{"server":"srv","tool":"do"},"result":{"Ok":{"content":[{"type":"text","text":"fine"}]}}}}`, "success", "fine"},
		{"legacy Ok with isError", `{"id":"1","msg":{"type":"mcp_tool_call_end","call_id":"c","invocation":{"server":"srv","tool":"do"},"result":{"Ok":{"content":[{"type":"text","text":"bad"}],"isError":true}}}}`, "error", "bad"},
		{"legacy Err", `{"id":"1","msg":{"type":"mcp_tool_call_end","call_id":"c","invocation":{"server":"srv","tool":"do"},"result":{"Err":"refused"}}}`, "error", "refused"},
		{"legacy ≤ 0.10 flat", `{"id":"1","msg":{"type":"mcp_tool_call_end","call_id":"c","server":"srv","tool":"do","success":false,"result":{"content":[{"type":"text","text":"no"}]}}}`, "error", "no"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := adaptertest.Lines(t, Format(), tt.line)
			require.Len(t, d.Results(), 1)
			r := d.Results()[0]
			assert.Equal(t, "mcp__srv__do", r.Str("name"))
			assert.Equal(t, tt.status, r.Str("status"))
			assert.Equal(t, tt.text, r.Text())
		})
	}
}

// Ids and MCP names are kept as strings from call to call (item_N repeats
// in every process): each call still gets its own, escapes decoded, after
// the line that named it is gone.
func TestRepeatedIDsAndNames(t *testing.T) {
	call := func(id, server, tool string) []string {
		item := `{"id":"` + id + `","type":"mcp_tool_call","server":` + server + `,"tool":` + tool + `,"arguments":{},"status":"in_progress"}`
		return []string{itemLine("started", item), itemLine("completed", item)}
	}
	var lines []string
	for range 2 { // two processes: item_0 and item_1 again
		lines = append(lines, thread(), turn())
		lines = append(lines, call("item_0", `"srv"`, `"do"`)...)
		lines = append(lines, call("item_1", `"s\u0072v"`, `"do"`)...)
		lines = append(lines, call("item_\u0032", `"a"`, `"bc"`)...)
		lines = append(lines, call("item_0", `"srv"`, `"other"`)...) // item_0 again in one process
		lines = append(lines, completed(`{}`))
	}
	d := adaptertest.Lines(t, Format(), lines...)
	var got []string
	for _, s := range d.Starts() {
		got = append(got, s.Str("tool_id")+" "+s.Str("name"))
	}
	assert.Equal(t, []string{
		"item_0 mcp__srv__do", "item_1 mcp__srv__do", "item_2 mcp__a__bc", "item_0#2 mcp__srv__other",
		"item_0#3 mcp__srv__do", "item_1#2 mcp__srv__do", "item_2#2 mcp__a__bc", "item_0#4 mcp__srv__other",
	}, got)
}

func TestWebSearchDuplicateID(t *testing.T) {
	// Since 0.92 the item carries two "id" keys; item_N comes first.
	d := adaptertest.Lines(t, Format(), thread(), turn(),
		itemLine("started", `{"id":"item_3","type":"web_search","id":"ws_abc","query":"","action":{"type":"other"}}`),
		itemLine("completed", `{"id":"item_3","type":"web_search","id":"ws_abc","query":"q1","action":{"type":"search","query":"q1"}}`),
		completed(`{}`))
	require.Len(t, d.Starts(), 1)
	require.Len(t, d.Results(), 1)
	r := d.Results()[0]
	assert.Equal(t, "item_3", r.Str("tool_id"))
	assert.Equal(t, "success", r.Str("status"))
	assert.Equal(t, "q1", r.Text())
}

func TestEndings(t *testing.T) {
	failed := `{"type":"turn.failed","error":{"message":"usage limit"}}`
	tests := []struct {
		name     string
		lines    []string
		status   string
		message  string
		reason   string
		warnings int64
	}{
		{"turn.completed", []string{thread(), turn(), completed(`{}`)}, "success", "", "", 0},
		{"turn.failed", []string{thread(), turn(), failed}, "error", "usage limit", "", 0},
		{"nothing terminal", []string{thread(), turn(), msg("item_0", "hi")}, "error", "", "incomplete", 0},
		{"only thread.started", []string{thread()}, "error", "", "incomplete", 0},
		{"a second turn unfinished", []string{thread(), turn(), completed(`{}`), turn()}, "error", "", "incomplete", 0},
		{"errors are warnings, not endings", []string{thread(), turn(), `{"type":"error","message":"Reconnecting... 1/5"}`, itemLine("completed", `{"id":"item_0","type":"error","message":"fallback"}`), completed(`{}`)}, "success", "", "", 2},
		{"a failed run resumed to success", []string{thread(), turn(), failed, thread(), turn(), completed(`{}`)}, "success", "", "", 1},
		{"a successful run resumed and cut", []string{thread(), turn(), completed(`{}`), thread(), turn()}, "error", "", "incomplete", 0},
		{"0.42: no turn events", []string{`{"type":"session.created","session_id":"s"}`, msg("item_0", "hi")}, "error", "", "incomplete", 0},
		{"legacy task_complete", []string{`{"id":"1","msg":{"type":"task_started"}}`, `{"id":"1","msg":{"type":"task_complete","last_agent_message":null}}`}, "success", "", "", 0},
		{"legacy error then end of stream", []string{`{"id":"1","msg":{"type":"task_started"}}`, `{"id":"1","msg":{"type":"error","message":"no key"}}`}, "error", "no key", "", 0},
		{"legacy error then task_complete", []string{`{"id":"1","msg":{"type":"error","message":"no key"}}`, `{"id":"1","msg":{"type":"task_complete"}}`}, "error", "no key", "", 0},
		{"legacy ≤ 0.22 interrupt", []string{`{"id":"1","msg":{"type":"error","message":" Turn interrupted"}}`}, "error", " Turn interrupted", "interrupted", 0},
		{"legacy turn_aborted", []string{`{"id":"0","msg":{"type":"turn_aborted","reason":"interrupted"}}`}, "error", "turn aborted: interrupted", "interrupted", 0},
		{"legacy stream_error is a warning", []string{`{"id":"0","msg":{"type":"stream_error","message":"retrying 1/5"}}`, `{"id":"0","msg":{"type":"task_complete"}}`}, "success", "", "", 1},
		{"legacy ≥ 0.10: no terminal line", []string{`{"id":"0","msg":{"type":"task_started"}}`, `{"id":"0","msg":{"type":"agent_message","message":"done"}}`}, "error", "", "incomplete", 0},
		{"legacy failed task, then a new task completes", []string{`{"id":"1","msg":{"type":"error","message":"x"}}`, `{"id":"2","msg":{"type":"task_started"}}`, `{"id":"2","msg":{"type":"task_complete"}}`}, "success", "", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := adaptertest.Lines(t, Format(), tt.lines...).Complete
			assert.Equal(t, tt.status, c.Str("status"))
			if tt.message != "" || tt.status == "success" {
				assert.Equal(t, tt.message, c.Str("message"))
			}
			assert.Equal(t, tt.reason, c.Str("reason"))
			assert.Equal(t, tt.warnings, c.Num("warnings"))
		})
	}
}

func TestWarningsShown(t *testing.T) {
	d := adaptertest.Lines(t, Format(), thread(),
		itemLine("completed", `{"id":"item_0","type":"error","message":"model rerouted: a -> b"}`),
		turn(), `{"type":"error","message":"Reconnecting... 2/5"}`,
		`{"type":"turn.failed","error":{"message":"gone"}}`,
		thread(), turn(), completed(`{}`))
	assert.Equal(t, []string{"⚠ model rerouted: a -> b", "⚠ Reconnecting... 2/5", "⚠ run failed: gone"}, d.Warnings())
	assert.EqualValues(t, 3, d.Complete.Num("warnings"))
}

// A failure's message is kept as its literal: the warning a later turn
// shows copies it, escapes and all, and the complete entry decodes it.
func TestFailureMessageKept(t *testing.T) {
	escaped := `{"type":"turn.failed","error":{"message":"{\"error\":\"bad\"}\n\u00e9 \ud800"}}`
	want := "{\"error\":\"bad\"}\né \ufffd"
	d := adaptertest.Lines(t, Format(), thread(), turn(), escaped, turn(), escaped)
	assert.Equal(t, []string{"⚠ run failed: " + want}, d.Warnings())
	assert.Equal(t, "error", d.Complete.Str("status"))
	assert.Equal(t, want, d.Complete.Str("message"))
	for _, line := range []string{`{"type":"turn.failed","error":{"message":""}}`, `{"type":"turn.failed","error":"x"}`, `{"type":"turn.failed"}`} {
		d = adaptertest.Lines(t, Format(), thread(), turn(), line, turn(), line)
		want := "turn failed"
		if strings.Contains(line, `"x"`) {
			want = "x"
		}
		assert.Equal(t, []string{"⚠ run failed: " + want}, d.Warnings(), line)
		assert.Equal(t, want, d.Complete.Str("message"), line)
	}
}

func TestTurns(t *testing.T) {
	reasoning := itemLine("completed", `{"id":"r","type":"reasoning","text":"think"}`)
	start := func(id string) string { return itemLine("started", cmd(id, "x", "", "null", "in_progress")) }
	end := func(id string) string { return itemLine("completed", cmd(id, "x", "", "0", "completed")) }
	tests := []struct {
		name  string
		lines []string
		want  int64
	}{
		{"one answer", []string{thread(), turn(), reasoning, msg("m", "hi"), completed(`{}`)}, 1},
		{"a tool result separates responses", []string{thread(), turn(), reasoning, msg("m1", "pre"), start("c1"), end("c1"), msg("m2", "done"), completed(`{}`)}, 2},
		{"parallel calls are one response", []string{thread(), turn(), start("c1"), start("c2"), end("c1"), end("c2"), msg("m", "done"), completed(`{}`)}, 2},
		{"several preambles in one response", []string{thread(), turn(), msg("m1", "a"), msg("m2", "b"), msg("m3", "c"), completed(`{}`)}, 1},
		{"warnings and empty reasoning are not output", []string{thread(), itemLine("completed", `{"id":"e","type":"error","message":"w"}`), turn(), itemLine("completed", `{"id":"r","type":"reasoning","text":""}`), completed(`{}`)}, 0},
		{"a new process starts a new response", []string{thread(), turn(), msg("m", "a"), completed(`{}`), thread(), turn(), msg("m", "b"), completed(`{}`)}, 2},
		{"turn.started is no model output", []string{thread(), turn(), turn(), turn()}, 0},
		{"legacy", []string{
			`{"id":"0","msg":{"type":"task_started"}}`,
			`{"id":"0","msg":{"type":"agent_reasoning","text":"t"}}`,
			`{"id":"0","msg":{"type":"exec_command_begin","call_id":"c","command":["ls"]}}`,
			`{"id":"0","msg":{"type":"exec_command_end","call_id":"c","stdout":"","stderr":"","exit_code":0}}`,
			`{"id":"0","msg":{"type":"agent_message","message":"done"}}`,
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, adaptertest.Lines(t, Format(), tt.lines...).Complete.Num("turns"))
		})
	}
}

func TestLegacyExec(t *testing.T) {
	tests := []struct {
		name, begin, end string
		command, status  string
		text             string
	}{
		{"argv shell-quoted", `{"type":"exec_command_begin","call_id":"c","command":["bash","-lc","echo \"it's\" > a b"],"cwd":"/w"}`,
			`{"type":"exec_command_end","call_id":"c","stdout":"ok\n","stderr":"","exit_code":0}`,
			`bash -lc 'echo "it'"'"'s" > a b'`, "success", "ok\n"},
		{"stdout then stderr, exit code", `{"type":"exec_command_begin","call_id":"c","command":["make"],"cwd":"/w"}`,
			`{"type":"exec_command_end","call_id":"c","stdout":"building","stderr":"error: x\n","exit_code":2}`,
			`make`, "error", "[exit code 2]\nbuilding\nerror: x\n"},
		{"aggregated_output preferred", `{"type":"exec_command_begin","call_id":"c","command":["ls",""],"cwd":"/w"}`,
			`{"type":"exec_command_end","call_id":"c","stdout":"o","stderr":"e","aggregated_output":"oe","exit_code":0,"duration":{"secs":0,"nanos":1}}`,
			`ls ''`, "success", "oe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := adaptertest.Lines(t, Format(), `{"id":"0","msg":`+tt.begin+`}`,
				`{"id":"0","msg":{"type":"exec_command_output_delta","call_id":"c","stream":"stdout","chunk":"b2sK"}}`,
				`{"id":"0","msg":`+tt.end+`}`)
			require.Len(t, d.Starts(), 1)
			require.Len(t, d.Results(), 1)
			assert.Equal(t, tt.command, d.Starts()[0]["args"].(map[string]any)["command"])
			assert.Equal(t, tt.status, d.Results()[0].Str("status"))
			assert.Equal(t, tt.text, d.Results()[0].Text())
		})
	}
}

func TestLegacyPatch(t *testing.T) {
	d := adaptertest.Lines(t, Format(),
		`{"id":"1","msg":{"type":"patch_apply_begin","call_id":"p","auto_approved":true,"changes":{"/a \"q\".txt":{"add":{"content":"x"}},"/b.txt":"delete","/c.txt":{"update":{"unified_diff":"","move_path":"/d.txt"}}}}}`,
		`{"id":"1","msg":{"type":"patch_apply_end","call_id":"p","stdout":"Success.","stderr":"","success":true}}`,
		`{"id":"1","msg":{"type":"patch_apply_begin","call_id":"q","auto_approved":false,"changes":{"/e.txt":{"update":{"unified_diff":"","move_path":null}}}}}`,
		`{"id":"1","msg":{"type":"patch_apply_end","call_id":"q","stdout":"","stderr":"rejected","success":false}}`)
	require.Len(t, d.Results(), 2)
	assert.Equal(t, []any{
		map[string]any{"path": `/a "q".txt`, "kind": "add"},
		map[string]any{"path": "/b.txt", "kind": "delete"},
		map[string]any{"path": "/c.txt", "kind": "update", "move_path": "/d.txt"},
	}, d.Starts()[0]["args"].(map[string]any)["changes"])
	assert.Equal(t, "success", d.Results()[0].Str("status"))
	assert.Equal(t, "add /a \"q\".txt\ndelete /b.txt\nupdate /c.txt -> /d.txt", d.Results()[0].Text())
	assert.Equal(t, "error", d.Results()[1].Str("status"))
	assert.Equal(t, "rejected", d.Results()[1].Text())
}

func TestLegacyPreamble(t *testing.T) {
	d := adaptertest.Lines(t, Format(),
		`{"workdir":"/home/u/p","approval":"Never","model":"codex-mini-latest","reasoning effort":"medium","sandbox":"read-only","provider":"openai"}`,
		`{"prompt":"Describe \"this\" repo"}`,
		`{"id":"1","msg":{"type":"agent_message","message":"It is small."}}`,
		`{"id":"1","msg":{"type":"task_complete","last_agent_message":"It is small."}}`)
	init := d.Entries[0]["data"].(map[string]any)
	assert.Equal(t, "codex-mini-latest", init["model"])
	assert.Equal(t, "/home/u/p", init["cwd"])
	assert.Equal(t, "codex", init["agent"])
	require.Len(t, d.Of("prompt"), 1)
	assert.Equal(t, `Describe "this" repo`, d.Of("prompt")[0].Str("content"))
	// task_complete repeats the last message: it is not shown twice.
	require.Len(t, d.Of("message"), 1)
}

func TestLegacyPlanUpdate(t *testing.T) {
	plan := func(s1, s2 string) string {
		return `{"id":"0","msg":{"type":"plan_update","plan":[{"step":"a","status":"` + s1 + `"},{"step":"b","status":"` + s2 + `"}]}}`
	}
	d := adaptertest.Lines(t, Format(), plan("in_progress", "pending"), plan("completed", "in_progress"))
	require.Len(t, d.Results(), 2)
	assert.Equal(t, []string{"update_plan", "update_plan#2"}, []string{d.Results()[0].Str("tool_id"), d.Results()[1].Str("tool_id")})
	assert.Equal(t, "[~] a\n[ ] b", d.Results()[0].Text())
	assert.Equal(t, "[x] a\n[~] b", d.Results()[1].Text())
}

func TestMalformed(t *testing.T) {
	a := New(dialog.NewWriter(io.Discard, dialog.Options{}))
	assert.Error(t, a.Event(adaptertest.Event(t, `{"type":"item.completed"}`)))
	assert.Error(t, a.Event(adaptertest.Event(t, `{"type":"item.started","item":"x"}`)))
	// Unknown events and item types are skipped silently.
	d := adaptertest.Lines(t, Format(), `{"type":"item.plan.delta","item_id":"x","delta":"d"}`,
		itemLine("completed", `{"id":"item_0","type":"image_generation","url":"u"}`),
		`{"id":"0","msg":{"type":"turn_diff","unified_diff":"d"}}`)
	assert.Len(t, d.Entries, 2) // init, complete
}

func TestShellJoin(t *testing.T) {
	// Expected values are what Python's shlex.join gives.
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"bash", "-lc", "ls"}, "bash -lc ls"},
		{[]string{"bash", "-lc", "cat test.js"}, "bash -lc 'cat test.js'"},
		{[]string{"echo", "it's"}, `echo 'it'"'"'s'`},
		{[]string{"x", ""}, "x ''"},
		{[]string{"a=b", "c@d:e,f/g.h-i_j%k+l"}, "a=b c@d:e,f/g.h-i_j%k+l"},
		{[]string{"$HOME", "*.go", "ü"}, `'$HOME' '*.go' 'ü'`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, shellJoin(tt.argv))
	}
}

// Long ids and MCP names are not kept from call to call: the caches hold
// at most maxIDs short ones, so their memory stays bounded whatever the
// input's ids are like. The calls still get them.
func TestLongIDsAreNotKept(t *testing.T) {
	long := strings.Repeat("x", maxKeptLen+1)
	item := `{"id":"` + long + `","type":"mcp_tool_call","server":"` + long + `","tool":"do","arguments":{},"status":"in_progress"}`
	short := `{"id":"item_1","type":"mcp_tool_call","server":"srv","tool":"do","arguments":{},"status":"in_progress"}`
	d := adaptertest.Lines(t, Format(), thread(), turn(), itemLine("started", item), itemLine("completed", item), itemLine("started", short))
	a := d.Adapter.(*Adapter)
	assert.Equal(t, map[string]string{"item_1": "item_1"}, a.ids)
	assert.Len(t, a.names, 1)
	assert.Contains(t, string(d.Out), `"tool_id":"`+long+`"`)
	assert.Contains(t, string(d.Out), `"name":"mcp__`+long+`__do"`)
}

// Short builders for the lines of the current format.
func thread() string { return `{"type":"thread.started","thread_id":"t"}` }
func turn() string   { return `{"type":"turn.started"}` }

func completed(usage string) string {
	return `{"type":"turn.completed","usage":` + usage + `}`
}

func itemLine(ev, body string) string { return `{"type":"item.` + ev + `","item":` + body + `}` }

func cmd(id, command, output, exit, status string) string {
	return `{"id":"` + id + `","type":"command_execution","command":"` + command + `","aggregated_output":"` + output + `","exit_code":` + exit + `,"status":"` + status + `"}`
}

func msg(id, text string) string {
	return itemLine("completed", `{"id":"`+id+`","type":"agent_message","text":"`+text+`"}`)
}

// pixelPNG is a 1×1 red PNG (73 bytes), encoded by image/png.
const pixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAAEElEQVR4nGL6z8AACAAA//8DCQECWLbVUAAAAABJRU5ErkJggg=="
