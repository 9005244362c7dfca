package dialog

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manyCalls writes calls tool calls the way an 80,000-call Claude stream
// gives them (issue 25): Claude's 30-character ids, Bash args of two short
// strings, a result of about 200 bytes; and returns the dialog, its
// entries and what the writer warned.
func manyCalls(t *testing.T, calls int, opt Options) ([]byte, []map[string]any, []string) {
	t.Helper()
	return manyCallsRead(t, calls, opt, nil)
}

// manyCallsRead is manyCalls telling read, when not nil, how many calls
// the input has given so far (for an Options.Progress).
func manyCallsRead(t *testing.T, calls int, opt Options, read *int) ([]byte, []map[string]any, []string) {
	t.Helper()
	var warned []string
	opt.Clock = pinned
	opt.Warn = func(m string) { warned = append(warned, m) }
	var out bytes.Buffer
	w := NewWriter(&out, opt)
	w.Meta(Meta{Model: "claude-sonnet-4-5", CWD: "/work"})
	res := Plain(strings.Repeat("abcdefghijklmnopqrstuvwxyz", 8))
	for i := range calls {
		if read != nil {
			*read = i + 1
		}
		id := fmt.Sprintf("toolu_01%022d", i)
		w.ToolStart(ToolCall{ID: id, Name: "Bash", Args: rawArgs(fmt.Sprintf(`{"command":"grep -rn 'pattern_%d' src/ | head -20","description":"Search for the pattern in the sources"}`, i))})
		w.ToolEnd(ToolResult{ID: id, Output: res})
	}
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	return out.Bytes(), entries(t, out.Bytes()), warned
}

// countMatching counts the entries with key set.
func countMatching(es []map[string]any, key string) int {
	n := 0
	for _, e := range es {
		if _, ok := e[key]; ok {
			n++
		}
	}
	return n
}

// noteNumber reads the number before what in the budget's closing note.
func noteNumber(t *testing.T, note, what string) int {
	t.Helper()
	m := regexp.MustCompile(`(\d+) ` + regexp.QuoteMeta(what)).FindStringSubmatch(note)
	require.NotNil(t, m, "%q in %q", what, note)
	n, _ := strconv.Atoi(m[1])
	return n
}

// The case: 80,000 calls gave 160,002 entries in 34-37 MiB, with
// nothing said. Now: every entry, under 30 MiB, the calls past what the
// pace allows without their args and result text, and said.
func TestBudgetHolds80000Calls(t *testing.T) {
	out, es, warned := manyCalls(t, 80_000, Options{})
	t.Logf("%d bytes, %d entries", len(out), len(es))
	assert.LessOrEqual(t, len(out), DefaultMaxBytes)
	require.Len(t, es, 1+160_000+2, "init, every call's two entries, the budget's note, complete")

	first, second := es[1], es[2]
	assert.Equal(t, "grep -rn 'pattern_0' src/ | head -20", first["args"].(map[string]any)["command"], "early calls whole")
	assert.Equal(t, strings.Repeat("abcdefghijklmnopqrstuvwxyz", 8), second["result"])
	last := es[len(es)-4]
	assert.Equal(t, true, last["args_cut"], "late calls without args")
	assert.EqualValues(t, 208, es[len(es)-3]["result_cut"], "nor result text, its size said")

	note := es[len(es)-2]["content"].(string)
	assert.True(t, strings.HasPrefix(note, WarningPrefix+"the dialog was kept under its budget of 30 MiB: "), note)
	assert.Equal(t, countMatching(es, "args_cut"), noteNumber(t, note, "tool calls without their args"))
	assert.Equal(t, countMatching(es, "result_cut"), noteNumber(t, note, "tool results without their text"))
	assert.NotContains(t, note, "left out")
	require.Len(t, warned, 1)
	assert.Contains(t, warned[0], "tool args and output that do not fit are left out")
}

// Past what even the entries' heads can hold, the file is full: no new
// entry, every call started still ended, and the note counts what was
// left out. 120,000 calls: their heads alone are over 30 MiB.
func TestBudgetFullSummarisesTheRest(t *testing.T) {
	out, es, warned := manyCalls(t, 120_000, Options{})
	assert.LessOrEqual(t, len(out), DefaultMaxBytes)
	starts := 0
	for _, e := range es {
		if e["status"] == "running" {
			starts++
		}
	}
	note := es[len(es)-2]["content"].(string)
	assert.Equal(t, 120_000-starts, noteNumber(t, note, "tool calls,"), note)
	assert.Equal(t, 120_000-starts, noteNumber(t, note, "results,"), "a call not started has its result left out too")
	assert.Equal(t, 2*(120_000-starts), noteNumber(t, note, "entries left out at the end"))
	require.Len(t, warned, 2)
	assert.Contains(t, warned[1], "the dialog reached its budget")
}

// The web UI's view of a finished run shows none past the 200,000th entry:
// under a budget large enough for more, the entries stop short of it, and
// the complete entry is within it.
func TestBudgetKeepsUnder200000Entries(t *testing.T) {
	var warned []string
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned, MaxBytes: 1 << 30, Warn: func(m string) { warned = append(warned, m) }})
	for i := range 210_000 {
		if i%1000 == 0 {
			w.ToolStart(ToolCall{ID: fmt.Sprint("open", i), Name: "Bash"}) // left open: closed at the end
		}
		w.Message(Message{Content: Plain("m")})
	}
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	assert.LessOrEqual(t, len(es), MaxEntries)
	assert.Greater(t, len(es), MaxEntries-10)
	assert.Equal(t, "complete", es[len(es)-1]["type"])
	assert.Contains(t, es[len(es)-2]["content"], "entries left out at the end")
	require.Len(t, warned, 2)
	assert.Contains(t, warned[0], "190,000 entries")
}

// Without a budget, 80,000 calls are written whole.
func TestBudgetOffWritesEveryCallWhole(t *testing.T) {
	out, es, warned := manyCalls(t, 80_000, Options{MaxBytes: -1})
	assert.Greater(t, len(out), DefaultMaxBytes)
	require.Len(t, es, 1+160_000+1)
	assert.Zero(t, countMatching(es, "args_cut"))
	assert.Empty(t, warned)
}
