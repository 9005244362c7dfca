package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
)

// conversationKinds are, per corpus folder, the record kinds that carry
// the conversation (user or assistant text, a tool call or its result,
// thinking), in the format's own names as dispatch.Accounting counts them
// (type, then a finer type after a slash). A name matches that kind and
// every finer one ("item.completed" matches "item.completed/reasoning").
// They come from the format references (/work/shared/formats), not from
// the adapters.
var conversationKinds = map[string][]string{
	"claude":         {"assistant", "user", "stream_event/content_block_start", "stream_event/content_block_delta"},
	"claude-session": {"assistant", "user", "progress"},
	"codex": {
		"item.started", "item.updated", "item.completed",
		// legacy {"id","msg"} events
		"agent_message", "agent_message_delta", "agent_reasoning", "agent_reasoning_delta",
		"exec_command_begin", "exec_command_end", "exec_command_output_delta", "patch_apply_begin",
		"patch_apply_end", "mcp_tool_call_begin", "mcp_tool_call_end", "web_search_begin",
		"web_search_end", "plan_update",
	},
	"codex-rollout": {
		"response_item", "event_msg/user_message", "event_msg/agent_message", "event_msg/agent_reasoning",
		// bare response items of the rollouts of mid-2025
		"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
		"custom_tool_call_output", "local_shell_call", "web_search_call",
	},
	"opencode":       {"text", "reasoning", "tool_use", "message.part.updated"},
	"gemini":         {"message", "tool_use", "tool_result"},
	"cursor":         {"user", "assistant", "thinking", "tool_call"},
	"gemini-session": {"user", "gemini"},
	// An ATIF trajectory is one document with no type of its own: the
	// whole conversation is one record.
	"atif": {dispatch.KindNone},
}

func carriesConversation(folder, kind string) bool {
	for _, k := range conversationKinds[folder] {
		if kind == k || strings.HasPrefix(kind, k+"/") {
			return true
		}
	}
	return false
}

// TestCorpusAccounting converts every capture of every corpus folder (as
// TestDetectionIsExclusive does: each file alone, the format detected)
// and fails when a record of a kind that carries the conversation was
// dropped under no reason (it wrote no entry, was not held for a later
// one and named no reason), or when an input with such records gives a
// dialog with no entry of the conversation and names no reason for it.
// Every record is read once: read = converted + skipped. Records of such
// kinds skipped under a reason are allowed, and listed (-v).
func TestCorpusAccounting(t *testing.T) {
	for _, folder := range adaptertest.CorpusFolders(t, corpusDir) {
		if formatsToCome[folder] {
			t.Logf("corpus folder %s: its format is still to come: not accounted", folder)
			continue
		}
		require.Contains(t, conversationKinds, folder, "corpus folder %s: which of its kinds carry the conversation?", folder)
		t.Run(folder, func(t *testing.T) {
			skipped := map[dispatch.Skip]int{}
			files := captures(t, filepath.Join(corpusDir, folder))
			require.NotEmpty(t, files)
			for _, file := range files {
				rel, _ := filepath.Rel(filepath.Join(corpusDir, folder), file)
				t.Run(rel, func(t *testing.T) {
					acc, out := convertCapture(t, file)
					checkAccounting(t, folder, acc, out)
					for s, n := range acc.Reasons {
						if carriesConversation(folder, s.Kind) || s.Kind == dispatch.KindNone {
							skipped[s] += n
						}
					}
				})
			}
			var lines []string
			for _, s := range slices.SortedFunc(func(yield func(dispatch.Skip) bool) {
				for s := range skipped {
					if !yield(s) {
						return
					}
				}
			}, func(a, b dispatch.Skip) int { return strings.Compare(a.Kind+"\x00"+a.Reason, b.Kind+"\x00"+b.Reason) }) {
				part := ""
				if s.Part {
					part = " (part of a record)"
				}
				lines = append(lines, fmt.Sprintf("  %s: %s%s: %d", s.Kind, s.Reason, part, skipped[s]))
			}
			if len(lines) > 0 {
				t.Logf("records that carry the conversation, skipped under a reason:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}

func convertCapture(t *testing.T, file string) (dispatch.Accounting, []byte) {
	t.Helper()
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	var out bytes.Buffer
	c := dispatch.New(&out, dialog.Options{Saved: true}, dispatch.Options{Formats: All(), CountKinds: true})
	require.NoError(t, c.Feed(bytes.NewReader(raw), file))
	require.NoError(t, c.Close(nil))
	return c.Accounting(), out.Bytes()
}

func checkAccounting(t *testing.T, folder string, acc dispatch.Accounting, out []byte) {
	t.Helper()
	require.Equal(t, acc.Read, acc.Converted+acc.Skipped, "every record converted or skipped, once")
	talking, skippedTalk := 0, 0
	for kind, n := range acc.Kinds {
		require.Equal(t, n.Read, n.Converted+n.Skipped, "kind %s: every record converted or skipped, once", kind)
		if !carriesConversation(folder, kind) {
			continue
		}
		talking += n.Read
		skippedTalk += n.Skipped
		if n.Quiet > 0 {
			t.Errorf("kind %s: %d of %d records dropped under no reason (no entry, not held, no Skip)", kind, n.Quiet, n.Read)
		}
	}
	wholeSkips := 0
	for s, n := range acc.Reasons {
		if !s.Part {
			wholeSkips += n
		}
	}
	if entries := conversationEntries(t, out); entries == 0 && (talking > 0 || wholeSkips > 0) {
		if skippedTalk+wholeSkips == 0 {
			t.Errorf("%d records carry the conversation, the dialog has none of it, and no reason is named", talking)
		} else {
			t.Logf("the dialog has no entry of the conversation: %d records skipped under a reason", skippedTalk+wholeSkips)
		}
	}
}

// conversationEntries counts the dialog's prompt, message, thinking and
// tool entries.
func conversationEntries(t *testing.T, out []byte) int {
	n := 0
	for line := range bytes.Lines(out) {
		var e struct{ Type string }
		require.NoError(t, json.Unmarshal(line, &e))
		switch e.Type {
		case "prompt", "message", "thinking", "tool":
			n++
		}
	}
	return n
}
