package codexrollout

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
)

func TestExitCodeIn(t *testing.T) {
	cases := map[string]struct {
		code int64
		ok   bool
	}{
		`Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.`:                              {0, true},
		`Exit code: 127\nWall time: 0 seconds\nOutput:\nnot found`:                           {127, true},
		`Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\nboom`:     {2, true},
		`Chunk ID: 1\nWall time: 1 seconds\nProcess running with session ID 7\nOutput:\n...`: {0, false},
		`plain output\nProcess exited with code 3`:                                           {3, true},
		`Chunk ID: 1\nOutput:\nthe program printed: Process exited with code 9`:              {0, false},
		`Output:\nExit code: 4`:                  {0, false},
		`patch rejected by user`:                 {0, false},
		`xProcess exited with code 5`:            {0, false},
		`Process exited with code -1\nOutput:\n`: {-1, true},
	}
	for body, want := range cases {
		code, ok := exitCodeIn([]byte(body))
		assert.Equal(t, want.ok, ok, body)
		assert.Equal(t, want.code, code, body)
	}
}

func TestUUIDv7Millis(t *testing.T) {
	assert.Equal(t, int64(0x01a22d6567de), uuidV7Millis("01a22d65-67de-7580-bfe3-b58322b4abea"))
	assert.Zero(t, uuidV7Millis("4c2ddfdc-b619-4525-8d03-1950fb1b0257"), "a v4 UUID has no time")
	assert.Zero(t, uuidV7Millis("not-a-uuid"))
	assert.Zero(t, uuidV7Millis(""))
}

func TestInjected(t *testing.T) {
	assert.True(t, injected([]byte(`<environment_context>\n  <cwd>/w</cwd>`)))
	assert.True(t, injected([]byte(`\n# AGENTS.md instructions for /w`)))
	assert.False(t, injected([]byte(`# Context from my IDE setup:\n\n## My request for Codex:\nfix it`)), "the IDE's wrapper carries the user's request")
	assert.False(t, injected([]byte(`please read <environment_context>`)))
}

// TestBareItems: rollouts from before the {timestamp, type, payload}
// envelope hold bare response items; with --format codex-rollout they
// convert (detection does not claim them: a bare message could be anyone's).
func TestBareItems(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"5973b6c0-94b8-487b-a530-2aeb6098ae0e","timestamp":"2025-07-01T10:00:00.000Z","instructions":null}`,
		`{"record_type":"state"}`,
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"list files"}]}`,
		`{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_1"}`,
		`{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"a\\nb\\n\",\"metadata\":{\"exit_code\":0}}"}`,
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a and b"}]}`,
	}, "\n") + "\n"
	out := adaptertest.Convert(t, Format(), bytes.NewReader([]byte(in)))
	adaptertest.RequireValid(t, out)
	s := string(out)
	assert.Contains(t, s, `"type":"prompt","content":"list files"`)
	assert.Contains(t, s, `"name":"bash","status":"success","result":"a\nb\n"`)
	assert.Contains(t, s, `"content":"a and b"`)
	assert.Contains(t, s, `"status":"success"`, "no task events: an answer with no call open ends the turn")
	require.Equal(t, 6, bytes.Count(out, []byte("\n")))
}

// TestExitCodeFromEvents: when the output's text states no exit code,
// Codex's own event for the call does (exec_command_end in older
// rollouts, item_completed in newer ones, patch_apply_end for patches).
func TestExitCodeFromEvents(t *testing.T) {
	in := strings.Join([]string{
		`{"timestamp":"2025-10-01T10:00:00.000Z","type":"session_meta","payload":{"id":"x","cwd":"/w"}}`,
		`{"timestamp":"2025-10-01T10:00:00.001Z","type":"event_msg","payload":{"type":"user_message","message":"go"}}`,
		`{"timestamp":"2025-10-01T10:00:00.002Z","type":"turn_context","payload":{"model":"gpt-5"}}`,
		`{"timestamp":"2025-10-01T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"false\"]}","call_id":"c1"}}`,
		`{"timestamp":"2025-10-01T10:00:01.100Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","stdout":"","stderr":"boom","exit_code":1}}`,
		`{"timestamp":"2025-10-01T10:00:01.200Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"boom"}}`,
		`{"timestamp":"2025-10-01T10:00:02.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** End Patch\n","call_id":"c2"}}`,
		`{"timestamp":"2025-10-01T10:00:02.100Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"c2","success":false}}`,
		`{"timestamp":"2025-10-01T10:00:02.200Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":"verification failed"}}`,
		`{"timestamp":"2025-10-01T10:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"true\"]}","call_id":"c3"}}`,
		`{"timestamp":"2025-10-01T10:00:03.100Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c3","exit_code":0}}`,
		`{"timestamp":"2025-10-01T10:00:03.200Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":"ok"}}`,
	}, "\n") + "\n"
	out := string(adaptertest.Convert(t, Format(), bytes.NewReader([]byte(in))))
	assert.Contains(t, out, `"tool_id":"c1","name":"bash","status":"error","error":"[exit code 1]\nboom"`)
	assert.Contains(t, out, `"tool_id":"c2","name":"edit","status":"error","error":"[failed]\nverification failed"`)
	assert.Contains(t, out, `"tool_id":"c3","name":"bash","status":"success","result":"ok"`)
}

// The type rule: a success flag of the wrong JSON type ("true" as a
// string, 1) is no success, in a patch's event as in a call's output
// object; null holds no verdict.
func TestSuccessFlagOfAnotherType(t *testing.T) {
	in := strings.Join([]string{
		`{"timestamp":"2025-10-01T10:00:00.000Z","type":"session_meta","payload":{"id":"x","cwd":"/w"}}`,
		`{"timestamp":"2025-10-01T10:00:00.001Z","type":"event_msg","payload":{"type":"user_message","message":"go"}}`,
		`{"timestamp":"2025-10-01T10:00:01.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** End Patch\n","call_id":"c1"}}`,
		`{"timestamp":"2025-10-01T10:00:01.100Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"c1","success":"true"}}`,
		`{"timestamp":"2025-10-01T10:00:01.200Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1","output":"done"}}`,
		`{"timestamp":"2025-10-01T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__x__y","arguments":"{}","call_id":"c2"}}`,
		`{"timestamp":"2025-10-01T10:00:02.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":{"content":"r","success":1}}}`,
		`{"timestamp":"2025-10-01T10:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__x__y","arguments":"{}","call_id":"c3"}}`,
		`{"timestamp":"2025-10-01T10:00:03.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":{"content":"r","success":null}}}`,
	}, "\n") + "\n"
	out := string(adaptertest.Convert(t, Format(), bytes.NewReader([]byte(in))))
	assert.Regexp(t, `"tool_id":"c1","name":"edit","status":"error"`, out)
	assert.Regexp(t, `"tool_id":"c2","name":"[^"]*","status":"error"`, out)
	assert.Regexp(t, `"tool_id":"c3","name":"[^"]*","status":"success"`, out)
}

// TestOutputImages: an output's image given as a base64 data: URL is
// carried after the output's text (the writer's Markdown image); one given
// by any other URL stays a placeholder, never fetched.
func TestOutputImages(t *testing.T) {
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAAEElEQVR4nGL6z8AACAAA//8DCQECWLbVUAAAAABJRU5ErkJggg==" // 1×1, 73 bytes
	in := strings.Join([]string{
		`{"timestamp":"2025-10-01T10:00:00.000Z","type":"session_meta","payload":{"id":"x","cwd":"/w"}}`,
		`{"timestamp":"2025-10-01T10:00:00.001Z","type":"event_msg","payload":{"type":"user_message","message":"look"}}`,
		`{"timestamp":"2025-10-01T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"view_image","arguments":"{\"path\":\"dot.png\"}","call_id":"c1"}}`,
		`{"timestamp":"2025-10-01T10:00:01.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":[{"type":"input_image","image_url":"data:image/png;base64,` + png + `"},{"type":"input_text","text":"dot.png"}]}}`,
		`{"timestamp":"2025-10-01T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"view_image","arguments":"{\"path\":\"far.png\"}","call_id":"c2"}}`,
		`{"timestamp":"2025-10-01T10:00:02.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":[{"type":"input_image","image_url":"https://example.com/far.png"}]}}`,
	}, "\n") + "\n"
	out := adaptertest.Convert(t, Format(), bytes.NewReader([]byte(in)))
	adaptertest.RequireValid(t, out)
	var results []string
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var e struct{ Type, Status, Result string }
		require.NoError(t, json.Unmarshal(line, &e))
		if e.Type == "tool" && e.Status == "success" {
			results = append(results, e.Result)
		}
	}
	assert.Equal(t, []string{"dot.png\n\n![image/png 73 bytes](data:image/png;base64," + png + ")", "[image]"}, results)
}

// TestToolSearch: Codex's tool discovery (0.148 on) is a tool_search_call
// and a tool_search_output with the same call_id; the output carries the
// tools found (no "output" text), and is the call's result, so the call
// does not read as cut off when its turn ends.
func TestToolSearch(t *testing.T) {
	in := strings.Join([]string{
		`{"timestamp":"2026-09-03T10:00:00.000Z","type":"session_meta","payload":{"id":"x","cwd":"/w","cli_version":"0.150.1"}}`,
		`{"timestamp":"2026-09-03T10:00:00.100Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}`,
		`{"timestamp":"2026-09-03T10:00:00.200Z","type":"event_msg","payload":{"type":"user_message","message":"open the page"}}`,
		`{"timestamp":"2026-09-03T10:00:01.000Z","type":"response_item","payload":{"type":"tool_search_call","call_id":"s1","status":"completed","execution":"client","arguments":{"query":"browser","limit":8}}}`,
		`{"timestamp":"2026-09-03T10:00:01.100Z","type":"response_item","payload":{"type":"tool_search_output","call_id":"s1","status":"completed","execution":"client","tools":[{"type":"namespace","name":"mcp__browser","tools":[{"type":"function","name":"open"}]}]}}`,
		`{"timestamp":"2026-09-03T10:00:02.000Z","type":"response_item","payload":{"type":"tool_search_call","call_id":"s2","status":"completed","execution":"client","arguments":{"query":"printer"}}}`,
		`{"timestamp":"2026-09-03T10:00:02.100Z","type":"response_item","payload":{"type":"tool_search_output","call_id":"s2","status":"failed","execution":"client","error":"search backend unavailable"}}`,
		`{"timestamp":"2026-09-03T10:00:02.200Z","type":"response_item","payload":{"type":"tool_search_call","call_id":"s3","arguments":{"query":"mail"}}}`,
		`{"timestamp":"2026-09-03T10:00:02.300Z","type":"response_item","payload":{"type":"tool_search_output","call_id":"s3","output":"1 match"}}`,
		`{"timestamp":"2026-09-03T10:00:03.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Opened."}]}}`,
		`{"timestamp":"2026-09-03T10:00:03.100Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t1"}}`,
	}, "\n") + "\n"
	out := adaptertest.Convert(t, Format(), bytes.NewReader([]byte(in)))
	adaptertest.RequireValid(t, out)
	s := string(out)
	assert.Contains(t, s, `"tool_id":"s1","name":"tool_search","status":"running","args":{"query":"browser","limit":8}`)
	assert.Contains(t, s, `"tool_id":"s1","name":"tool_search","status":"success","result":"[{\"type\":\"namespace\",\"name\":\"mcp__browser\",\"tools\":[{\"type\":\"function\",\"name\":\"open\"}]}]"`)
	assert.Contains(t, s, `"tool_id":"s2","name":"tool_search","status":"error","error":"search backend unavailable"`)
	assert.Contains(t, s, `"tool_id":"s3","name":"tool_search","status":"success","result":"1 match"`)
	assert.NotContains(t, s, "before the tool call returned")
	assert.Contains(t, s, `"type":"complete","status":"success"`)
}
