package codexrollout_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/codexrollout"
)

// TestEndingNoticeTime: an aborted turn's notice is written when the next
// turn starts (only then is the abort not the dialog's ending), after what
// the aborted turn wrote and before the next prompt, with the time of the
// turn_aborted line, not the next prompt's. Codex 0.60 writes no task
// events (the next prompt starts the turn); later versions do
// (task_started starts it). A failed turn's notice is the same.
func TestEndingNoticeTime(t *testing.T) {
	rollout060 := strings.Split(strings.TrimSpace(string(fixture(t, "abort-then-next-turn"))), "\n")
	withTasks := []string{
		`{"timestamp":"2026-09-03T10:00:00.000Z","type":"session_meta","payload":{"id":"x","cwd":"/w","cli_version":"0.150.1"}}`,
		`{"timestamp":"2026-09-03T10:00:00.100Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}`,
		`{"timestamp":"2026-09-03T10:00:00.200Z","type":"event_msg","payload":{"type":"user_message","message":"run the tests"}}`,
		`{"timestamp":"2026-09-03T10:00:00.300Z","type":"turn_context","payload":{"model":"gpt-5"}}`,
		`{"timestamp":"2026-09-03T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"npm\",\"test\"]}","call_id":"c1"}}`,
		`{"timestamp":"2026-09-03T10:00:04.500Z","type":"event_msg","payload":{"type":"turn_aborted","turn_id":"t1","reason":"interrupted"}}`,
		`{"timestamp":"2026-09-03T10:00:30.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t2"}}`,
		`{"timestamp":"2026-09-03T10:00:30.100Z","type":"event_msg","payload":{"type":"user_message","message":"build it"}}`,
		`{"timestamp":"2026-09-03T10:00:31.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"No."}]}}`,
		`{"timestamp":"2026-09-03T10:00:32.000Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t2","error":{"message":"quota exceeded"}}}`,
		`{"timestamp":"2026-09-03T10:01:00.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t3"}}`,
		`{"timestamp":"2026-09-03T10:01:00.100Z","type":"event_msg","payload":{"type":"user_message","message":"try again"}}`,
		`{"timestamp":"2026-09-03T10:01:01.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Built."}]}}`,
		`{"timestamp":"2026-09-03T10:01:02.000Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t3"}}`,
	}
	// Turns held for init (no model named yet) are written before the
	// notice of an ending that came after them, once each.
	heldBeforeAbort := []string{
		`{"timestamp":"2026-09-03T10:00:00.000Z","type":"session_meta","payload":{"id":"x","cwd":"/w"}}`,
		`{"timestamp":"2026-09-03T10:00:00.100Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}`,
		`{"timestamp":"2026-09-03T10:00:00.200Z","type":"event_msg","payload":{"type":"user_message","message":"one"}}`,
		`{"timestamp":"2026-09-03T10:00:04.500Z","type":"event_msg","payload":{"type":"turn_aborted","turn_id":"t1","reason":"interrupted"}}`,
		`{"timestamp":"2026-09-03T10:00:30.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t2"}}`,
		`{"timestamp":"2026-09-03T10:00:30.100Z","type":"event_msg","payload":{"type":"user_message","message":"two"}}`,
		`{"timestamp":"2026-09-03T10:00:31.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"No."}]}}`,
	}
	modelAfterAbort := []string{
		`{"timestamp":"2026-09-03T10:00:00.000Z","type":"session_meta","payload":{"id":"x","cwd":"/w"}}`,
		`{"timestamp":"2026-09-03T10:00:00.200Z","type":"event_msg","payload":{"type":"user_message","message":"one"}}`,
		`{"timestamp":"2026-09-03T10:00:04.500Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`,
		`{"timestamp":"2026-09-03T10:00:20.000Z","type":"event_msg","payload":{"type":"user_message","message":"two"}}`,
		`{"timestamp":"2026-09-03T10:00:30.000Z","type":"turn_context","payload":{"model":"gpt-5"}}`,
		`{"timestamp":"2026-09-03T10:00:31.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"No."}]}}`,
	}
	// Files without user events: the user item is written when the next
	// output comes, with its own time.
	userItems := []string{
		`{"timestamp":"2026-09-03T10:00:00.000Z","type":"session_meta","payload":{"id":"x","cwd":"/w"}}`,
		`{"timestamp":"2026-09-03T10:00:00.200Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"one"}]}}`,
		`{"timestamp":"2026-09-03T10:00:00.300Z","type":"turn_context","payload":{"model":"gpt-5"}}`,
		`{"timestamp":"2026-09-03T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"npm\",\"test\"]}","call_id":"c1"}}`,
		`{"timestamp":"2026-09-03T10:00:04.500Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`,
		`{"timestamp":"2026-09-03T10:00:30.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"two"}]}}`,
		`{"timestamp":"2026-09-03T10:00:30.500Z","type":"turn_context","payload":{"model":"gpt-5"}}`,
		`{"timestamp":"2026-09-03T10:00:31.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"No."}]}}`,
	}
	type notice struct{ text, ts, before, next string }
	cases := []struct {
		name  string
		lines []string
		want  []notice
		// prompts: the time each prompt named must have (its line's)
		prompts map[string]string
	}{
		{"0.60 without task events", rollout060, []notice{
			{"⚠ turn aborted (interrupted)", "2025-11-22T21:04:07.775Z", "tool", "make the pieces move on a cooldown, both sides at once"},
		}, map[string]string{"make the pieces move on a cooldown, both sides at once": "2025-11-22T21:04:31.046Z"}},
		{"task events", withTasks, []notice{
			{"⚠ turn aborted (interrupted)", "2026-09-03T10:00:04.500Z", "tool", "build it"},
			{"⚠ turn failed: quota exceeded", "2026-09-03T10:00:32.000Z", "message", "try again"},
		}, map[string]string{"build it": "2026-09-03T10:00:30.100Z", "try again": "2026-09-03T10:01:00.100Z"}},
		{"held turn before the abort", heldBeforeAbort, []notice{
			{"⚠ turn aborted (interrupted)", "2026-09-03T10:00:04.500Z", "prompt", "two"},
		}, map[string]string{"one": "2026-09-03T10:00:00.200Z", "two": "2026-09-03T10:00:30.100Z"}},
		{"model named after the abort", modelAfterAbort, []notice{
			{"⚠ turn aborted (interrupted)", "2026-09-03T10:00:04.500Z", "prompt", "two"},
		}, map[string]string{"one": "2026-09-03T10:00:00.200Z", "two": "2026-09-03T10:00:20.000Z"}},
		{"user items", userItems, []notice{
			{"⚠ turn aborted (interrupted)", "2026-09-03T10:00:04.500Z", "tool", "two"},
		}, map[string]string{"two": "2026-09-03T10:00:30.000Z"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			es := adaptertest.Lines(t, codexrollout.Format(), c.lines...).Entries
			var got []notice
			for i, e := range es {
				if e.Str("type") == "message" && strings.HasPrefix(e.Str("content"), "⚠") && i+1 < len(es) {
					got = append(got, notice{e.Str("content"), e.Str("ts"), es[i-1].Str("type"), es[i+1].Str("content")})
				}
			}
			assert.Equal(t, c.want, got)
			for _, e := range es {
				if want, ok := c.prompts[e.Str("content")]; ok && e.Str("type") == "prompt" {
					assert.Equal(t, want, e.Str("ts"), "%q has its own line's time", e.Str("content"))
				}
			}
		})
	}
}
