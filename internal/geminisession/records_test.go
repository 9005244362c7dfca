package geminisession_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/geminisession"
)

// Records of a chat file, shaped as Gemini CLI writes them (see
// testdata/gemini-session): the header, then one record a line.
const (
	header = `{"sessionId":"s1","projectHash":"p","startTime":"2026-03-01T10:00:00.000Z","lastUpdated":"2026-03-01T10:00:00.000Z","kind":"main"}`
	ask    = `{"id":"u1","timestamp":"2026-03-01T10:00:01.000Z","type":"user","content":[{"text":"list it"}]}`
)

// chat converts records, one event each, as the command converts a chat.
func chat(t *testing.T, records ...string) adaptertest.Dialog {
	t.Helper()
	return adaptertest.Lines(t, geminisession.Format(), records...)
}

// An error record is a warning with its text, and the chat's ending when
// it is last; a warning record with no text still says there was one.
func TestErrorAndWarningRecords(t *testing.T) {
	d := chat(t, header, ask,
		`{"id":"w1","timestamp":"2026-03-01T10:00:01.500Z","type":"warning","content":""}`,
		`{"id":"e1","timestamp":"2026-03-01T10:00:02.000Z","type":"error","content":"[API Error: quota]"}`,
		`{"id":"e1","timestamp":"2026-03-01T10:00:02.000Z","type":"error","content":"[API Error: quota]"}`,
	)
	assert.Equal(t, []string{dialog.WarningPrefix + "error", dialog.WarningPrefix + "[API Error: quota]"}, d.Warnings(), "each record once")
	assert.Equal(t, "error", d.Complete.Str("status"))
	assert.Equal(t, "[API Error: quota]", d.Complete.Str("message"))
	assert.EqualValues(t, 2, d.Complete.Num("warnings"))

	// An answer after the error is where the chat stands.
	d = chat(t, header, ask,
		`{"id":"e1","timestamp":"2026-03-01T10:00:02.000Z","type":"error","content":[{"text":"[API Error: 500]"}]}`,
		`{"id":"g1","timestamp":"2026-03-01T10:00:03.000Z","type":"gemini","content":"Done.","model":"gemini-2.5-pro"}`,
	)
	assert.Equal(t, []string{dialog.WarningPrefix + "[API Error: 500]"}, d.Warnings())
	assert.Equal(t, []string{"Done."}, d.Messages())
	assert.Equal(t, "success", d.Complete.Str("status"))
}

// info and system records are the CLI's own notes: notices, never dropped.
func TestInfoRecords(t *testing.T) {
	d := chat(t, header, ask,
		`{"id":"i1","timestamp":"2026-03-01T10:00:02.000Z","type":"info","content":"Switched to fallback model."}`,
		`{"id":"i2","timestamp":"2026-03-01T10:00:02.000Z","type":"system","content":""}`,
		`{"id":"x1","timestamp":"2026-03-01T10:00:02.000Z","type":"telemetry","content":"?"}`,
	)
	assert.Equal(t, []string{dialog.WarningPrefix + "Switched to fallback model.", dialog.WarningPrefix + "system message with no text"}, d.Warnings())
	assert.Equal(t, []string{"error", "incomplete"}, []string{d.Complete.Str("status"), d.Complete.Str("reason")}, "the last message is no answer")
}

// A model message written again as it grows gives what was added; one
// rewritten otherwise keeps its first text.
func TestModelTextGrows(t *testing.T) {
	d := chat(t, header, ask,
		`{"id":"g1","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"Hel","model":"gemini-2.5-pro"}`,
		`{"id":"g1","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"Hello\nthere","model":"gemini-2.5-pro"}`,
		`{"id":"g1","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"Bye","model":"gemini-2.5-pro","tokens":{"input":10,"output":2,"cached":4,"thoughts":1,"tool":3}}`,
	)
	assert.Equal(t, []string{"Hel", "lo\nthere"}, d.Messages())
	assert.Equal(t, map[string]int64{"in": 13, "out": 3, "cache_read": 4, "reasoning": 1}, d.Tokens(),
		"in = input + tool, out = output + thoughts")
	assert.EqualValues(t, 1, d.Complete.Num("turns"))
}

// The results a user message sends back to the model end the calls whose
// own record gave none: output or error as the response says; a shell
// call whose output states an exit code other than 0 failed.
func TestFunctionResponsesEndOpenCalls(t *testing.T) {
	d := chat(t, header, ask,
		`{"id":"g1","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"","model":"gemini-2.5-pro","toolCalls":[`+
			`{"id":"c1","name":"read_file","args":{"path":"a"},"status":"executing"},`+
			`{"id":"c2","name":"run_shell_command","args":{"command":"false"},"status":"executing"},`+
			`{"id":"c3","name":"read_file","args":{"path":"b"},"status":"executing"}]}`,
		`{"id":"u2","timestamp":"2026-03-01T10:00:03.000Z","type":"user","content":[`+
			`{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"aaa"}}},`+
			`{"functionResponse":{"id":"c2","name":"run_shell_command","response":{"output":"Command: false\nExit Code: 1"}}},`+
			`{"functionResponse":{"id":"c3","name":"read_file","response":{"error":"no such file"}}},`+
			`{"functionResponse":{"id":"c9","name":"read_file","response":{"output":"a call never started"}}}]}`,
		`{"id":"g2","timestamp":"2026-03-01T10:00:04.000Z","type":"gemini","content":"Read.","model":"gemini-2.5-pro"}`,
	)
	require.Len(t, d.Starts(), 3)
	res := d.Results()
	require.Len(t, res, 3, "c9 was never started: no result for it")
	assert.Equal(t, []any{"c1", "success", "aaa"}, []any{res[0].Str("tool_id"), res[0].Str("status"), res[0].Text()})
	assert.Equal(t, []any{"c2", "error", "[exit code 1]\nCommand: false\nExit Code: 1"}, []any{res[1].Str("tool_id"), res[1].Str("status"), res[1].Text()})
	assert.Equal(t, []any{"c3", "error", "no such file"}, []any{res[2].Str("tool_id"), res[2].Str("status"), res[2].Text()})
	assert.Equal(t, []string{"list it"}, promptsOf(d), "a user message of responses is no prompt")
	assert.Equal(t, "success", d.Complete.Str("status"))
}

// A call's record without a status is ended by its result: an error when
// a function response carries one.
func TestCallWithoutStatus(t *testing.T) {
	d := chat(t, header, ask,
		`{"id":"g1","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"","model":"gemini-2.5-pro","toolCalls":[`+
			`{"id":"c1","name":"read_file","args":{},"result":[{"functionResponse":{"id":"c1","name":"read_file","response":{"error":"denied"}}}]},`+
			`{"id":"c2","name":"read_file","args":{},"result":[{"functionResponse":{"id":"c2","name":"read_file","response":{"error":null,"output":"ok"}}}]},`+
			`{"id":"c3","name":"read_file","args":{},"result":[{"text":"only a text part"}],"resultDisplay":"shown"}]}`,
	)
	res := d.Results()
	require.Len(t, res, 3)
	assert.Equal(t, []any{"error", "denied"}, []any{res[0].Str("status"), res[0].Text()})
	assert.Equal(t, []any{"success", "ok"}, []any{res[1].Str("status"), res[1].Text()})
	assert.Equal(t, []any{"success", "only a text part"}, []any{res[2].Str("status"), res[2].Text()})
}

// A "$set" of the conversation writes no text, takes results of open calls
// from it, and its last message is where the chat stands.
func TestRestatedConversation(t *testing.T) {
	d := chat(t, header, ask,
		`{"id":"g1","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"Reading.","model":"gemini-2.5-pro","toolCalls":[{"id":"c1","name":"read_file","args":{},"status":"executing"}]}`,
		`{"$set":{"messages":[`+
			`{"id":"u1","type":"user","content":[{"text":"list it"}]},`+
			`{"id":"g1","type":"gemini","content":"Reading.","toolCalls":[{"id":"c1","name":"read_file","status":"success","result":[{"functionResponse":{"id":"c1","response":{"output":"x"}}}]}]},`+
			`{"id":"u2","type":"user","content":[{"functionResponse":{"id":"c1","response":{"output":"x again"}}}]},`+
			`{"id":"s1","type":"user","content":[{"text":"A summary the client made."}]},`+
			`{"id":"g9","type":"gemini","content":"Summarised."}]}}`,
		`{"id":"g9","timestamp":"2026-03-01T10:00:05.000Z","type":"gemini","content":"Summarised.","model":"gemini-2.5-pro"}`,
	)
	assert.Equal(t, []string{"Reading."}, d.Messages(), "restated text is not said again")
	res := d.Results()
	require.Len(t, res, 1, "c1 ends once")
	assert.Equal(t, "x", res[0].Text())
	assert.Equal(t, []string{"list it"}, promptsOf(d))
	assert.Equal(t, "success", d.Complete.Str("status"), "the restated conversation ends on an answer")
}

// The cwd comes from the first workspace directory a "$set" names, and
// the rewind of a conversation is told.
func TestDirectoriesAndRewind(t *testing.T) {
	d := chat(t, header,
		`{"$set":{"directories":["/home/u/proj","/tmp"]}}`,
		ask,
		`{"id":"g1","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"Hi.","model":"gemini-2.5-pro"}`,
		`{"$rewindTo":"u1"}`,
	)
	init := d.Of("init")
	require.Len(t, init, 1)
	assert.Equal(t, "/home/u/proj", init[0]["data"].(map[string]any)["cwd"])
	assert.Equal(t, []string{dialog.WarningPrefix + "the conversation was rewound: the messages after this point replace the ones above"}, d.Warnings())
	assert.Equal(t, []string{"error", "incomplete"}, []string{d.Complete.Str("status"), d.Complete.Str("reason")}, "rewound: no answer stands")
}

// A user text Gemini CLI adds itself is not a prompt, however it is
// indented.
func TestInjectedUserText(t *testing.T) {
	d := chat(t, header,
		`{"id":"u0","timestamp":"2026-03-01T10:00:00.500Z","type":"user","content":" \n\t<hook_context>ran a hook</hook_context>"}`,
		`{"id":"u0","timestamp":"2026-03-01T10:00:00.500Z","type":"user","content":" \n\t<hook_context>ran a hook</hook_context>"}`,
		ask,
	)
	assert.Equal(t, []string{"list it"}, promptsOf(d))
}

// promptsOf lists the prompts' contents.
func promptsOf(d adaptertest.Dialog) []string {
	var out []string
	for _, e := range d.Of("prompt") {
		out = append(out, e.Str("content"))
	}
	return out
}

// Gemini CLI 0.39 on writes an info message before the first prompt when a
// command prepares the chat (`/init`: "Empty GEMINI.md created…"). The
// prompt that follows is the user's first turn all the same, written after
// the notice, not dropped as a prompt known already; so is one that
// follows a model message, as in a chat that starts with the model.
func TestPromptAfterEarlierEntry(t *testing.T) {
	d := chat(t, header,
		`{"id":"i1","timestamp":"2026-03-01T10:00:00.500Z","type":"info","content":"Empty GEMINI.md created."}`,
		`{"id":"u1","timestamp":"2026-03-01T10:00:01.000Z","type":"user","content":[{"text":"write GEMINI.md"}],"displayContent":[{"text":"/init"}]}`,
		`{"id":"g1","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"Written.","model":"gemini-3-flash-preview"}`,
	)
	var kinds []string
	for _, e := range d.Entries {
		kinds = append(kinds, e.Str("type")+":"+e.Str("content"))
	}
	assert.Equal(t, []string{"init:", "message:" + dialog.WarningPrefix + "Empty GEMINI.md created.", "prompt:write GEMINI.md", "message:Written.", "complete:"}, kinds)

	d = chat(t, header,
		`{"id":"g0","timestamp":"2026-03-01T10:00:00.500Z","type":"gemini","content":"Welcome back.","model":"gemini-2.5-pro"}`,
		ask,
		`{"id":"g1","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"Listed.","model":"gemini-2.5-pro"}`,
	)
	assert.Len(t, d.Of("prompt"), 1, "the prompt after the model's first message")
}

// Esc in Gemini CLI aborts the request and writes the info message
// "Request cancelled.": when nothing follows it, the user stopped the
// chat (error, reason interrupted), not an input cut short. A later turn
// goes on from it.
func TestRequestCancelled(t *testing.T) {
	call := `{"id":"g1","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"","model":"gemini-3-flash-preview","toolCalls":[` +
		`{"id":"c1","name":"read_file","args":{"file_path":"a.txt"},"status":"success","timestamp":"2026-03-01T10:00:02.100Z","result":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"alpha"}}}]}]}`
	cancelled := `{"id":"i1","timestamp":"2026-03-01T10:00:09.000Z","type":"info","content":"Request cancelled."}`
	d := chat(t, header, ask, call, cancelled)
	assert.Equal(t, []string{dialog.WarningPrefix + "Request cancelled."}, d.Warnings())
	assert.Equal(t, []string{"error", "interrupted", "Request cancelled."},
		[]string{d.Complete.Str("status"), d.Complete.Str("reason"), d.Complete.Str("message")})

	d = chat(t, header, ask, call, cancelled,
		`{"id":"u2","timestamp":"2026-03-01T10:01:00.000Z","type":"user","content":[{"text":"go on"}]}`,
		`{"id":"g2","timestamp":"2026-03-01T10:01:01.000Z","type":"gemini","content":"Done.","model":"gemini-3-flash-preview"}`,
	)
	assert.Equal(t, "success", d.Complete.Str("status"), "the chat went on after the cancel")
}

// When a response stops short, Gemini CLI sends the model the text
// "System: Please continue." as a user message of its own: a notice that
// it did, not a prompt of the user's.
func TestPleaseContinue(t *testing.T) {
	d := chat(t, header, ask,
		`{"id":"g1","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"Half","model":"gemini-3-flash-preview"}`,
		`{"id":"u2","timestamp":"2026-03-01T10:00:03.000Z","type":"user","content":[{"text":"System: Please continue."}],"displayContent":[{"functionResponse":{"id":"c0","name":"update_topic","response":{"output":"ok"}}}]}`,
		`{"id":"g2","timestamp":"2026-03-01T10:00:04.000Z","type":"gemini","content":"The rest.","model":"gemini-3-flash-preview"}`,
	)
	require.Len(t, d.Of("prompt"), 1, "only the user's own prompt")
	assert.Equal(t, "list it", d.Of("prompt")[0].Str("content"))
	assert.Equal(t, []string{dialog.WarningPrefix + "Gemini CLI asked the model to go on (System: Please continue.)"}, d.Warnings())
	assert.Equal(t, "success", d.Complete.Str("status"))
}

// read_file on an image: Gemini CLI records the picture it sent the model
// in the call's result, beside the functionResponse (Gemini 2 models) or
// in its parts (Gemini 3). The picture is the result's, after its text;
// a file sent by reference is named.
func TestResultImages(t *testing.T) {
	const png = "iVBORw0KGgoAAAANSUhEUg==" // a PNG's first 16 bytes
	call := func(id, result string) string {
		return `{"id":"g` + id + `","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"","model":"gemini-3-pro-preview","toolCalls":[` +
			`{"id":"` + id + `","name":"read_file","args":{"file_path":"shot.png"},"status":"success","timestamp":"2026-03-01T10:00:02.100Z","result":` + result + `}]}`
	}
	d := chat(t, header, ask,
		call("c2", `[{"functionResponse":{"id":"c2","name":"read_file","response":{"output":"Binary content provided (1 item(s))."}}},{"inlineData":{"mimeType":"image/png","data":"`+png+`"}}]`),
		call("c3", `[{"functionResponse":{"id":"c3","name":"read_file","response":{"output":"Binary content provided (1 item(s))."},"parts":[{"inlineData":{"mimeType":"image/png","data":"`+png+`"}}]}}]`),
		call("c4", `[{"functionResponse":{"id":"c4","name":"read_file","response":{"output":"Binary content provided (1 item(s))."}}},{"fileData":{"mimeType":"application/pdf","fileUri":"gs://bucket/a.pdf"}}]`),
		call("c5", `[{"functionResponse":{"id":"c5","name":"read_file","response":{"output":"Binary content provided (1 item(s))."}}},{"fileData":{"fileUri":"gs://bucket/b"}},{"fileData":{"mimeType":"application/pdf"}}]`),
	)
	want := "Binary content provided (1 item(s)).\n\n![image/png 16 bytes](data:image/png;base64," + png + ")"
	res := d.Results()
	require.Len(t, res, 4)
	assert.Equal(t, want, res[0].Str("result"), "a sibling part (Gemini 2)")
	assert.Equal(t, want, res[1].Str("result"), "the functionResponse's parts (Gemini 3)")
	assert.Equal(t, "Binary content provided (1 item(s)).\n[file application/pdf gs://bucket/a.pdf]", res[2].Str("result"))
	assert.Equal(t, "Binary content provided (1 item(s)).\n[file of unknown type gs://bucket/b]\n[file application/pdf, URI unknown]", res[3].Str("result"), "what a part does not give is said unknown")
}

// A picture the user attached (@shot.png) is a part of the user message
// Gemini CLI records ("all parts (text, files, images, etc.)"): it is the
// prompt's, after its text, also when the prompt waits for the model.
func TestPromptImages(t *testing.T) {
	const png = "iVBORw0KGgoAAAANSUhEUg=="
	d := chat(t, header,
		`{"id":"u1","timestamp":"2026-03-01T10:00:01.000Z","type":"user","content":[{"text":"what is in this picture?"},{"inlineData":{"mimeType":"image/png","data":"`+png+`"}}],"displayContent":[{"text":"what is in this picture? @shot.png"}]}`,
		`{"id":"g1","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"A square.","model":"gemini-3-pro-preview"}`,
		`{"id":"u2","timestamp":"2026-03-01T10:00:03.000Z","type":"user","content":[{"inlineData":{"mimeType":"image/png","data":"`+png+`"}}]}`,
		`{"id":"g2","timestamp":"2026-03-01T10:00:04.000Z","type":"gemini","content":"The same square.","model":"gemini-3-pro-preview"}`,
	)
	img := "![image/png 16 bytes](data:image/png;base64," + png + ")"
	prompts := d.Of("prompt")
	require.Len(t, prompts, 2)
	assert.Equal(t, "what is in this picture?\n\n"+img, prompts[0].Str("content"), "held for the model, then written with its picture")
	assert.Equal(t, img, prompts[1].Str("content"), "a picture alone is a prompt")

	// A tool's picture sent back beside its functionResponse (Gemini 2) is
	// no prompt of the user's.
	d = chat(t, header, ask,
		`{"id":"g1","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"","model":"gemini-2.5-pro","toolCalls":[{"id":"c1","name":"read_file","args":{"file_path":"shot.png"},"status":"executing"}]}`,
		`{"id":"u2","timestamp":"2026-03-01T10:00:03.000Z","type":"user","content":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"Binary content provided (1 item(s))."}}},{"inlineData":{"mimeType":"image/png","data":"`+png+`"}}]}`,
	)
	assert.Len(t, d.Of("prompt"), 1, "only the user's own prompt")
}

// A call whose own record gives no result ends with the function response
// of the user message that sent it back to the model: the media beside
// that response (Gemini 2) or in its parts (Gemini 3) are the result's
// there too, not lost with the user message, which is no prompt.
func TestResponseImages(t *testing.T) {
	const png = "iVBORw0KGgoAAAANSUhEUg=="
	running := func(id string) string {
		return `{"id":"g` + id + `","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"","model":"gemini-2.5-pro","toolCalls":[{"id":"` + id + `","name":"read_file","args":{"file_path":"shot.png"},"status":"executing"}]}`
	}
	response := func(id, parts string) string {
		return `{"functionResponse":{"id":"` + id + `","name":"read_file","response":{"output":"Binary content provided (1 item(s))."}` + parts + `}}`
	}
	inline := `{"inlineData":{"mimeType":"image/png","data":"` + png + `"}}`
	d := chat(t, header, ask,
		running("c1"),
		`{"id":"u2","timestamp":"2026-03-01T10:00:03.000Z","type":"user","content":[`+response("c1", "")+`,`+inline+`]}`,
		running("c2"),
		`{"id":"u3","timestamp":"2026-03-01T10:00:04.000Z","type":"user","content":[`+response("c2", `,"parts":[`+inline+`]`)+`]}`,
		running("c3"),
		running("c4"),
		`{"id":"u4","timestamp":"2026-03-01T10:00:05.000Z","type":"user","content":[`+response("c3", "")+`,`+inline+`,`+response("c4", "")+`]}`,
	)
	img := "![image/png 16 bytes](data:image/png;base64," + png + ")"
	res := d.Results()
	require.Len(t, res, 4)
	assert.Equal(t, "Binary content provided (1 item(s)).\n\n"+img, res[0].Str("result"), "a sibling part (Gemini 2)")
	assert.Equal(t, "Binary content provided (1 item(s)).\n\n"+img, res[1].Str("result"), "the functionResponse's parts (Gemini 3)")
	assert.Equal(t, "Binary content provided (1 item(s)).\n\n"+img, res[2].Str("result"), "the part after a response is that response's")
	assert.Equal(t, "Binary content provided (1 item(s)).", res[3].Str("result"))
	assert.Len(t, d.Of("prompt"), 1, "only the user's own prompt")
}
