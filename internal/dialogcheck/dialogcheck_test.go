package dialogcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/ssebench/sse-dialog-convert/internal/golden" // registers -update
)

func validateFile(t *testing.T, path string) []Finding {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var got []Finding
	n, err := Validate(f, func(fd Finding) { got = append(got, fd) })
	require.NoError(t, err)
	require.Equal(t, len(got), n)
	return got
}

func TestValidateAcceptsValidDialogs(t *testing.T) {
	files, err := filepath.Glob("testdata/valid/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			assert.Empty(t, validateFile(t, path))
		})
	}
}

// Each broken dialog must give a finding on the line where it breaks.
func TestValidateRejectsBrokenDialogs(t *testing.T) {
	cases := map[string]struct {
		line int
		msg  string
	}{
		"seq-gap":                    {2, "seq 2 where 1 was expected"},
		"seq-repeat":                 {2, "seq 0 where 1 was expected"},
		"seq-string":                 {2, "seq must be an integer"},
		"init-not-first":             {1, "the first entry must be init"},
		"no-complete":                {2, "no complete entry"},
		"two-completes":              {3, "second complete (first on line 2)"},
		"entry-after-complete":       {3, "message entry after complete"},
		"tool-unfinished":            {2, `tool "t1" started here has no result before complete`},
		"tool-unmatched":             {2, `tool "t9" ended but never started`},
		"tool-renamed":               {3, `result named "edit", started as "bash"`},
		"tool-id-reused":             {4, `tool_id "t1" reused (first started on line 2)`},
		"tool-status-unknown":        {2, `tool.status "done" is not running, success or error`},
		"tool-args-string":           {2, "tool.args must be an object"},
		"complete-status-unknown":    {2, `complete.status "cancelled" is not success, error or timeout`},
		"type-unknown":               {2, `unknown entry type "note"`},
		"init-model-missing":         {1, "init.data.model must be a string, got nothing"},
		"message-content-not-string": {2, "message.content must be a string"},
		"message-role-user":          {2, `message.role must be "assistant"`},
		"complete-turns-string":      {2, "complete.turns must be a non-negative integer"},
		"complete-tokens-missing":    {2, "complete.total_tokens is missing"},
		"ts-not-iso":                 {2, "is not ISO 8601 UTC"},
		"ts-not-utc":                 {2, "is not ISO 8601 UTC"},
		"ts-backwards":               {2, "is before the previous entry's"},
		"invalid-utf8":               {2, "invalid UTF-8"},
		"not-json":                   {2, "not valid JSON"},
		"not-object":                 {2, "not a JSON object"},
		"empty":                      {0, "empty dialog"},
		"prompt-before-init":         {1, "the first entry must be init, got prompt"},
		"prompt-after-complete":      {3, "prompt entry after complete"},
		"no-final-newline":           {2, "no line ending"},
		"duplicate-key":              {3, `duplicate key "status"`},
		"nested-too-deep":            {2, "nested 128 levels deep: serde_json (the SSEBench daemon) reads at most 127"},
	}
	files, err := filepath.Glob("testdata/invalid/*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, len(cases), "every broken dialog in testdata/invalid needs a case here")
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			want, ok := cases[name]
			require.True(t, ok, "no expectation for %s", name)
			got := validateFile(t, path)
			require.NotEmpty(t, got, "validate accepted a broken dialog")
			found := false
			for _, f := range got {
				if f.Line == want.line && strings.Contains(f.Msg, want.msg) {
					found = true
				}
			}
			assert.True(t, found, "want a finding on line %d containing %q; got %v", want.line, want.msg, got)
		})
	}
}

func TestValidateChecksPromptPlace(t *testing.T) {
	// A conversation's later user turns are prompts where they were said:
	// a prompt after the body started is fine, and so is a second one.
	in := `{"seq":0,"ts":"2025-01-15T10:30:00Z","type":"init","data":{"task":"t","cwd":"/","model":"m","agent":"a"}}
{"seq":1,"ts":"2025-01-15T10:30:00Z","type":"message","role":"assistant","content":"x"}
{"seq":2,"ts":"2025-01-15T10:30:00Z","type":"prompt","content":"late"}
{"seq":3,"ts":"2025-01-15T10:30:00Z","type":"prompt","content":"later"}
{"seq":4,"ts":"2025-01-15T10:30:00Z","type":"complete","status":"success","turns":0,"duration_ms":0,"total_tokens":{"in":0,"out":0}}
`
	var got []Finding
	_, err := Validate(strings.NewReader(in), func(f Finding) { got = append(got, f) })
	require.NoError(t, err)
	assert.Empty(t, got)

	// Its content must still be a string.
	bad := strings.Replace(in, `"content":"later"`, `"content":7`, 1)
	got = nil
	_, err = Validate(strings.NewReader(bad), func(f Finding) { got = append(got, f) })
	require.NoError(t, err)
	assert.Equal(t, []Finding{{Line: 4, Msg: "prompt.content must be a string, got 7"}}, got)
}

// validate finds what JSON.parse and serde_json read differently or not at
// all: a key twice in one object (escaped or not), nesting past 127 levels.
func TestValidateShape(t *testing.T) {
	line := func(args string) string {
		return `{"seq":0,"ts":"2025-01-15T10:30:00Z","type":"init","data":{"task":"t","cwd":"/","model":"m","agent":"a"}}
{"seq":1,"ts":"2025-01-15T10:30:00Z","type":"tool","tool_id":"t","name":"n","status":"running","args":` + args + `}
{"seq":2,"ts":"2025-01-15T10:30:00Z","type":"tool","tool_id":"t","name":"n","status":"success"}
{"seq":3,"ts":"2025-01-15T10:30:00Z","type":"complete","status":"success","turns":0,"duration_ms":0,"total_tokens":{"in":0,"out":0}}
`
	}
	many := func(extra string) string {
		var b strings.Builder
		b.WriteString(`{`)
		for i := range 100 {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		b.WriteString(extra + `}`)
		return b.String()
	}
	for _, tt := range []struct {
		name, args string
		want       []Finding
	}{
		{"same key in sibling objects", `{"a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":2}]}`, nil},
		{"same key in parent and child", `{"x":{"x":{"x":1}}}`, nil},
		{"key twice", `{"x":1,"y":2,"x":3}`, []Finding{{2, `duplicate key "x": readers disagree on which copy wins`}}},
		{"key twice, once escaped", `{"a":1,"\u0061":2}`, []Finding{{2, `duplicate key "a": readers disagree on which copy wins`}}},
		{"key twice deep inside", `{"a":[{"b":{"c":1,"c":2}}]}`, []Finding{{2, `duplicate key "c": readers disagree on which copy wins`}}},
		{"key twice in a large object", many(`"k7":0`), []Finding{{2, `duplicate key "k7": readers disagree on which copy wins`}}},
		{"many keys, none twice", many(`"k100":0`), nil},
		{"a string that looks like a key", `{"a":"\"a\":","b":["a"]}`, nil},
		{"127 levels", `{"a":` + strings.Repeat("[", 125) + strings.Repeat("]", 125) + `}`, nil},
		{"128 levels", `{"a":` + strings.Repeat("[", 126) + strings.Repeat("]", 126) + `}`, []Finding{{2, "nested 128 levels deep: serde_json (the SSEBench daemon) reads at most 127"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []Finding
			_, err := Validate(strings.NewReader(line(tt.args)), func(f Finding) { got = append(got, f) })
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// A line nested deeper than the checker parses is one finding, found
// without recursion (ten million brackets overflowed the stack), and the
// lines after it are checked with the seq it stood for.
func TestValidateDeepNesting(t *testing.T) {
	const depth = 1_000_000
	in := `{"seq":0,"ts":"2025-01-15T10:30:00Z","type":"init","data":{"task":"t","cwd":"/","model":"m","agent":"a"}}
{"seq":1,"ts":"2025-01-15T10:30:00Z","type":"message","role":"assistant","content":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}
{"seq":2,"ts":"2025-01-15T10:30:00Z","type":"complete","status":"success","turns":0,"duration_ms":0,"total_tokens":{"in":0,"out":0}}
`
	var got []Finding
	n, err := Validate(strings.NewReader(in), func(f Finding) { got = append(got, f) })
	require.NoError(t, err)
	assert.Equal(t, []Finding{{2, "nested more than 10000 levels deep: serde_json (the SSEBench daemon) reads at most 127; not checked further"}}, got)
	assert.Equal(t, 1, n)

	// Brackets inside a string are text, not nesting.
	got = nil
	inString := strings.Replace(in, `"content":`+strings.Repeat("[", depth)+strings.Repeat("]", depth), `"content":"`+strings.Repeat("[", depth)+`"`, 1)
	_, err = Validate(strings.NewReader(inString), func(f Finding) { got = append(got, f) })
	require.NoError(t, err)
	assert.Empty(t, got)
}

// A line over the cap is read to its end but not kept: one finding with its
// length; the line at the cap exactly, and the lines after, are checked.
func TestValidateLineCap(t *testing.T) {
	initLine := `{"seq":0,"ts":"2025-01-15T10:30:00Z","type":"init","data":{"task":"t","cwd":"/","model":"m","agent":"a"}}`
	msg := func(seq int, text string) string {
		return fmt.Sprintf(`{"seq":%d,"ts":"2025-01-15T10:30:00Z","type":"message","role":"assistant","content":"%s"}`, seq, text)
	}
	end := `{"seq":3,"ts":"2025-01-15T10:30:00Z","type":"complete","status":"success","turns":0,"duration_ms":0,"total_tokens":{"in":0,"out":0}}`
	atCap := msg(1, strings.Repeat("a", 1000))
	over := msg(2, strings.Repeat("b", 200_000)) // several reads of the 64 KiB buffer
	lineCap := len(atCap)
	in := strings.Join([]string{initLine, atCap, over, end}, "\n") + "\n"
	var got []Finding
	_, err := validate(strings.NewReader(in), func(f Finding) { got = append(got, f) }, lineCap)
	require.NoError(t, err)
	assert.Equal(t, []Finding{{3, fmt.Sprintf("line of %d bytes: longer than %d bytes, the most the SSEBench web UI reads of a whole file; not checked", len(over), lineCap)}}, got)

	// One byte more than the cap, as the last line without its newline.
	got = nil
	_, err = validate(strings.NewReader(initLine+"\n"+atCap+"x"), func(f Finding) { got = append(got, f) }, lineCap)
	require.NoError(t, err)
	assert.Equal(t, []Finding{
		{2, "the last line has no line ending"},
		{2, fmt.Sprintf("line of %d bytes: longer than %d bytes, the most the SSEBench web UI reads of a whole file; not checked", lineCap+1, lineCap)},
		{2, "no complete entry: the dialog is unfinished"},
	}, got)
}
