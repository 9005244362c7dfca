package dialog

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// progressOf is an Options.Progress the way the job gives it: the input
// read of its size, where what has been read runs ahead calls ahead of
// what has been converted (a read-ahead buffer) and the size counts them
// as unread too (convert's countInputs); 1 only once every call is read.
func progressOf(read *int, calls, ahead int) func() float64 {
	return func() float64 { return float64(min(*read+ahead, calls)) / float64(calls+ahead) }
}

// A saved input that fits its budget (2,000 calls, about 1.2 MB, under
// 2 MiB) is not cut by the pace when the writer knows how far it has read;
// the same entries without Progress (a stream) are.
func TestPaceLeavesASavedInputThatFitsWhole(t *testing.T) {
	const calls = 2000
	opt := Options{MaxBytes: 2 << 20}

	streamed, es, _ := manyCalls(t, calls, opt)
	assert.Positive(t, countMatching(es, "args_cut"), "a stream is paced as before")
	assert.Positive(t, countMatching(es, "result_cut"))

	var read int
	opt.Progress = progressOf(&read, calls, 10)
	saved, es, warned := manyCallsRead(t, calls, opt, &read)
	t.Logf("stream %d bytes, saved %d bytes", len(streamed), len(saved))
	require.Len(t, es, 1+2*calls+1, "init, every call's two entries, complete: no note, nothing cut")
	assert.Zero(t, countMatching(es, "args_cut"))
	assert.Zero(t, countMatching(es, "result_cut"))
	assert.Zero(t, strings.Count(string(saved), "cut for the file budget"))
	assert.Empty(t, warned)
	assert.Greater(t, len(saved), len(streamed))
	assert.LessOrEqual(t, len(saved), 2<<20)
}

// A saved input that does not fit (80,000 calls, TestBudgetHolds80000Calls
// with Progress) is still kept under the budget with every entry written:
// with no read-ahead, and with 256 KiB of it (about 450 of these calls).
func TestPaceHoldsASavedInputThatDoesNotFit(t *testing.T) {
	const calls = 80_000
	for _, ahead := range []int{0, 450} {
		var read int
		out, es, _ := manyCallsRead(t, calls, Options{Progress: progressOf(&read, calls, ahead)}, &read)
		t.Logf("%d calls read ahead: %d bytes, %d args left out", ahead, len(out), countMatching(es, "args_cut"))
		assert.LessOrEqual(t, len(out), DefaultMaxBytes)
		require.Equal(t, 1+2*calls+2, len(es), "init, every call's two entries, the budget's note, complete")
		note := es[len(es)-2]["content"].(string)
		assert.True(t, strings.HasPrefix(note, WarningPrefix+"the dialog was kept under its budget of 30 MiB: "), note)
		assert.NotContains(t, note, "left out at the end")
	}
}

// A progress that says nothing yet (0, or NaN from 0/0) leaves today's pace.
func TestPaceWithoutProgressYet(t *testing.T) {
	for _, p := range []float64{0, math.NaN()} {
		b := budget{max: 1 << 20, written: 1000, entries: 10, progress: func() float64 { return p }}
		plain := budget{max: 1 << 20, written: 1000, entries: 10}
		assert.Equal(t, plain.pace(0), b.pace(0), "progress %v", p)
	}
	b := budget{max: 1 << 20, written: 1000, entries: 10, progress: func() float64 { return 0.5 }}
	left := int64(1<<20 - completeReserve - 1000)
	assert.Equal(t, left-1000-(1<<20)/32, b.pace(0), "half read: the rest is projected at the 1000 bytes so far, and the file keeps what it has left when full")
}

// wordyRounds writes rounds rounds of a text-heavy session: a message of
// 2,000 bytes, then a call whose result is 4,000 bytes; read, when not
// nil, tells how many rounds the input has given so far. It returns the
// dialog and its entries.
func wordyRounds(t *testing.T, rounds int, opt Options, read *int) ([]byte, []map[string]any) {
	t.Helper()
	opt.Clock = pinned
	var out bytes.Buffer
	w := NewWriter(&out, opt)
	w.Meta(Meta{Model: "claude-sonnet-4-5", CWD: "/work"})
	message := strings.Repeat("The build passes; next the parser. ", 60)[:2000]
	result := strings.Repeat("src/parse.go:120: func parseLine(b []byte) error\n", 82)[:4000]
	for i := range rounds {
		if read != nil {
			*read = i + 1
		}
		w.Message(Message{Content: Plain(fmt.Sprintf("%d. %s", i, message))})
		id := fmt.Sprintf("toolu_01%022d", i)
		w.ToolStart(ToolCall{ID: id, Name: "Read", Args: rawArgs(fmt.Sprintf(`{"file_path":"/work/src/parse_%d.go"}`, i))})
		w.ToolEnd(ToolResult{ID: id, Output: Plain(result)})
	}
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	return out.Bytes(), entries(t, out.Bytes())
}

// A saved input whose dialog fits its budget is written whole even when
// its text is more than the half of the budget a stream's text may take
// (250 rounds: about 1.6 MB, 1.5 MB of it text, in 2 MiB): byte for byte
// the dialog written with no budget. The same entries as a stream are cut.
func TestProjectionLeavesATextHeavySavedInputWhole(t *testing.T) {
	const rounds = 250
	const budget = 2 << 20
	uncut, _ := wordyRounds(t, rounds, Options{MaxBytes: -1}, nil)
	require.Less(t, len(uncut), budget)
	require.Greater(t, len(uncut)-rounds*600, budget/2, "text alone (all but about 600 bytes a round) is more than half the budget")

	streamed, _ := wordyRounds(t, rounds, Options{MaxBytes: budget}, nil)
	assert.Positive(t, strings.Count(string(streamed), "cut for the file budget"), "a stream's text is held to half the budget")

	for _, ahead := range []int{0, 5} {
		var read int
		saved, es := wordyRounds(t, rounds, Options{MaxBytes: budget, Progress: progressOf(&read, rounds, ahead)}, &read)
		assert.Zero(t, strings.Count(string(saved), "cut for the file budget"), "%d rounds read ahead", ahead)
		assert.Equal(t, 1+3*rounds+1, len(es), "init, every round's three entries, complete: no note")
		assert.Equal(t, string(uncut), string(saved), "%d rounds read ahead", ahead)
	}
}

// A saved input whose dialog does not fit (the same 250 rounds, about 1.6
// MB, in 1 MiB) is kept under its budget with every entry, its text cut,
// each call ended, and what the budget left out counted before complete.
func TestProjectionHoldsATextHeavySavedInputThatDoesNotFit(t *testing.T) {
	const rounds = 250
	const budget = 1 << 20
	for _, ahead := range []int{0, 5} {
		var read int
		out, es := wordyRounds(t, rounds, Options{MaxBytes: budget, Progress: progressOf(&read, rounds, ahead)}, &read)
		cuts := strings.Count(string(out), "cut for the file budget")
		argsCut, resultCut := countMatching(es, "args_cut"), countMatching(es, "result_cut")
		t.Logf("%d rounds read ahead: %d bytes, %d cuts, %d args and %d results left out", ahead, len(out), cuts, argsCut, resultCut)
		assert.LessOrEqual(t, len(out), budget)
		assert.Positive(t, cuts)
		var messages, started, ended int
		for _, e := range es {
			switch {
			case e["type"] == "message":
				messages++
			case e["type"] == "tool" && e["status"] == "running":
				started++
			case e["type"] == "tool" && e["status"] == "success":
				ended++
			}
		}
		assert.Equal(t, rounds, started, "every call")
		assert.Equal(t, rounds, ended, "every call ended")
		if argsCut+resultCut == 0 {
			assert.Equal(t, rounds, messages, "every message, no note")
			continue
		}
		assert.Equal(t, rounds+1, messages, "every message, and the budget's note")
		note := es[len(es)-2]["content"].(string)
		assert.NotContains(t, note, "left out at the end")
		if argsCut > 0 {
			assert.Equal(t, argsCut, noteNumber(t, note, "tool calls without their args"))
		}
		if resultCut > 0 {
			assert.Equal(t, resultCut, noteNumber(t, note, "tool results without their text"))
		}
	}
}
