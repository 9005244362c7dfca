package claude

import "testing"

// FuzzClaude feeds arbitrary lines after a real init: the adapter must not
// panic and the dialog must stay valid whatever the lines hold.
func FuzzClaude(f *testing.F) {
	for _, s := range []string{okResult, asst("m", "", text("a")), asst("m", "p", toolUse("t", "Bash", `{"a":1}`)),
		toolResult("", `{"tool_use_id":"t","type":"tool_result","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"QUJD"}}]}`),
		`{"type":"stream_event","event":{"type":"message_delta","usage":{"output_tokens":4}}}`,
		`{"type":"user","message":{"content":"x"},"isReplay":true}`} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		out, _ := runPipeline(t, initLine+"\n"+a+"\n"+b+"\n")
		requireValid(t, out)
	})
}
