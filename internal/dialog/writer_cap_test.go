package dialog

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialogcheck"
)

// capRun writes a dialog with the given cap through write and returns its
// entries, after checking the dialog is valid.
func capRun(t *testing.T, maxText int, write func(w *Writer)) []map[string]any {
	t.Helper()
	return capRunOpt(t, Options{MaxText: maxText}, write)
}

// capRunOpt is capRun with more options.
func capRunOpt(t *testing.T, opt Options, write func(w *Writer)) []map[string]any {
	t.Helper()
	var out bytes.Buffer
	opt.Clock, opt.Task, opt.Agent = capClock, "t", "a"
	w := NewWriter(&out, opt)
	write(w)
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	n, err := dialogcheck.Validate(bytes.NewReader(out.Bytes()), func(f dialogcheck.Finding) { t.Errorf("invalid dialog: %s", f) })
	require.NoError(t, err)
	require.Zero(t, n)
	var es []map[string]any
	for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
		var e map[string]any
		require.NoError(t, json.Unmarshal(line, &e))
		es = append(es, e)
	}
	return es
}

var capClock = FixedClock(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))

// lit is s as a JSON string literal, as an adapter passes it on from its input.
func lit(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestCapDefaultIs16KiB(t *testing.T) {
	require.Equal(t, 16<<10, DefaultMaxText, "the README documents 16 KiB")
	long := strings.Repeat("r", DefaultMaxText+1000)
	for _, maxText := range []int{0, DefaultMaxText} { // 0 in Options means the default
		es := capRun(t, maxText, func(w *Writer) {
			w.ToolStart(ToolCall{ID: "1", Name: "Read"})
			w.ToolEnd(ToolResult{ID: "1", Output: rawText(lit(long))})
		})
		assert.Equal(t, long[:DefaultMaxText]+marker(1000), es[2]["result"])
	}
}

// The cap applies to tool results, tool errors, the strings inside tool args
// and complete's message; the agent's own words (messages, thinking, prompt)
// are never cut.
func TestCapAppliesToToolTextOnly(t *testing.T) {
	const limit = 100
	long := strings.Repeat("é", 80) // 160 bytes
	cut := strings.Repeat("é", 50) + marker(60)
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: capClock, MaxText: limit, Prompt: long, HasPrompt: true})
	w.Message(Message{Content: rawText(lit(long))})
	w.Thinking(Plain(long), "")
	w.ToolStart(ToolCall{ID: "a", Name: "Bash", Args: rawArgs(`{"command":` + lit(long) + `,"n":[` + lit(long) + `,1]}`)})
	w.ToolEnd(ToolResult{ID: "a", Output: rawText(lit(long))})
	w.ToolStart(ToolCall{ID: "b", Name: "Bash", Args: rawArgs(lit(long))}) // a non-object is wrapped as {"input": …}
	w.ToolEnd(ToolResult{ID: "b", Output: Plain(long), IsError: true})
	require.NoError(t, w.Close(Summary{Status: StatusError, Message: long}, nil))

	var es []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &e))
		es = append(es, e)
	}
	require.Len(t, es, 9)
	assert.Equal(t, long, es[1]["content"], "prompt")
	assert.Equal(t, long, es[2]["content"], "message")
	assert.Equal(t, long, es[3]["content"], "thinking")
	assert.Equal(t, map[string]any{"command": cut, "n": []any{cut, 1.0}}, es[4]["args"])
	assert.Equal(t, cut, es[5]["result"])
	assert.Equal(t, map[string]any{"input": cut}, es[6]["args"])
	assert.Equal(t, cut, es[7]["error"])
	assert.Equal(t, cut, es[8]["message"], "complete.message")
}

// With the cap off, only the file budget cuts; with both off, nothing.
func TestCapCanBeTurnedOff(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	write := func(w *Writer) {
		w.ToolStart(ToolCall{ID: "1", Name: "Read", Args: rawArgs(`{"s":` + lit(long) + `}`)})
		w.ToolEnd(ToolResult{ID: "1", Output: rawText(lit(long))})
	}
	es := capRunOpt(t, Options{MaxText: -1, MaxBytes: -1}, write)
	assert.Equal(t, map[string]any{"s": long}, es[1]["args"])
	assert.Equal(t, long, es[2]["result"])

	// The default budget gives one tool text of a fresh file 1/256 of its
	// half for text: about 60 KiB.
	es = capRunOpt(t, Options{MaxText: -1}, write)
	for _, s := range []string{es[1]["args"].(map[string]any)["s"].(string), es[2]["result"].(string)} {
		kept, note, ok := strings.Cut(s, " … [")
		require.True(t, ok, "cut with a marker")
		assert.Equal(t, strings.Repeat("x", len(kept)), kept)
		assert.Equal(t, strconv.Itoa(len(long)-len(kept))+" more bytes cut for the file budget]", note)
		assert.InDelta(t, (DefaultMaxBytes-completeReserve)/2/256, len(kept), 1000)
	}
}

// A result from the input is cut on what it says: escapes are decoded before
// the cut, none is split, and the marker counts the decoded bytes left out.
func TestCapCutsRawResultsOnCharacters(t *testing.T) {
	const limit = 10
	tests := []struct{ name, raw, want string }{
		{"escape before the cut kept", `"aaaaaaaaa\n\t\t"`, "aaaaaaaaa\n" + marker(2)},
		{"\\u escape straddling the cut", `"aaaaaaaaa\u20acb"`, "aaaaaaaaa" + marker(4)},
		{"surrogate pair straddling the cut", `"aaaaaaaa\ud83d\ude00b"`, "aaaaaaaa" + marker(5)},
		{"lone surrogate in the kept part", `"\ud800aaaaaaaaaaa"`, "\ufffdaaaaaaa" + marker(4)},
		{"raw multi-byte straddling the cut", `"aaaaaaaaa中"`, "aaaaaaaaa" + marker(3)},
		{"invalid UTF-8 kept as U+FFFD", "\"\xffaaaaaaaaaaa\"", "\ufffdaaaaaaaaa" + marker(2)},
		{"long escaped, short decoded: no cut", `"\u0041\u0042\u0043"`, "ABC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es := capRun(t, limit, func(w *Writer) {
				w.ToolStart(ToolCall{ID: "1", Name: "Read"})
				w.ToolEnd(ToolResult{ID: "1", Output: rawText(tt.raw)})
			})
			assert.Equal(t, tt.want, es[2]["result"])
		})
	}
}

// A 64 MiB result is cut without decoding all of it: the cost is the cap,
// not the result (the converter's peak memory follows the longest line).
func TestCapOfAHugeRawResultAllocatesLittle(t *testing.T) {
	huge := rawText(`"` + strings.Repeat(`ab\n`, 1<<20) + `"`) // 4 MiB escaped, 3 MiB decoded
	var dst []byte
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 5 {
		dst = huge.appendTo(dst[:0], DefaultMaxText, -1)
	}
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(5*8*DefaultMaxText), "bytes allocated by 5 cuts")
	assert.Less(t, cap(dst), 2*DefaultMaxText, "the output buffer holds the cut text, not the whole")
	var s string
	require.NoError(t, json.Unmarshal(dst, &s))
	assert.True(t, strings.HasSuffix(s, marker(3<<20-DefaultMaxText)), "%q", s[len(s)-40:])
}
