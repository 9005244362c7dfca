package dialog

import (
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
