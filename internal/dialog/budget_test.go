package dialog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resultText is about n bytes of command output as a JSON literal, with the
// escapes and multi-byte characters real output has.
func resultText(n int) string {
	line := `drwxr-xr-x  2 user  staff   64 Jan  2 03:04 \"dir\" — ünïcödé ✓\t\u001b[32mok\u001b[0m\n`
	return `"` + strings.Repeat(line, n/len(line)+1) + `"`
}

// budgetRun writes calls tool calls, each with a message before it, args
// and a result of about resultSize bytes, under the budget maxBytes, and
// returns the dialog after checking it is valid and every call is paired.
func budgetRun(t *testing.T, maxBytes int64, calls, resultSize int, open int) ([]byte, []map[string]any) {
	t.Helper()
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned, MaxBytes: maxBytes, Prompt: strings.Repeat("p", 5000), HasPrompt: true})
	res := rawText(resultText(resultSize))
	for i := range calls {
		w.Message(Message{Content: Plain(fmt.Sprintf("Step %d: let me look at the files with a command.", i))})
		id := fmt.Sprintf("toolu_%06d", i)
		w.ToolStart(ToolCall{ID: id, Name: "Bash", Args: rawArgs(`{"command":"ls -la /work/project/src/module` + fmt.Sprint(i) + `","description":"List files"}`)})
		w.ToolEnd(ToolResult{ID: id, Output: res, IsError: i%7 == 0})
	}
	for i := range open { // calls still open at the end: closed by Close
		w.ToolStart(ToolCall{ID: fmt.Sprintf("open_%d", i), Name: "Read", Args: rawArgs(`{"file_path":"/a/b/c/d/e/f/` + strings.Repeat("x", 200) + `"}`)})
	}
	require.NoError(t, w.Close(Summary{Status: StatusError, Message: strings.Repeat("why ", 10000), Reason: "max_turns"}, nil))

	es := entries(t, out.Bytes()) // valid, so every start has exactly one end
	starts, ends := 0, 0
	for _, e := range es {
		if e["type"] == "tool" {
			if e["status"] == "running" {
				starts++
			} else {
				ends++
			}
		}
	}
	require.Equal(t, calls+open, starts)
	require.Equal(t, calls+open, ends)
	require.Equal(t, "complete", es[len(es)-1]["type"])
	want := 2 + 3*calls + 2*open + 1
	if note, _ := es[len(es)-2]["content"].(string); strings.HasPrefix(note, WarningPrefix+"the dialog was kept under its budget") {
		require.NotContains(t, note, "left out at the end")
		want++ // what the budget cut, said before complete
	}
	require.Len(t, es, want, "no entry dropped")
	return out.Bytes(), es
}

// The case: 5,000 tool calls with 40 KB results are 200 MB of
// output; the dialog stays under the default budget of 30 MiB with every
// entry and every pairing, early results cut only by --max-text, later
// ones more and more for the budget.
func TestBudgetKeepsALongSessionUnder30MiB(t *testing.T) {
	out, es := budgetRun(t, 0, 5000, 40<<10, 0)
	t.Logf("dialog: %d bytes, %d entries", len(out), len(es))
	require.LessOrEqual(t, len(out), DefaultMaxBytes)

	results := func(i int) string { // the text of call i's result
		e := es[2+3*i+2]
		if s, ok := e["result"].(string); ok {
			return s
		}
		return e["error"].(string)
	}
	first := results(0)
	assert.True(t, strings.HasSuffix(first, "more bytes cut]") && !strings.Contains(first, "budget"), "the first result is cut by --max-text: %.60q", first[len(first)-60:])
	assert.GreaterOrEqual(t, len(first), DefaultMaxText)
	last := results(4999)
	assert.Contains(t, last, "more bytes cut for the file budget]")
	// The caps only tighten. (They count output bytes, so the decoded text
	// of one result varies with the escapes it keeps: compare averages.)
	avg := func(from int) int {
		n := 0
		for i := from; i < from+1000; i++ {
			n += len(results(i))
		}
		return n / 1000
	}
	for i := 1000; i < 5000; i += 1000 {
		assert.Less(t, avg(i), avg(i-1000), "results %d to %d", i, i+999)
	}
	// Shrinking, but far from nothing: the 1,500th result still has more
	// than the 1,000 characters the web UI shows.
	assert.Greater(t, len(results(1500)), 1000)
	assert.Contains(t, es[len(es)-1]["message"], "why why")
}

// Budgets from small to large, with calls left open at the end: the file
// stays under the budget while the parts that are never cut fit in half of
// it. Here they are about 500 bytes a call (a message, its start, its
// result and marker) and 330 an open call.
func TestBudgetHoldsForAnyBudgetWithCallsLeftOpen(t *testing.T) {
	for _, tt := range []struct {
		budget      int64
		calls, open int
	}{
		{128 << 10, 100, 20},    // 57 KB of 64 KiB
		{1 << 20, 800, 300},     // 500 KB of 512 KiB
		{4 << 20, 2000, 2000},   // 1.7 MB of 2 MiB
		{30 << 20, 12000, 1000}, // 6.3 MB of 15 MiB
	} {
		t.Run(fmt.Sprint(tt.budget), func(t *testing.T) {
			out, _ := budgetRun(t, tt.budget, tt.calls, 40<<10, tt.open)
			assert.LessOrEqual(t, int64(len(out)), tt.budget)
			assert.Contains(t, string(out), "for the file budget]")
		})
	}
}

// One message, thinking or prompt is cut at MinMaxMessage (64 KiB), or
// --max-text when larger: the panel renders a message as Markdown, and
// one of 770 KB took it 48 s.
func TestMessageIsCutAt64KiB(t *testing.T) {
	huge := strings.Repeat("word ", 1<<20) // 5 MiB
	for _, tt := range []struct {
		maxText, want int
	}{
		{0, MinMaxMessage}, // the default --max-text, 16 KiB, is less
		{100 << 10, 100 << 10},
	} {
		var out bytes.Buffer
		w := NewWriter(&out, Options{Clock: pinned, MaxText: tt.maxText})
		w.UserPrompt(Plain(huge))
		w.Message(Message{Content: Plain(huge)})
		w.Thinking(rawText(`"`+huge+`"`), "")
		require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
		es := entries(t, out.Bytes())
		for _, e := range es[1:4] {
			s := e["content"].(string)
			kept, marker, ok := strings.Cut(s, " … [")
			require.True(t, ok, "%s entry not cut", e["type"])
			assert.Len(t, kept, tt.want, "%s entry", e["type"])
			assert.Equal(t, fmt.Sprintf("%d more bytes cut]", len(huge)-tt.want), marker)
		}
	}
}

// The agent's words are cut too, with a larger share than a tool's text
// (no --max-text, so no 64 KiB bound either).
func TestBudgetCutsAHugeMessage(t *testing.T) {
	huge := strings.Repeat("word ", 10<<20) // 50 MiB
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned, MaxText: -1})
	w.Message(Message{Content: Plain(huge)})
	w.Thinking(rawText(`"`+huge+`"`), "")
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	require.Less(t, out.Len(), DefaultMaxBytes)
	es := entries(t, out.Bytes())
	for _, e := range es[1:3] {
		s := e["content"].(string)
		assert.Contains(t, s, "more bytes cut for the file budget]")
		assert.Greater(t, len(s), 512<<10, "a message may take 16 tool shares")
	}
}

// Without a budget, nothing is cut but by --max-text.
func TestBudgetCanBeTurnedOff(t *testing.T) {
	out, _ := budgetRun(t, -1, 300, 40<<10, 0)
	assert.NotContains(t, string(out), "budget")
}

// Each cut string says how much it left out; the budget's marker says why.
func TestBudgetCutIsMarked(t *testing.T) {
	_, es := budgetRun(t, 256<<10, 100, 40<<10, 0)
	e := es[len(es)-2]
	s, _ := e["result"].(string)
	if s == "" {
		s = e["error"].(string)
	}
	kept, note, ok := strings.Cut(s, " … [")
	require.True(t, ok, "%q", s)
	var full string
	require.NoError(t, json.Unmarshal([]byte(resultText(40<<10)), &full))
	assert.True(t, strings.HasPrefix(full, kept))
	assert.Equal(t, fmt.Sprintf("%d more bytes cut for the file budget]", len(full)-len(kept)), note)
}

// A cutter works out its share of the budget only when a string long
// enough to cut needs it: it must cut as one given the share at the start.
func TestCutterShareLaterIsTheShare(t *testing.T) {
	texts := []Text{Plain("short"), Plain(strings.Repeat("é", 40)), Plain(strings.Repeat("x\n", 3000)),
		rawText(resultText(100)), rawText(resultText(50000)), rawText(`"` + strings.Repeat("y", maxMarkerLen) + `"`)}
	for _, maxBytes := range []int64{-1, 0, 3000, 100000, DefaultMaxBytes} {
		for _, used := range []int64{0, 1000, 40000, 15 << 20} {
			for _, message := range []bool{false, true} {
				for _, maxText := range []int{-1, 10, 100, DefaultMaxText} {
					b := budget{max: maxBytes, text: used, written: used / 2}
					later := cutter{b: &b, maxText: maxText, share: shareLater, message: message}
					now := cutter{b: &b, maxText: maxText, share: b.share(message)}
					var got, want []byte
					for _, tx := range texts {
						got, want = later.appendText(got, tx), now.appendText(want, tx)
					}
					require.Equal(t, string(want), string(got), "budget %d, used %d, message %v, max text %d", maxBytes, used, message, maxText)
					require.Equal(t, now.used, later.used)
				}
			}
		}
	}
}
