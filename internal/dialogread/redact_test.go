package dialogread_test

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
)

// A pattern that can match the empty string anywhere is refused; one that
// needs at least a character is taken, anchors and all.
func TestRedactorRefusesEmptyMatches(t *testing.T) {
	for _, p := range []string{``, `a*`, `x?`, `^`, `$`, `\b`, `\B`, `(?:)`, `(a|)`, `a{0,3}`, `(?:a*)+`, `(?m)^$`, `\b(?:x?)\b`, `()|b`} {
		_, err := dialogread.NewRedactor([]string{`sk-\w+`, p})
		require.Error(t, err, "%q", p)
		assert.Contains(t, err.Error(), "empty string")
	}
	for _, p := range []string{`e`, `^/home/[^/]+`, `a+`, `\bkey\b`, `(a|b)c*`, `x{1,3}`, `[^/]`, `(?s).`} {
		_, err := dialogread.NewRedactor([]string{p})
		require.NoError(t, err, "%q", p)
	}
}

// Overlapping matches of different patterns are masked as one, each pattern
// matched against the text as given (masked one after another, the second
// pattern saw the first's mask and left "ghi" bare).
func TestRedactorMasksTheUnionOfMatches(t *testing.T) {
	red, err := dialogread.NewRedactor([]string{`abcdef`, `defghi`, `RED`})
	require.NoError(t, err)
	assert.Equal(t, "x [REDACTED] y [REDACTED]", red.String("x abcdefghi y abcdef"))
	assert.Equal(t, "[REDACTED]", red.String("RED"), "a pattern matching the mask does not mask into it")
	assert.Equal(t, "[REDACTED][REDACTED]", red.String("abcdefdefghi"), "touching matches stay apart, as one pattern's do")
}

// The protocol's own fields are not rewritten whatever the pattern: an
// error stays an error, every entry keeps its kind, times stay times, and
// a result still finds its call by the tool id as written, while the text
// shown of every field that is data is masked.
func TestRedactorKeepsTheProtocol(t *testing.T) {
	in := `{"seq":0,"ts":"2026-01-01T00:00:00Z","type":"init","data":{"task":"t","cwd":"/home/ada","model":"m","agent":"a"}}
{"seq":1,"ts":"2026-01-01T00:00:01Z","type":"message","role":"assistant","content":"hello there"}
{"seq":2,"ts":"2026-01-01T00:00:02Z","type":"tool","tool_id":"toolu_secret","name":"Task","status":"running","args":{"prompt":"see"}}
{"seq":3,"ts":"2026-01-01T00:00:03Z","type":"tool","tool_id":"toolu_inner","name":"Read","status":"running","args":{},"parent_tool_id":"toolu_secret"}
{"seq":4,"ts":"2026-01-01T00:00:04Z","type":"tool","tool_id":"toolu_inner","name":"Read","status":"error","error":"denied","parent_tool_id":"toolu_secret"}
{"seq":5,"ts":"2026-01-01T00:00:05Z","type":"tool","tool_id":"toolu_secret","name":"Task","status":"success","result":"done"}
{"seq":6,"ts":"secret time","type":"weird_event","status":"weird_status"}
{"seq":7,"ts":"2026-01-01T00:00:07Z","type":"complete","status":"error","reason":"api_error","message":"the end","turns":1,"duration_ms":7,"total_tokens":{"in":1,"out":2}}
`
	for _, pattern := range []string{`e`, `error`, `toolu_\w+`, `[a-z]+`} {
		t.Run(pattern, func(t *testing.T) {
			red, err := dialogread.NewRedactor([]string{pattern})
			require.NoError(t, err)
			d, err := dialogread.Read(strings.NewReader(in), red)
			require.NoError(t, err)
			require.Len(t, d.Nodes, 5, "init, message, Task (its subagent call nested), the other entry, complete")
			assert.Equal(t, "init", d.Nodes[0].Entry.Type)
			assert.Equal(t, "message", d.Nodes[1].Entry.Type)
			assert.Equal(t, "assistant", d.Nodes[1].Entry.Role)
			task := d.Nodes[2]
			assert.Equal(t, "tool", task.Entry.Type)
			assert.Equal(t, "success", task.Status())
			require.Len(t, task.Children, 1, "the subagent's call is nested by the id as written")
			inner := task.Children[0]
			assert.Equal(t, "error", inner.Status(), "a failed tool stays failed")
			require.NotNil(t, inner.Result)
			assert.Equal(t, "2026-01-01T00:00:04Z", inner.Result.TS)
			assert.Equal(t, "error", d.Complete.Status)
			assert.Equal(t, 1, d.Summary().Errors)

			re := regexp.MustCompile(pattern)
			other := d.Nodes[3].Entry
			for _, shown := range []string{task.Entry.ToolID, inner.Entry.Parent, task.Entry.Name, d.Nodes[1].Entry.Content,
				inner.Result.Error, task.Result.Result, d.Complete.Message, d.Complete.Reason, d.Init.Init.CWD,
				other.Type, other.Status, other.TS} {
				assert.False(t, re.MatchString(strings.ReplaceAll(shown, dialogread.DefaultMask, "")), "%q shown unmasked", shown)
			}
		})
	}
}

// FuzzRedactor checks, on any text and pattern: a pattern that is taken
// never matches an empty span of any text; redaction keeps valid UTF-8
// valid; and a literal secret never survives outside a mask.
func FuzzRedactor(f *testing.F) {
	f.Add("token sk-abc123 for /home/ada/x", "sk-[a-z0-9]+", "ada")
	f.Add("aaa", "a*", "aa")
	f.Add("/home/bob/home/bob", "/home/[^/]+", "bob")
	f.Add("x\u202eabc\r\ndef", `\bdef\b`, "c\r")
	f.Add("[REDACTED]", "RED", "]")
	f.Fuzz(func(t *testing.T, text, pattern, secret string) {
		red, err := dialogread.NewRedactor([]string{pattern})
		if err == nil {
			re := regexp.MustCompile(pattern)
			for _, m := range re.FindAllStringIndex(text, -1) {
				if m[0] == m[1] {
					t.Fatalf("pattern %q was taken but matches the empty string at %d of %q", pattern, m[0], text)
				}
			}
			out := red.String(text)
			if utf8.ValidString(text) && !utf8.ValidString(out) {
				t.Fatalf("%q masked by %q is not valid UTF-8: %q", text, pattern, out)
			}
		}
		if secret == "" || !utf8.ValidString(secret) { // a pattern is text
			return
		}
		lit, err := dialogread.NewRedactor([]string{regexp.QuoteMeta(secret), `\d+x`})
		require.NoError(t, err)
		for _, piece := range strings.Split(lit.String(text), dialogread.DefaultMask) {
			if strings.Contains(piece, secret) {
				t.Fatalf("secret %q survived in %q (from %q)", secret, piece, text)
			}
		}
	})
}
