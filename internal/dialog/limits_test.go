package dialog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialogcheck"
)

// The limits of the web UI's readers, kept by construction: nesting,
// duplicate keys, line separators, the years a ts can say, numbers that
// must not wrap.

// maxDepth is the deepest nesting of one dialog line, as serde_json counts.
func maxDepth(t *testing.T, line []byte) int {
	t.Helper()
	d, dup, has := dialogcheck.Shape(line)
	require.False(t, has, "duplicate key %q in %s", dup, line)
	return d
}

// nested is JSON nested n levels deep: arrays around a string.
func nested(n int) string { return strings.Repeat("[", n) + `"core"` + strings.Repeat("]", n) }

func TestWriterArgsDeeperThanTheLimitBecomeText(t *testing.T) {
	for _, tt := range []struct {
		name, args string
		dup        bool // with a duplicate key, for the slower path
	}{
		{"object args", `{"command":"ls","deep":` + nested(9000) + `}`, false},
		{"object args, duplicate key", `{"deep":1,"command":"ls","deep":` + nested(9000) + `}`, true},
		{"array args, wrapped", nested(9000), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := NewWriter(&out, Options{Clock: pinned, MaxText: 1000})
			w.ToolStart(ToolCall{ID: "t", Name: "n", Args: rawArgs(tt.args)})
			w.ToolEnd(ToolResult{ID: "t", Output: Plain("ok")})
			require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
			lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
			for _, l := range lines {
				assert.LessOrEqual(t, maxDepth(t, l), maxNesting)
			}
			es := entries(t, out.Bytes())
			args := es[1]["args"].(map[string]any)
			// Levels 1 (the entry) to 100 stay JSON; the container that
			// would be level 101 is its text, cut like any args string.
			var v any = args
			if tt.args[0] == '[' {
				v = args["input"]
			} else {
				assert.Equal(t, "ls", args["command"], "keys and shallow values unchanged")
				v = args["deep"]
			}
			level := 3
			for {
				a, ok := v.([]any)
				if !ok {
					break
				}
				require.Len(t, a, 1)
				v, level = a[0], level+1
			}
			assert.Equal(t, maxNesting+1, level, "the first level past the limit is text")
			text := v.(string)
			assert.True(t, strings.HasPrefix(text, strings.Repeat("[", 1000)+marker(0)[:5]), "the cut text: %.40q", text)
		})
	}
}

func TestWriterArgsAtTheLimitStayJSON(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	args := `{"a":` + nested(maxNesting-2) + `}` // the entry is 1, args 2, the arrays 3 to 100
	w.ToolStart(ToolCall{ID: "t", Name: "n", Args: rawArgs(args)})
	require.NoError(t, w.Close(Summary{}, nil))
	assert.Contains(t, out.String(), `"args":`+args)
}

func TestWriterArgsKeepTheLastOfRepeatedKeys(t *testing.T) {
	many := func(last string) string {
		var b strings.Builder
		b.WriteString(`{"k0":"first"`)
		for i := 1; i < 100; i++ {
			fmt.Fprintf(&b, `,"k%d":%d`, i, i)
		}
		return b.String() + `,"k0":` + last + `}`
	}
	for _, tt := range []struct{ name, args, want string }{
		{"top level", `{"status":"success","n":1,"status":"weird"}`, `{"n":1,"status":"weird"}`},
		{"escaped twin", `{"a":1,"\u0061":2}`, `{"\u0061":2}`},
		{"nested, and values cut", `{"x":[{"c":"aaaaaaaaaaaaaaaaaaaa","c":"bbbbbbbbbbbbbbbbbbbbbbbb"}],"y":{"c":1}}`,
			`{"x":[{"c":"bbbbbbbbbb` + marker(14) + `"}],"y":{"c":1}}`},
		{"many keys", many(`"last"`), strings.Replace(many(`"last"`), `{"k0":"first",`, `{`, 1)},
		{"same key in different objects is no duplicate", `{"a":{"k":1},"b":{"k":2}}`, `{"a":{"k":1},"b":{"k":2}}`},
		{"keys made equal by repair", "{\"k\\ud800\":1,\"k\xff\":2}", `{"k` + "\ufffd" + `":2}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := argsOf(tt.args, 10)
			assert.Equal(t, tt.want, got)
			_, dup, has := dialogcheck.Shape([]byte(got))
			assert.False(t, has, "duplicate %q left", dup)
		})
	}
}

func TestWriterEscapesLineSeparators(t *testing.T) {
	const text = "a\u2028b\u2029c\u0085d"
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned, Prompt: text, HasPrompt: true, Task: text, MaxText: 100})
	lit := `"` + text + `"` // the checker finds it dirty: raw separators
	w.Message(Message{Content: Plain(text)})
	w.Message(Message{Content: rawText(lit)})
	w.Thinking(rawText(lit), "")
	w.ToolStart(ToolCall{ID: text, Name: "n", Args: rawArgs(`{"` + text + `":"` + text + `"}`)})
	w.ToolEnd(ToolResult{ID: text, Output: rawText(`"` + strings.Repeat(text, 100) + `"`)}) // cut: the raw cut path
	require.NoError(t, w.Close(Summary{Status: StatusError, Message: text}, nil))
	for _, r := range []string{"\u2028", "\u2029", "\u0085"} {
		assert.NotContains(t, out.String(), r)
	}
	es := entries(t, out.Bytes())
	for _, i := range []int{1, 2, 3, 4} {
		assert.Equal(t, text, es[i]["content"], "entry %d", i)
	}
	assert.Equal(t, map[string]any{text: text}, es[5]["args"])
	assert.True(t, strings.HasPrefix(es[6]["result"].(string), strings.Repeat(text, 8)), "cut at 100 bytes")
	assert.Contains(t, es[6]["result"], "more bytes cut]")
	assert.Contains(t, out.String(), `a\u2028b\u2029c\u0085d`)
	// Python's splitlines would see one line per entry.
	assert.Len(t, strings.FieldsFunc(out.String(), func(r rune) bool { return r == '\n' || r == '\u2028' || r == '\u2029' || r == '\u0085' }), len(es))
}

// A source timestamp whose UTC time leaves the years 0 to 9999 is no
// timestamp; a clock that does is held at the edge. Either way every ts
// is one validate accepts.
func TestWriterTimestampsStayInFourDigitYears(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: FixedClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))})
	for _, ts := range []string{"9999-12-31T23:59:59-23:59", "0000-01-01T00:00:00+00:01", "9999-12-31T23:59:59.9999Z"} {
		w.BeginLine()
		sourceTime(w, ts)
		w.Message(Message{Content: Plain(ts)})
	}
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	assert.Equal(t, "2026-01-01T00:00:00.000Z", es[1]["ts"], "year 10000 in UTC: ignored")
	assert.Equal(t, "2026-01-01T00:00:00.000Z", es[2]["ts"], "year -1 in UTC: ignored")
	assert.Equal(t, "9999-12-31T23:59:59.999Z", es[3]["ts"])

	for _, clock := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC)} {
		out.Reset()
		w := NewWriter(&out, Options{Clock: FixedClock(clock)})
		w.Message(Message{Content: Plain("x")})
		require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
		entries(t, out.Bytes())
	}
}

func TestTokensSaturate(t *testing.T) {
	big := Tokens{In: 5e18, Out: 5e18, CacheRead: 5e18, CacheWrite: 5e18, Reasoning: 5e18}
	assert.Equal(t, Tokens{In: math.MaxInt64, Out: math.MaxInt64, CacheRead: math.MaxInt64, CacheWrite: math.MaxInt64, Reasoning: math.MaxInt64}, big.Plus(big))
	assert.Equal(t, Tokens{In: 3, Out: -1}, Tokens{In: 1, Out: 1}.Plus(Tokens{In: 2, Out: -2}))
	assert.Equal(t, int64(math.MinInt64), AddSat(math.MinInt64, -1))
	assert.Equal(t, int64(math.MaxInt64), AddSat(math.MaxInt64, 1))
	assert.Equal(t, int64(-1), AddSat(math.MaxInt64, math.MinInt64))
}

// A cost is written whenever it is a finite number, however large.
func TestWriterKeepsAFiniteCost(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess, HasCost: true, CostUSD: math.MaxFloat64}, nil))
	assert.Equal(t, math.MaxFloat64, entries(t, out.Bytes())[1]["cost_usd"])
}

// A saved transcript without timestamps has no clock but ours, which
// measured the conversion: its duration is 0. Live, it is the wall time.
func TestWriterDurationOfASavedTranscriptWithoutTimestamps(t *testing.T) {
	for _, saved := range []bool{true, false} {
		var out bytes.Buffer
		w := NewWriter(&out, Options{Clock: &stepClock{t: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}, Saved: saved})
		w.BeginLine()
		w.Message(Message{Content: Plain("x")})
		w.BeginLine()
		require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
		es := entries(t, out.Bytes())
		want := 0.0
		if !saved {
			want = 2000 // the step clock: read at NewWriter, for the message's ts, by Close
		}
		assert.Equal(t, want, es[len(es)-1]["duration_ms"], "saved %v", saved)
	}
	// A source's own figure, or its timestamps' span, wins either way.
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned, Saved: true})
	w.BeginLine()
	sourceTime(w, "2026-01-01T00:00:00Z")
	w.Message(Message{Content: Plain("x")})
	w.BeginLine()
	sourceTime(w, "2026-01-01T00:00:02Z")
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	assert.Equal(t, 2000.0, entries(t, out.Bytes())[2]["duration_ms"])
}

// A text field of the wrong JSON type is no text: null is no entry, never
// the message "null".
func TestRawStringOfAnotherTypeIsNoText(t *testing.T) {
	for _, raw := range []string{"null", "", "42", "true", `{"a":1}`, `["x"]`} {
		assert.True(t, rawText(raw).IsEmpty(), "%s", raw)
	}
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	w.Message(Message{Content: rawText("null")})
	w.Thinking(rawText("null"), "")
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	assert.Equal(t, "init complete", types(entries(t, out.Bytes())))
}

func TestWriterWarnsOncePastManyEntries(t *testing.T) {
	var warnings []string
	var at []int
	var w *Writer
	w = NewWriter(&discard{}, Options{Clock: pinned, Warn: func(msg string) {
		warnings = append(warnings, msg)
		at = append(at, w.Entries())
	}})
	for range ManyEntries + 10 {
		w.Message(Message{Content: Plain("x")})
	}
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	require.Len(t, warnings, 1)
	assert.Equal(t, []int{ManyEntries + 1}, at, "when the entry past 190,000 is written")
	assert.Contains(t, warnings[0], "more than 190,000 entries")
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestCutMarkerFitsItsBound(t *testing.T) {
	note := appendCutMarker([]byte(`""`), math.MaxInt, true)
	assert.LessOrEqual(t, len(note), maxMarkerLen)
	var s string
	require.NoError(t, json.Unmarshal(Plain("abcdef").appendTo(nil, -1, 2), &s))
	assert.Equal(t, "ab … [4 more bytes cut for the file budget]", s)
	require.NoError(t, json.Unmarshal(Plain("abcdef").appendTo(nil, 2, -1), &s))
	assert.Equal(t, "ab … [4 more bytes cut]", s)
}

func TestAppendArgsCapsValuesNotKeys(t *testing.T) {
	long := strings.Repeat("k", 20)
	raw := `{ "` + long + `" : "` + long + `", "list": ["` + long + `", 12345678901234567890], "n": {"` + long + `":true} }`
	got := argsOf(raw, 5)
	cut := `"kkkkk` + marker(15) + `"`
	assert.Equal(t, `{"`+long+`":`+cut+`,"list":[`+cut+`,12345678901234567890],"n":{"`+long+`":true}}`, got,
		"compact, values cut, keys and numbers whole")
}
