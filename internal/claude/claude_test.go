package claude

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// Lines modelled on real captures, cut down to the fields that matter.
const (
	initLine = `{"type":"system","subtype":"init","cwd":"/src/app","session_id":"s1","tools":["Bash","Agent"],"model":"claude-sonnet-4-6","permissionMode":"default"}`
	okResult = `{"type":"result","subtype":"success","is_error":false,"duration_ms":100,"num_turns":1,"result":"done","total_cost_usd":0.5,"usage":{"input_tokens":1,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":4}}`
)

// asst builds an assistant line holding one content block.
func asst(id, parent, block string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"assistant","message":{"model":"claude-sonnet-4-6","id":"` + id + `","type":"message","role":"assistant","content":[` + block +
		`],"stop_reason":null,"usage":{"input_tokens":2,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":3}},"parent_tool_use_id":` + p + `,"session_id":"s1"}`
}

// toolResult builds a user line holding one tool_result block.
func toolResult(parent, block string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"user","message":{"role":"user","content":[` + block + `]},"parent_tool_use_id":` + p + `,"session_id":"s1"}`
}

func text(s string) string { return `{"type":"text","text":` + quote(s) + `}` }

func thinking(s string) string {
	return `{"type":"thinking","thinking":` + quote(s) + `,"signature":"EsUF"}`
}

func toolUse(id, name, input string) string {
	return `{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `}`
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// got is one dialog entry, decoded.
type got map[string]any

func convertLines(t *testing.T, lines ...string) []got {
	t.Helper()
	out, stderr := runPipeline(t, strings.Join(lines, "\n")+"\n")
	require.Empty(t, stderr)
	requireValid(t, out)
	return decode(t, out)
}

func decode(t *testing.T, out string) []got {
	t.Helper()
	var es []got
	for line := range strings.Lines(out) {
		var e got
		require.NoError(t, json.Unmarshal([]byte(line), &e))
		delete(e, "seq")
		delete(e, "ts")
		es = append(es, e)
	}
	return es
}

// body returns the entries between init (and prompt) and complete.
func bodyOf(es []got) []got {
	var b []got
	for _, e := range es {
		switch e["type"] {
		case "init", "prompt", "complete":
		default:
			b = append(b, e)
		}
	}
	return b
}

func completeOf(t *testing.T, es []got) got {
	t.Helper()
	c := es[len(es)-1]
	require.Equal(t, "complete", c["type"])
	return c
}

func TestBlocks(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []got
	}{
		{
			name: "one message split over lines, in order",
			lines: []string{initLine,
				asst("msg_1", "", thinking("plan")),
				asst("msg_1", "", text("I will look.")),
				asst("msg_1", "", toolUse("toolu_1", "Bash", `{"command":"ls"}`)),
				toolResult("", `{"tool_use_id":"toolu_1","type":"tool_result","content":"a.go"}`),
				okResult},
			want: []got{
				{"type": "thinking", "content": "plan"},
				{"type": "message", "role": "assistant", "content": "I will look."},
				{"type": "tool", "tool_id": "toolu_1", "name": "Bash", "status": "running", "args": map[string]any{"command": "ls"}},
				{"type": "tool", "tool_id": "toolu_1", "name": "Bash", "status": "success", "result": "a.go"},
			},
		},
		{
			name: "a line repeated byte for byte is shown once",
			lines: []string{initLine,
				asst("msg_1", "", text("same")),
				asst("msg_1", "", text("same")),
				asst("msg_1", "", toolUse("toolu_1", "Bash", `{}`)),
				asst("msg_1", "", toolUse("toolu_1", "Bash", `{}`)),
				toolResult("", `{"tool_use_id":"toolu_1","type":"tool_result","content":"x"}`),
				toolResult("", `{"tool_use_id":"toolu_1","type":"tool_result","content":"x"}`),
				okResult},
			want: []got{
				{"type": "message", "role": "assistant", "content": "same"},
				{"type": "tool", "tool_id": "toolu_1", "name": "Bash", "status": "running", "args": map[string]any{}},
				{"type": "tool", "tool_id": "toolu_1", "name": "Bash", "status": "success", "result": "x"},
			},
		},
		{
			name: "the same text in two messages is shown twice",
			lines: []string{initLine,
				asst("msg_1", "", text("again")),
				asst("msg_2", "", text("again")),
				okResult},
			want: []got{
				{"type": "message", "role": "assistant", "content": "again"},
				{"type": "message", "role": "assistant", "content": "again"},
			},
		},
		{
			name: "omitted and redacted thinking are no entry",
			lines: []string{initLine,
				asst("msg_1", "", `{"type":"thinking","thinking":"","signature":"EtQG"}`),
				asst("msg_1", "", `{"type":"thinking","signature":"EtQG"}`),
				asst("msg_1", "", `{"type":"redacted_thinking","data":"EmwKAhgB"}`),
				asst("msg_1", "", text("answer")),
				okResult},
			want: []got{{"type": "message", "role": "assistant", "content": "answer"}},
		},
		{
			name: "server tool closed by its result block",
			lines: []string{initLine,
				asst("msg_1", "", `{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"go"}}`),
				asst("msg_1", "", `{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","title":"Go","url":"https://go.dev","encrypted_content":"Eq"}]}`),
				asst("msg_1", "", `{"type":"server_tool_use","id":"srvtoolu_2","name":"web_search","input":{"query":"x"}}`),
				asst("msg_1", "", `{"type":"web_search_tool_result","tool_use_id":"srvtoolu_2","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}`),
				okResult},
			want: []got{
				{"type": "tool", "tool_id": "srvtoolu_1", "name": "web_search", "status": "running", "args": map[string]any{"query": "go"}},
				{"type": "tool", "tool_id": "srvtoolu_1", "name": "web_search", "status": "success", "result": "Go https://go.dev"},
				{"type": "tool", "tool_id": "srvtoolu_2", "name": "web_search", "status": "running", "args": map[string]any{"query": "x"}},
				{"type": "tool", "tool_id": "srvtoolu_2", "name": "web_search", "status": "error", "error": "web_search_tool_result_error: max_uses_exceeded"},
			},
		},
		{
			name: "stream events never make entries",
			lines: []string{initLine,
				`{"type":"stream_event","event":{"type":"message_start","message":{"model":"claude-sonnet-4-6","id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":2,"output_tokens":1}}},"parent_tool_use_id":null,"session_id":"s1"}`,
				`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}},"parent_tool_use_id":null,"session_id":"s1"}`,
				`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hel"}},"parent_tool_use_id":null,"session_id":"s1"}`,
				`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}},"parent_tool_use_id":null,"session_id":"s1"}`,
				`{"type":"stream_event","event":{"type":"content_block_stop","index":0},"parent_tool_use_id":null,"session_id":"s1"}`,
				asst("msg_1", "", text("hello")),
				`{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}},"parent_tool_use_id":null,"session_id":"s1"}`,
				`{"type":"stream_event","event":{"type":"message_stop"},"parent_tool_use_id":null,"session_id":"s1"}`,
				okResult},
			want: []got{{"type": "message", "role": "assistant", "content": "hello"}},
		},
		{
			name: "unknown types and subtypes are skipped",
			lines: []string{
				`{"type":"system","subtype":"hook_started","hook_id":"h","hook_name":"SessionStart:startup","session_id":"s1"}`,
				initLine,
				`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"},"session_id":"s1"}`,
				`{"type":"system","subtype":"task_progress","task_id":"t","usage":{"total_tokens":5}}`,
				`{"type":"tool_progress","tool_use_id":"toolu_9","tool_name":"Bash","elapsed_time_seconds":30}`,
				`{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool"}}`,
				`{"type":"keep_alive"}`,
				`{"type":"brand_new_event","payload":{"x":1}}`,
				asst("msg_1", "", `{"type":"brand_new_block","x":1}`),
				asst("msg_1", "", text("hi")),
				okResult,
				`{"type":"prompt_suggestion","suggestion":"more"}`},
			want: []got{{"type": "message", "role": "assistant", "content": "hi"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, bodyOf(convertLines(t, tt.lines...)))
		})
	}
}

func TestToolResults(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 48204)...) // 48212 bytes
	pngData := base64.StdEncoding.EncodeToString(png)
	tests := []struct {
		name          string
		block, tur    string
		status, field string
		want          string
	}{
		{"string content, is_error absent", `"content":"ok"`, "", "success", "result", "ok"},
		{"is_error true", `"content":"Exit code 1\nboom","is_error":true`, "", "error", "error", "Exit code 1\nboom"},
		{"is_error false", `"content":"fine","is_error":false`, "", "success", "result", "fine"},
		{"text blocks join with newlines", `"content":[{"type":"text","text":"part one"},{"type":"text","text":"part \"two\""}]`, "", "success", "result", "part one\npart \"two\""},
		{"a base64 image is carried after the text", `"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + pngData + `"}},{"type":"text","text":"a picture"}]`, "", "success", "result", "a picture\n\n![image/png 48212 bytes](data:image/png;base64," + pngData + ")"},
		{"image placeholder counts decoded bytes, with padding", `"content":[{"type":"text","text":"see"},{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"` + base64.StdEncoding.EncodeToString([]byte("abcd")) + `"}}]`, "", "success", "result", "see\n\n[image image/jpeg 4 bytes: data is not a JPEG, not shown]"},
		{"an image by URL is named, never fetched", `"content":[{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]`, "", "success", "result", "[image https://example.com/a.png]"},
		{"other block types are a placeholder", `"content":[{"type":"container_upload","file_id":"file_1"}]`, "", "success", "result", "[container_upload]"},
		{"a ToolSearch result names the tools it loaded", `"content":[{"type":"tool_reference","tool_name":"WebSearch"},{"type":"tool_reference","tool_name":"mcp__notes__read"}]`, "", "success", "result", "[tool_reference WebSearch]\n[tool_reference mcp__notes__read]"},
		{"a tool_reference without a name is a placeholder", `"content":[{"type":"tool_reference"}]`, "", "success", "result", "[tool_reference]"},
		{"empty content takes Bash stdout and stderr", `"content":"","is_error":false`, `{"stdout":"out","stderr":"err","interrupted":false,"isImage":false}`, "success", "result", "out\nerr"},
		{"tool_use_result never decides the status", `"content":""`, `"Error: failed to write"`, "success", "result", "Error: failed to write"},
		{"content wins over tool_use_result", `"content":"from content","is_error":true`, `{"stdout":"from stdout","stderr":""}`, "error", "error", "from content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user := toolResult("", `{"tool_use_id":"toolu_1","type":"tool_result",`+tt.block+`}`)
			if tt.tur != "" {
				user = strings.TrimSuffix(user, "}") + `,"tool_use_result":` + tt.tur + `}`
			}
			es := bodyOf(convertLines(t, initLine, asst("msg_1", "", toolUse("toolu_1", "Read", `{"file_path":"/a.png"}`)), user, okResult))
			require.Len(t, es, 2)
			assert.Equal(t, tt.status, es[1]["status"])
			assert.Equal(t, tt.want, es[1][tt.field])
		})
	}
}

func TestBase64Len(t *testing.T) {
	for n := range 10 {
		data := bytes.Repeat([]byte{0xff}, n)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding} {
			s := enc.EncodeToString(data)
			assert.Equal(t, n, base64Len([]byte(s)), "%q", s)
			// Escaped slashes and wrapped lines as JSON may carry them.
			esc := strings.ReplaceAll(s, "/", `\/`)
			assert.Equal(t, n, base64Len([]byte(`\n`+esc+`\r\n`)), "%q", esc)
		}
	}
}

func TestSubagents(t *testing.T) {
	for _, name := range []string{"Agent", "Task"} {
		t.Run(name, func(t *testing.T) {
			es := bodyOf(convertLines(t, initLine,
				asst("msg_1", "", toolUse("toolu_A", name, `{"description":"look","prompt":"Find the bug.","subagent_type":"Explore"}`)),
				`{"type":"system","subtype":"task_started","task_id":"t1","tool_use_id":"toolu_A","description":"look"}`,
				// The prompt echo repeats args.prompt: skipped.
				`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Find the bug."}]},"parent_tool_use_id":"toolu_A","session_id":"s1"}`,
				asst("msg_sub1", "toolu_A", text("Looking.")),
				asst("msg_sub1", "toolu_A", toolUse("toolu_S", "Grep", `{"pattern":"bug"}`)),
				asst("msg_2", "", toolUse("toolu_M", "Bash", `{"command":"make"}`)),
				toolResult("toolu_A", `{"tool_use_id":"toolu_S","type":"tool_result","content":"x.go:1"}`),
				toolResult("", `{"tool_use_id":"toolu_M","type":"tool_result","content":"built"}`),
				toolResult("", `{"tool_use_id":"toolu_A","type":"tool_result","content":[{"type":"text","text":"Found it."}]}`),
				asst("msg_3", "", text("Fixed.")),
				okResult))
			want := []got{
				{"type": "tool", "tool_id": "toolu_A", "name": name, "status": "running", "args": map[string]any{"description": "look", "prompt": "Find the bug.", "subagent_type": "Explore"}},
				{"type": "message", "role": "assistant", "content": "Looking.", "parent_tool_id": "toolu_A"},
				{"type": "tool", "tool_id": "toolu_S", "name": "Grep", "status": "running", "args": map[string]any{"pattern": "bug"}, "parent_tool_id": "toolu_A"},
				{"type": "tool", "tool_id": "toolu_M", "name": "Bash", "status": "running", "args": map[string]any{"command": "make"}},
				{"type": "tool", "tool_id": "toolu_S", "name": "Grep", "status": "success", "result": "x.go:1", "parent_tool_id": "toolu_A"},
				{"type": "tool", "tool_id": "toolu_M", "name": "Bash", "status": "success", "result": "built"},
				{"type": "tool", "tool_id": "toolu_A", "name": name, "status": "success", "result": "Found it."},
				{"type": "message", "role": "assistant", "content": "Fixed."},
			}
			assert.Equal(t, want, es)
		})
	}
}

func TestInitAndPrompt(t *testing.T) {
	replay := func(content string) string {
		return `{"type":"user","message":{"role":"user","content":` + content + `},"session_id":"s1","parent_tool_use_id":null,"isReplay":true}`
	}
	tests := []struct {
		name     string
		lines    []string
		init     map[string]any
		prompt   any // nil: no prompt entry
		wantBody int
	}{
		{
			name:  "hooks before init, a second init makes no entry",
			lines: []string{`{"type":"system","subtype":"hook_response","hook_id":"h","outcome":"success"}`, initLine, asst("msg_1", "", text("a")), okResult, `{"type":"system","subtype":"init","cwd":"/other","model":"claude-haiku-4-5"}`, asst("msg_2", "", text("b")), okResult},
			init:  map[string]any{"task": "", "cwd": "/src/app", "model": "claude-sonnet-4-6", "agent": "claude-code", "clock": "arrival"}, wantBody: 2,
		},
		{
			name:  "no init: the first answer's model",
			lines: []string{asst("msg_1", "", text("a")), okResult},
			init:  map[string]any{"task": "", "cwd": "/work", "model": "claude-sonnet-4-6", "agent": "claude-code", "clock": "arrival"}, wantBody: 1,
		},
		{
			name:  "an init without a model waits for the first answer",
			lines: []string{`{"type":"system","subtype":"init","cwd":"/cut","session_id":"s1"}`, asst("msg_1", "", text("a")), okResult},
			init:  map[string]any{"task": "", "cwd": "/cut", "model": "claude-sonnet-4-6", "agent": "claude-code", "clock": "arrival"}, wantBody: 1,
		},
		{
			name:   "the first replayed message is the prompt",
			lines:  []string{initLine, replay(`"fix <the> bug & test"`), asst("msg_1", "", text("ok")), okResult, replay(`"second"`), asst("msg_2", "", text("ok2")), okResult},
			init:   map[string]any{"task": "", "cwd": "/src/app", "model": "claude-sonnet-4-6", "agent": "claude-code", "clock": "arrival"},
			prompt: "fix <the> bug & test", wantBody: 2,
		},
		{
			name:   "a replay with text blocks",
			lines:  []string{initLine, replay(`[{"type":"text","text":"one"},{"type":"text","text":"two"}]`), okResult},
			init:   map[string]any{"task": "", "cwd": "/src/app", "model": "claude-sonnet-4-6", "agent": "claude-code", "clock": "arrival"},
			prompt: "one\ntwo",
		},
		{
			name:  "injected skill text is not shown",
			lines: []string{initLine, `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Base directory for this skill"}]},"parent_tool_use_id":null,"isSynthetic":true}`, okResult},
			init:  map[string]any{"task": "", "cwd": "/src/app", "model": "claude-sonnet-4-6", "agent": "claude-code", "clock": "arrival"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es := convertLines(t, tt.lines...)
			assert.Equal(t, "init", es[0]["type"])
			assert.Equal(t, tt.init, es[0]["data"])
			var prompt any
			if es[1]["type"] == "prompt" {
				prompt = es[1]["content"]
			}
			assert.Equal(t, tt.prompt, prompt)
			assert.Len(t, bodyOf(es), tt.wantBody)
		})
	}
}

func TestSynthetic(t *testing.T) {
	synth := `{"type":"assistant","message":{"id":"90ca08e0-061c-4d2f-a7c6-b9ac8b865853","container":null,"model":"<synthetic>","role":"assistant","stop_reason":"stop_sequence","type":"message","usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"content":[{"type":"text","text":"API Error: Unable to connect to API (EAI_AGAIN)"}]},"parent_tool_use_id":null,"session_id":"s1","error":"unknown"}`
	es := convertLines(t, initLine, asst("msg_1", "", text("working")), synth,
		`{"type":"result","subtype":"success","is_error":true,"duration_ms":5,"num_turns":2,"result":"API Error: Unable to connect to API (EAI_AGAIN)","total_cost_usd":0.1}`)
	assert.Equal(t, []got{
		{"type": "message", "role": "assistant", "content": "working"},
		{"type": "message", "role": "assistant", "content": "API Error: Unable to connect to API (EAI_AGAIN)"},
	}, bodyOf(es))
	c := completeOf(t, es)
	assert.Equal(t, "error", c["status"])
	assert.Equal(t, float64(1), c["turns"], "the synthetic message is no turn")
	assert.Equal(t, "API Error: Unable to connect to API (EAI_AGAIN)", c["message"])
	assert.Equal(t, "api_error", c["reason"])
	assert.Equal(t, float64(1), c["warnings"])
}

func TestTurns(t *testing.T) {
	es := convertLines(t, initLine,
		asst("msg_1", "", thinking("t")), asst("msg_1", "", text("a")), asst("msg_1", "", toolUse("toolu_A", "Agent", `{}`)),
		asst("msg_sub", "toolu_A", toolUse("toolu_S", "Read", `{}`)),
		toolResult("toolu_A", `{"tool_use_id":"toolu_S","type":"tool_result","content":"x"}`),
		toolResult("", `{"tool_use_id":"toolu_A","type":"tool_result","content":"y"}`),
		asst("msg_2", "", text("b")), asst("msg_2", "", text("c")),
		okResult)
	assert.Equal(t, float64(2), completeOf(t, es)["turns"], "two main-thread message ids; the subagent's is no turn")
}

func TestEndings(t *testing.T) {
	tests := []struct {
		name    string
		results []string
		want    got // fields of complete that must match
		absent  []string
	}{
		{
			name:    "success",
			results: []string{okResult},
			want:    got{"status": "success", "duration_ms": float64(100), "cost_usd": 0.5},
			absent:  []string{"message", "reason"},
		},
		{
			name:    "max turns with errors[]",
			results: []string{`{"type":"result","subtype":"error_max_turns","is_error":true,"duration_ms":7,"num_turns":31,"errors":["Reached maximum number of turns (30)"],"terminal_reason":"max_turns","total_cost_usd":1}`},
			want:    got{"status": "error", "message": "Reached maximum number of turns (30)", "reason": "max_turns"},
		},
		{
			name:    "max turns with is_error false is still success",
			results: []string{`{"type":"result","subtype":"error_max_turns","is_error":false,"errors":[],"duration_ms":7}`},
			want:    got{"status": "success", "reason": "max_turns"},
			absent:  []string{"message"},
		},
		{
			// Amp's error result: the API's error as a string in "error",
			// no result text (a real 413 "Prompt is too long" ended a run
			// so); before, the message was the bare subtype.
			name:    "Amp, message from the error string",
			results: []string{`{"type":"result","subtype":"error_during_execution","duration_ms":5000,"is_error":true,"num_turns":12,"error":"529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}","session_id":"T-0a1b2c3d-0000-7000-8000-000000000001"}`},
			want:    got{"status": "error", "message": `529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "reason": "during_execution"},
		},
		{
			name:    "budget, message from the subtype",
			results: []string{`{"type":"result","subtype":"error_max_budget_usd","is_error":true,"errors":[],"duration_ms":7}`},
			want:    got{"status": "error", "message": "error_max_budget_usd", "reason": "budget"},
		},
		{
			name:    "interrupted",
			results: []string{`{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["Request was aborted."],"terminal_reason":"aborted_tools","duration_ms":7}`},
			want:    got{"status": "error", "message": "Request was aborted.", "reason": "interrupted"},
		},
		{
			name:    "during execution, several errors",
			results: []string{`{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["one","two"],"duration_ms":7}`},
			want:    got{"status": "error", "message": "one; two", "reason": "during_execution"},
		},
		{
			name:    "structured output",
			results: []string{`{"type":"result","subtype":"error_max_structured_output_retries","is_error":true,"duration_ms":7}`},
			want:    got{"status": "error", "reason": "structured_output"},
		},
		{
			name:    "the last result decides; durations add up",
			results: []string{`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 500","duration_ms":10}`, `{"type":"result","subtype":"success","is_error":false,"result":"ok","duration_ms":20}`},
			want:    got{"status": "success", "duration_ms": float64(30)},
			absent:  []string{"message", "reason"},
		},
		{
			name:    "no result: incomplete, open tools closed as errors",
			results: []string{asst("msg_9", "", toolUse("toolu_open", "Bash", `{"command":"sleep 9"}`))},
			want:    got{"status": "error", "reason": "incomplete"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es := convertLines(t, append([]string{initLine, asst("msg_1", "", text("hi"))}, tt.results...)...)
			c := completeOf(t, es)
			for k, v := range tt.want {
				assert.Equal(t, v, c[k], k)
			}
			for _, k := range tt.absent {
				assert.NotContains(t, c, k)
			}
		})
	}
}

func TestEventsAfterResult(t *testing.T) {
	es := convertLines(t, initLine, asst("msg_1", "", text("first")), okResult,
		`{"type":"system","subtype":"task_notification","task_id":"b1","status":"completed"}`,
		asst("msg_2", "", text("after")), okResult)
	assert.Len(t, bodyOf(es), 2)
	assert.Equal(t, "complete", es[len(es)-1]["type"])
	assert.Equal(t, float64(2), completeOf(t, es)["turns"])
}

func TestTokens(t *testing.T) {
	mu := func(index, cost string, models ...string) string {
		s := `{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"total_cost_usd":` + cost +
			`,"usage":{"input_tokens":999,"output_tokens":999},"modelUsage":{` + strings.Join(models, ",") + `}`
		if index != "" {
			s += `,"result_index":` + index
		}
		return s + "}"
	}
	model := func(name string, in, out, cr, cw int) string {
		b, _ := json.Marshal(map[string]int{"inputTokens": in, "outputTokens": out, "cacheReadInputTokens": cr, "cacheCreationInputTokens": cw, "webSearchRequests": 0})
		return quote(name) + ":" + string(b)
	}
	tests := []struct {
		name  string
		lines []string
		want  dialog.Tokens
		cost  float64
	}{
		{
			name:  "modelUsage summed over models",
			lines: []string{initLine, mu("", "0.5", model("opus", 10, 20, 300, 40), model("haiku", 1, 2, 0, 0))},
			want:  dialog.Tokens{In: 351, Out: 22, CacheRead: 300, CacheWrite: 40}, cost: 0.5,
		},
		{
			name:  "result.usage without modelUsage",
			lines: []string{initLine, okResult},
			want:  dialog.Tokens{In: 6, Out: 4, CacheRead: 3, CacheWrite: 2}, cost: 0.5,
		},
		{
			name: "no result: per message.id maxima, never a sum of lines",
			lines: []string{initLine,
				`{"type":"assistant","message":{"id":"msg_1","model":"m","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":0,"output_tokens":1}}}`,
				`{"type":"assistant","message":{"id":"msg_1","model":"m","content":[{"type":"text","text":"b"}],"usage":{"input_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":0,"output_tokens":9}}}`,
				`{"type":"assistant","message":{"id":"msg_2","model":"m","content":[{"type":"text","text":"c"}],"usage":{"input_tokens":1,"cache_read_input_tokens":200,"cache_creation_input_tokens":null,"output_tokens":2}}}`,
				`{"type":"assistant","message":{"id":"u-1","model":"<synthetic>","content":[{"type":"text","text":"err"}],"usage":{"input_tokens":50,"output_tokens":50}},"error":"unknown"}`},
			want: dialog.Tokens{In: 306, Out: 11, CacheRead: 300},
		},
		{
			name: "partial messages: message_delta refines the output count",
			lines: []string{initLine,
				`{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1","model":"m","content":[],"usage":{"input_tokens":2,"cache_creation_input_tokens":20,"cache_read_input_tokens":0,"output_tokens":1}}},"parent_tool_use_id":null}`,
				asst("msg_1", "", text("hello")),
				`{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":2,"cache_creation_input_tokens":20,"cache_read_input_tokens":0,"output_tokens":40}},"parent_tool_use_id":null}`},
			// asst's usage (2, 10 write, 100 read, 3 out) and the stream's, per-field max.
			want: dialog.Tokens{In: 2 + 20 + 100, Out: 40, CacheRead: 100, CacheWrite: 20},
		},
		{
			name: "one process, several results: modelUsage and cost are running totals",
			lines: []string{initLine, mu("0", "0.03", model("haiku", 20, 479, 39003, 13148)),
				`{"type":"system","subtype":"init","cwd":"/src/app","model":"haiku"}`, // a background task's re-init
				mu("1", "0.04", model("haiku", 30, 543, 65954, 13619))},
			want: dialog.Tokens{In: 30 + 65954 + 13619, Out: 543, CacheRead: 65954, CacheWrite: 13619}, cost: 0.04,
		},
		{
			name: "one process without result_index: no init between, running totals",
			lines: []string{initLine, mu("", "0.1", model("opus", 10, 10, 10, 10)),
				mu("", "0.2", model("opus", 20, 20, 20, 20))},
			want: dialog.Tokens{In: 60, Out: 20, CacheRead: 20, CacheWrite: 20}, cost: 0.2,
		},
		{
			name: "resumed legs: an init between results without result_index",
			lines: []string{initLine, mu("", "0.1", model("opus", 10, 10, 10, 10)),
				initLine, mu("", "0.2", model("opus", 20, 20, 20, 20))},
			want: dialog.Tokens{In: 90, Out: 30, CacheRead: 30, CacheWrite: 30}, cost: 0.3,
		},
		{
			name: "resumed legs: result_index starts again at 0",
			lines: []string{initLine, mu("0", "0.1", model("opus", 10, 10, 10, 10)),
				mu("0", "0.2", model("opus", 20, 20, 20, 20))},
			want: dialog.Tokens{In: 90, Out: 30, CacheRead: 30, CacheWrite: 30}, cost: 0.3,
		},
		{
			name: "resumed legs: a running total went down",
			lines: []string{initLine, mu("", "0.1", model("opus", 10, 10, 10, 10), model("haiku", 5, 5, 0, 0)),
				mu("", "0.2", model("opus", 20, 20, 20, 20))},
			want: dialog.Tokens{In: 35 + 60, Out: 15 + 20, CacheRead: 30, CacheWrite: 30}, cost: 0.3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := completeOf(t, convertLines(t, tt.lines...))
			want := map[string]any{"in": float64(tt.want.In), "out": float64(tt.want.Out)}
			if tt.want.CacheRead > 0 {
				want["cache_read"] = float64(tt.want.CacheRead)
			}
			if tt.want.CacheWrite > 0 {
				want["cache_write"] = float64(tt.want.CacheWrite)
			}
			assert.Equal(t, want, c["total_tokens"])
			if tt.cost > 0 {
				assert.InDelta(t, tt.cost, c["cost_usd"], 1e-12)
			}
		})
	}
}

func TestOldCostField(t *testing.T) {
	es := convertLines(t, initLine, `{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"cost_usd":0.25}`)
	assert.Equal(t, 0.25, completeOf(t, es)["cost_usd"])
}

func TestMalformed(t *testing.T) {
	out, stderr := runPipeline(t, strings.Join([]string{initLine,
		`{"type":"assistant","message":"not an object"}`,
		`{"type":"assistant","message":{"id":"msg_1","content":{"type":"text"}}}`,
		`{"type":"user"}`,
		asst("msg_2", "", text("still here")),
		okResult}, "\n"))
	requireValid(t, out)
	assert.Equal(t, "input:2: skipped: no message object\n"+
		"input:3: skipped: message.content is neither an array nor a string\n"+
		"input:4: skipped: no message object\n", stderr)
	assert.Equal(t, []got{{"type": "message", "role": "assistant", "content": "still here"}}, bodyOf(decode(t, out)))
}

func TestDetect(t *testing.T) {
	adaptertest.Detects(t, Detect, map[string]adapter.Claim{
		initLine: adapter.Yes,
		`{"type":"system","subtype":"hook_started","hook_id":"h"}`:               adapter.Yes,
		`{"type":"system","subtype":"session_start","qwen_code_version":"0.1"}`:  adapter.Yes,
		asst("msg_1", "", text("a")):                                             adapter.Yes,
		toolResult("", `{"tool_use_id":"t","type":"tool_result","content":"x"}`): adapter.Yes,
		okResult: adapter.Yes,
		`{"type":"stream_event","event":{"type":"message_start"}}`:           adapter.Yes,
		`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}}`: adapter.Yes,
		// Lines Cursor's stream prints alike.
		`{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s","model":"Auto"}`:                   adapter.Maybe,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"session_id":"s"}`:                     adapter.Maybe,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]},"session_id":"s"}`:           adapter.Maybe,
		`{"type":"result","subtype":"success","duration_ms":1,"is_error":false,"result":"ok","session_id":"s","request_id":"r"}`: adapter.Maybe,
		// Codex: dotted types, legacy id/msg, prompt and config lines, errors.
		`{"type":"thread.started","thread_id":"t"}`:                                            adapter.No,
		`{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hi"}}`:  adapter.No,
		`{"type":"session.created","session_id":"s"}`:                                          adapter.No,
		`{"id":"0","msg":{"type":"task_started"}}`:                                             adapter.No,
		`{"prompt":"fix it"}`:                                                                  adapter.No,
		`{"model":"o3","provider":"openai","sandbox":"read-only","reasoning effort":"medium"}`: adapter.No,
		`{"type":"error","message":"retrying"}`:                                                adapter.No,
		// Gemini's stream, and Claude Code's own session files.
		`{"type":"result","timestamp":"2026-01-01T00:00:00Z","status":"success","stats":{"total_tokens":3}}`:                        adapter.No,
		`{"type":"init","session_id":"s","model":"gemini-2.5-pro"}`:                                                                 adapter.No,
		`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u","sessionId":"s"}`: adapter.No,
		`{}`: adapter.No,
	})
}

// TestNothingKept overwrites each input object right after the adapter has
// seen it (test2json's trick): if the adapter kept a view of obj past the
// call, later entries would show the overwritten bytes.
func TestNothingKept(t *testing.T) {
	lines := []string{initLine,
		asst("msg_1", "", thinking("plan")),
		asst("msg_1", "", toolUse("toolu_A", "Agent", `{"prompt":"p"}`)),
		asst("msg_s", "toolu_A", toolUse("toolu_S", "Bash", `{"command":"ls"}`)),
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_2","model":"m","usage":{"input_tokens":1}}},"parent_tool_use_id":null}`,
		asst("msg_1", "", toolUse("toolu_B", "Read", `{}`)),
		toolResult("toolu_A", `{"tool_use_id":"toolu_S","type":"tool_result","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`),
		toolResult("", `{"tool_use_id":"toolu_X","type":"tool_result","content":"orphan"}`),
		`{"type":"result","subtype":"error_max_turns","is_error":true,"errors":["Reached maximum number of turns (2)"],"modelUsage":{"opus":{"inputTokens":1,"outputTokens":2}}}`,
		`{"type":"result","subtype":"error_brand_new","is_error":true,"errors":["Reached maximum number of turns (3)"],"modelUsage":{"opus":{"inputTokens":1,"outputTokens":3}}}`,
	}
	convertWith := func(kill bool) string {
		var buf bytes.Buffer
		w := dialog.NewWriter(&buf, dialog.Options{Clock: adaptertest.Pinned(), DefaultCWD: "/work"})
		a := New(w)
		for _, l := range lines {
			obj := []byte(l)
			w.BeginLine()
			require.NoError(t, a.Event(adaptertest.Event(t, string(obj))))
			if kill {
				for i := range obj {
					obj[i] = 'Z'
				}
			}
		}
		require.NoError(t, w.Close(a.Summary(), nil))
		return buf.String()
	}
	want := convertWith(false)
	requireValid(t, want)
	assert.Equal(t, want, convertWith(true))
}

// The adapter remembers only recent messages and calls: a message that
// comes back long after (past recentMessages others) is taken for a new
// one — its block shown, its usage counted, again — and the fallback totals
// keep the usage of every message it forgot.
func TestMemoryFollowsWhatIsRecent(t *testing.T) {
	lines := []string{initLine}
	for i := range recentMessages + 10 {
		id := "msg_" + strconv.Itoa(i)
		lines = append(lines, asst(id, "", text("m"+strconv.Itoa(i))), asst(id, "", text("m"+strconv.Itoa(i))))
	}
	lines = append(lines, asst("msg_0", "", text("m0")))
	d := convertLines(t, lines...)
	body := bodyOf(d)
	assert.Len(t, body, recentMessages+11, "each message once, and msg_0's block again after it was forgotten")
	complete := d[len(d)-1]
	// asst's usage: input 2 + cache 10 + 100, output 3, per message; msg_0's twice.
	const n = recentMessages + 11
	assert.Equal(t, map[string]any{"in": float64(112 * n), "out": float64(3 * n),
		"cache_read": float64(100 * n), "cache_write": float64(10 * n)}, complete["total_tokens"])
	assert.Equal(t, float64(n), complete["turns"])
}

// is_error as the string "false" is no boolean: the run is an error
// (never a success read from a malformed flag), and the message says why,
// with the result's text after it; the reason guesses no API failure.
func TestResultIsErrorAsAString(t *testing.T) {
	es := convertLines(t, initLine, asst("msg_1", "", text("done")),
		`{"type":"result","subtype":"success","is_error":"false","duration_ms":5,"num_turns":1,"result":"done"}`)
	c := completeOf(t, es)
	assert.Equal(t, "error", c["status"])
	assert.Equal(t, `is_error is "false", not a JSON boolean: read as an error (done)`, c["message"])
	assert.Equal(t, "invalid_is_error", c["reason"])
}

// runPipeline converts input through the real pipeline (framing, detection,
// the writer) and returns the dialog, valid, and what went to stderr.
func runPipeline(t testing.TB, input string) (out, stderr string) {
	t.Helper()
	d := adaptertest.Pipeline(t, Format(), options(), strings.NewReader(input))
	return string(d.Out), d.Stderr
}

// options are the writer's options of the pipeline's tests: the clock
// pinned, the cwd the golden flags give, no cut.
func options() dialog.Options {
	return dialog.Options{Clock: adaptertest.Pinned(), DefaultCWD: "/work", MaxText: -1}
}

// requireValid fails when the dialog breaks the contract.
func requireValid(t testing.TB, out string) {
	t.Helper()
	adaptertest.RequireValid(t, []byte(out))
}

// TestCompactBoundary: a compaction in the stream (Claude Code 2.1.207,
// /compact or auto) is shown where it happened, worded as the session
// file's is: trigger and the tokens before. The summary the model is given
// next (a synthetic user line) and the command's output are no prompt.
// Before, the boundary was skipped as a type not read and the dialog did
// not say the context was compacted.
func TestCompactBoundary(t *testing.T) {
	boundary := `{"type":"system","subtype":"compact_boundary","session_id":"s1","uuid":"5b0d6c1e-1f0a-4c55-9a43-2f1e0b7d3a10","compact_metadata":{"trigger":"manual","pre_tokens":36663,"post_tokens":972,"cumulative_dropped_tokens":35691,"duration_ms":12249,"preserved_segment":{"head_uuid":"a1","anchor_uuid":"a2","tail_uuid":"a3"}}}`
	summary := `{"type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation."},"session_id":"s1","parent_tool_use_id":null,"uuid":"a2","isReplay":false,"isSynthetic":true}`
	stdout := `{"type":"user","message":{"role":"user","content":"<local-command-stdout>Compacted </local-command-stdout>"},"session_id":"s1","parent_tool_use_id":null,"uuid":"a4","isReplay":true}`
	auto := `{"type":"system","subtype":"compact_boundary","session_id":"s1","compact_metadata":{"trigger":"auto","pre_tokens":155979}}`
	es := convertLines(t, initLine, asst("msg_1", "", text("ok")), boundary, summary, stdout, auto, asst("msg_2", "", text("still here")), okResult)
	assert.Equal(t, []string{"ok", "⚠ context compacted (manual, 36k tokens)", "⚠ context compacted (auto, 155k tokens)", "still here"}, messages(es))
	c := completeOf(t, es)
	assert.Equal(t, []any{"success", float64(2), float64(2)}, []any{c["status"], c["turns"], c["warnings"]},
		"a compaction is no turn, and a warning, as in the session file")
}

// TestCompactionFailed: a compaction that failed (system/status with
// compact_result "failed", as Claude Code reports a timed-out summary
// request) is a warning where it happened; the status lines around it
// (compacting, success) say nothing a dialog shows.
func TestCompactionFailed(t *testing.T) {
	compacting := `{"type":"system","subtype":"status","status":"compacting","session_id":"s1"}`
	failed := `{"type":"system","subtype":"status","status":null,"compact_result":"failed","compact_error":"Request timed out","session_id":"s1"}`
	failedBare := `{"type":"system","subtype":"status","status":null,"compact_result":"failed","session_id":"s1"}`
	succeeded := `{"type":"system","subtype":"status","status":null,"compact_result":"success","session_id":"s1"}`
	es := convertLines(t, initLine, asst("msg_1", "", text("reading")), compacting, compacting, failed, failedBare, compacting, succeeded, asst("msg_2", "", text("done")), okResult)
	assert.Equal(t, []string{"reading", "⚠ context compaction failed: Request timed out", "⚠ context compaction failed", "done"}, messages(es))
	assert.Equal(t, float64(2), completeOf(t, es)["warnings"])
}

// messages returns the content of each assistant message of the body, and
// "<type>" for any other entry.
func messages(es []got) []string {
	var m []string
	for _, e := range bodyOf(es) {
		if e["type"] == "message" && e["role"] == "assistant" {
			m = append(m, e["content"].(string))
		} else {
			m = append(m, "<"+e["type"].(string)+">")
		}
	}
	return m
}
