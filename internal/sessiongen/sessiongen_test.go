package sessiongen

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/claude"
	"github.com/ssebench/sse-dialog-convert/internal/codex"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dialogcheck"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	_ "github.com/ssebench/sse-dialog-convert/internal/golden" // registers -update
)

const testSize = 2 << 20

func lines(b []byte) [][]byte { return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) }

// requireJSONLines checks that every line is one valid JSON object.
func requireJSONLines(t *testing.T, b []byte) {
	t.Helper()
	require.True(t, utf8.Valid(b), "not UTF-8")
	require.True(t, bytes.HasSuffix(b, []byte("\n")))
	for i, l := range lines(b) {
		require.True(t, len(l) > 0 && l[0] == '{' && gjson.ValidBytes(l), "line %d is no JSON object: %.200s", i+1, l)
	}
}

func TestDeterministicAndSized(t *testing.T) {
	for _, c := range []struct {
		name string
		gen  func(Options) ([]byte, error)
	}{{"claude", Claude}, {"codex", Codex}} {
		t.Run(c.name, func(t *testing.T) {
			a, err := c.gen(Options{Size: testSize, Seed: 1})
			require.NoError(t, err)
			b, err := c.gen(Options{Size: testSize, Seed: 1})
			require.NoError(t, err)
			other, err := c.gen(Options{Size: testSize, Seed: 2})
			require.NoError(t, err)
			assert.Equal(t, a, b, "the same seed must give the same bytes")
			assert.NotEqual(t, a, other, "another seed must give another session")
			// The last episode may pass the target by at most one episode
			// (a few hundred KiB at the largest sizes drawn).
			assert.GreaterOrEqual(t, len(a), testSize)
			assert.Less(t, len(a), testSize+1<<20)
			requireJSONLines(t, a)
		})
	}
}

// TestClaudeShape checks that a Claude session has what the benchmarks
// rely on: unique calls, answered calls, parallel calls over several lines
// of one message, subagents, thinking, large results with escapes and
// multi-byte characters.
func TestClaudeShape(t *testing.T) {
	b, err := Claude(Options{Size: testSize, Seed: 7})
	require.NoError(t, err)
	ls := lines(b)
	assert.Equal(t, "init", gjson.GetBytes(ls[0+2], "subtype").Str, "hooks then init come first")
	assert.Equal(t, "result", gjson.GetBytes(ls[len(ls)-1], "type").Str)

	calls := map[string]bool{}
	callLines := map[string]int{} // message.id → assistant lines with a call
	var results, subagent, thinking, big, orphans int
	var resultText strings.Builder
	for _, l := range ls {
		switch gjson.GetBytes(l, "type").Str {
		case "assistant":
			if gjson.GetBytes(l, "parent_tool_use_id").Str != "" {
				subagent++
			}
			gjson.GetBytes(l, "message.content").ForEach(func(_, blk gjson.Result) bool {
				switch blk.Get("type").Str {
				case "tool_use", "server_tool_use":
					id := blk.Get("id").Str
					require.False(t, calls[id], "call id %s used twice", id)
					calls[id] = true
					callLines[gjson.GetBytes(l, "message.id").Str]++
				case "web_search_tool_result":
					results++
				case "thinking":
					if blk.Get("thinking").Str != "" {
						thinking++
					}
				}
				return true
			})
		case "user":
			gjson.GetBytes(l, "message.content").ForEach(func(_, blk gjson.Result) bool {
				if blk.Get("type").Str != "tool_result" {
					return true
				}
				results++
				id := blk.Get("tool_use_id").Str
				if !calls[id] {
					require.True(t, strings.HasSuffix(id, "_01Orphan"), "result %s answers no earlier call", id)
					orphans++
				}
				if c := blk.Get("content"); c.Type == gjson.String {
					if len(c.Raw) > 20<<10 {
						big++
					}
					resultText.WriteString(c.Str)
				}
				return true
			})
		}
	}
	split := 0
	for _, n := range callLines {
		if n >= 2 {
			split++
		}
	}
	assert.Greater(t, len(calls), 100)
	assert.GreaterOrEqual(t, results, len(calls), "every call is answered (orphan results come on top)")
	assert.Equal(t, results, len(calls)+orphans)
	assert.Greater(t, split, 5, "parallel calls split over lines of one message.id")
	assert.Greater(t, subagent, 5)
	assert.Greater(t, thinking, 5)
	assert.Greater(t, big, 5, "tool results over 20 KiB")
	text := resultText.String()
	for _, want := range []string{"\n", "\t", `"`, `\`, "\x1b[", "\r", "→", "é"} {
		assert.Contains(t, text, want)
	}
}

// TestCodexShape checks processes, item numbering, usage and outputs.
func TestCodexShape(t *testing.T) {
	b, err := Codex(Options{Size: testSize, Seed: 7})
	require.NoError(t, err)
	procs, big := 0, 0
	var ids map[string]bool
	open := map[string]bool{}
	var lastIn int64
	kinds := map[string]int{}
	var output strings.Builder
	for _, l := range lines(b) {
		switch typ := gjson.GetBytes(l, "type").Str; typ {
		case "thread.started":
			procs++
			require.Empty(t, open, "items left open at the end of a process")
			ids, lastIn = map[string]bool{}, 0
		case "turn.completed":
			in := gjson.GetBytes(l, "usage.input_tokens").Int()
			require.Greater(t, in, lastIn, "usage is a running total per process")
			lastIn = in
			require.Empty(t, open, "items left open at the end of a turn")
		case "item.started", "item.updated", "item.completed":
			id := gjson.GetBytes(l, "item.id").Str
			it := gjson.GetBytes(l, "item.type").Str
			if typ == "item.completed" {
				require.False(t, ids[id] && !open[id], "item id %s reused in one process", id)
				ids[id] = true
				delete(open, id)
				kinds[it]++
			} else {
				if !open[id] {
					require.False(t, ids[id], "item id %s reused in one process", id)
				}
				open[id], ids[id] = true, true
			}
			if out := gjson.GetBytes(l, "item.aggregated_output"); typ == "item.completed" && out.Exists() {
				if len(out.Raw) > 20<<10 {
					big++
				}
				output.WriteString(out.Str)
			}
		}
	}
	assert.Greater(t, procs, 2)
	assert.Greater(t, kinds["command_execution"], 200)
	for _, k := range []string{"reasoning", "agent_message", "todo_list", "file_change", "mcp_tool_call"} {
		assert.Positive(t, kinds[k], k)
	}
	assert.Greater(t, big, 5, "command outputs over 20 KiB")
	for _, want := range []string{"\n", "\t", `"`, "\x1b[", "✓"} {
		assert.Contains(t, output.String(), want)
	}
}

// TestConverts runs generated sessions through the real pipeline: no line
// is reported, every call of the source is in the dialog, and the dialog
// satisfies the contract.
func TestConverts(t *testing.T) {
	cl, err := Claude(Options{Size: testSize, Seed: 3})
	require.NoError(t, err)
	cx, err := Codex(Options{Size: testSize, Seed: 3})
	require.NoError(t, err)
	for _, c := range []struct {
		name  string
		input []byte
		calls int
	}{
		{"claude", cl, bytes.Count(cl, []byte(`"type":"tool_use","id"`)) + bytes.Count(cl, []byte(`"type":"server_tool_use","id"`)) + bytes.Count(cl, []byte(`_01Orphan"`))},
		{"codex", cx, bytes.Count(cx, []byte(`{"type":"item.completed","item":{"id":"item_`)) - bytes.Count(cx, []byte(`"type":"agent_message"`)) - bytes.Count(cx, []byte(`"type":"reasoning"`))},
		{"claude-huge", ClaudeHuge(1<<20, FillLog), 1},
		{"codex-huge", CodexHuge(1<<20, FillPlain), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			conv := dispatch.New(&out, dialog.Options{Clock: dialog.FixedClock{}},
				dispatch.Options{Stderr: &errs, Formats: []adapter.Format{claude.Format(), codex.Format()}})
			require.NoError(t, conv.Feed(bytes.NewReader(c.input), c.name))
			require.NoError(t, conv.Close(nil))
			assert.Empty(t, errs.String())
			assert.Zero(t, conv.Stats().Bad)
			assert.Equal(t, c.calls, bytes.Count(out.Bytes(), []byte(`"status":"running"`)), "tool calls in the dialog")
			var findings []string
			_, err := dialogcheck.Validate(bytes.NewReader(out.Bytes()), func(f dialogcheck.Finding) { findings = append(findings, f.String()) })
			require.NoError(t, err)
			require.Empty(t, findings)
		})
	}
}

func TestHugeSize(t *testing.T) {
	for _, fill := range []Fill{FillPlain, FillLog} {
		for _, c := range []struct {
			name string
			gen  func(int, Fill) []byte
			path string
			line int
		}{
			{"claude", ClaudeHuge, "message.content.0.content", 2},
			{"codex", CodexHuge, "item.aggregated_output", 3},
		} {
			const size = 3<<20 + 17
			b := c.gen(size, fill)
			requireJSONLines(t, b)
			r := gjson.GetBytes(lines(b)[c.line], c.path)
			require.Equal(t, gjson.String, r.Type, c.name)
			assert.InDelta(t, size, len(r.Raw), 4, "%s fill %d: the literal is the size asked for", c.name, fill)
			if fill == FillLog {
				assert.Contains(t, r.Str, "\x1b[")
				assert.Contains(t, r.Str, "\n")
			}
		}
	}
}

// TestLiteral checks the text generator alone: the size asked for, valid
// JSON strings cut on character boundaries, line numbers for Read, and a
// plain copy without them.
func TestLiteral(t *testing.T) {
	g := newTextGen(9)
	var plain []byte
	for _, k := range []kind{kindProse, kindCode, kindLog, kindPaths} {
		for _, n := range []int{2, 3, 10, 100, 1000, 50000} {
			for range 20 {
				b := g.literal(nil, k, n, k == kindCode, &plain)
				require.True(t, gjson.ValidBytes(b) && b[0] == '"', "%q", b)
				require.True(t, utf8.Valid(b))
				assert.GreaterOrEqual(t, len(b), n-6) // an escape or a character that does not fit
				slack := 0
				if k == kindCode {
					slack = len("123456→") // a line number is never cut
				}
				assert.LessOrEqual(t, len(b), max(n, 2)+slack)
				dec := gjson.ParseBytes(b).Str
				if k == kindCode && n >= 1000 {
					assert.True(t, strings.HasPrefix(dec, "     1→"), "%.20q", dec)
					assert.Contains(t, dec, "\n     2→")
					assert.Equal(t, lineNumbers.ReplaceAllString(dec, ""), gjson.ParseBytes(plain).Str)
				}
			}
		}
	}
}

var lineNumbers = regexp.MustCompile(`(?m)^ *[0-9]+→`)
