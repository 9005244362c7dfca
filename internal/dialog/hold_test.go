package dialog

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/sink"
)

// A saved input's entries held before any source time (see release) come
// out once, in seq order, with no placeholder left, whatever ends the
// hold: the first timed entry, the bound, Close, a stop, a full budget.
func TestWriterHoldReleases(t *testing.T) {
	png := Image{Media: "image/png", Data: []byte(pixelPNG)}
	type run func(t *testing.T, w *Writer)
	untimed := func(w *Writer) { w.BeginLine() }
	timed := func(t *testing.T, w *Writer, ts string) {
		w.BeginLine()
		w.SourceTime(at(t, ts))
	}
	cases := []struct {
		name      string
		opt       Options
		run       run
		ending    *Ending
		wantTypes string
		// wantTS is each entry's ts, or one ts for all.
		wantTS    []string
		wantClock string
	}{{
		name: "a call started held ends after the release",
		run: func(t *testing.T, w *Writer) {
			untimed(w)
			w.ToolStart(ToolCall{ID: "c1", Name: "Bash", Args: rawArgs(`{"command":"ls"}`)})
			timed(t, w, "2026-09-06T17:14:00Z")
			w.ToolEnd(ToolResult{ID: "c1", Output: Plain("a b")})
		},
		wantTypes: "init tool:running tool:success complete",
		wantTS:    []string{"2026-09-06T17:14:00.000Z"},
		wantClock: ClockSource,
	}, {
		name: "a held call still open at Close is closed once",
		run: func(t *testing.T, w *Writer) {
			untimed(w)
			w.ToolStart(ToolCall{ID: "c1", Name: "Bash"})
		},
		wantTypes: "init tool:running tool:error complete",
		wantTS:    []string{"2026-01-02T03:04:05.000Z"},
		wantClock: ClockConversion,
	}, {
		name: "held images, then a time",
		run: func(t *testing.T, w *Writer) {
			untimed(w)
			w.UserPrompt(Plain("look"), png)
			w.Message(Message{Content: Plain("seen"), Images: []Image{png, png}})
			timed(t, w, "2026-09-06T17:14:00Z")
			w.Message(Message{Content: Plain("done")})
		},
		wantTypes: "init prompt message message complete",
		wantTS:    []string{"2026-09-06T17:14:00.000Z"},
		wantClock: ClockSource,
	}, {
		name: "a time on a line that writes nothing, then a stop",
		run: func(t *testing.T, w *Writer) {
			untimed(w)
			w.Message(Message{Content: Plain("a")})
			timed(t, w, "2026-09-06T17:14:00Z")
		},
		ending:    &Ending{Status: StatusTimeout, Reason: "signal"},
		wantTypes: "init message complete",
		wantTS:    []string{"2026-09-06T17:14:00.000Z"},
		wantClock: ClockSource,
	}, {
		name: "an earlier time after a later one",
		run: func(t *testing.T, w *Writer) {
			untimed(w)
			w.Message(Message{Content: Plain("a")})
			timed(t, w, "2026-09-06T17:14:00Z")
			timed(t, w, "2026-09-06T17:13:00Z")
			w.Message(Message{Content: Plain("b")})
			timed(t, w, "2026-09-06T17:15:00Z")
			w.Message(Message{Content: Plain("c")})
		},
		wantTypes: "init message message message complete",
		wantTS:    []string{"2026-09-06T17:13:00.000Z", "2026-09-06T17:13:00.000Z", "2026-09-06T17:13:00.000Z", "2026-09-06T17:15:00.000Z", "2026-09-06T17:15:00.000Z"},
		wantClock: ClockSource,
	}, {
		name: "one entry past the byte bound",
		opt:  Options{MaxText: -1, MaxBytes: -1},
		run: func(t *testing.T, w *Writer) {
			untimed(w)
			w.Message(Message{Content: Plain(strings.Repeat("x", maxHeldBytes))})
			timed(t, w, "2025-01-01T00:00:00Z")
			w.Message(Message{Content: Plain("late")})
		},
		wantTypes: "init message message complete",
		wantTS:    []string{"2026-01-02T03:04:05.000Z"},
		wantClock: ClockConversion,
	}}
	for _, c := range cases {
		for _, inPlace := range []bool{false, true} {
			name := c.name
			if inPlace {
				name += " (in place)"
			}
			t.Run(name, func(t *testing.T) {
				var out bytes.Buffer
				opt := c.opt
				opt.Clock, opt.Saved = pinned, true
				var s *sink.Sink
				var w *Writer
				if inPlace {
					s = sink.New(&out, 1<<20)
					w = NewWriter(s, opt)
				} else {
					w = NewWriter(&out, opt)
				}
				c.run(t, w)
				require.NoError(t, w.Close(Summary{Status: StatusSuccess}, c.ending))
				if s != nil {
					require.NoError(t, s.Flush())
				}
				assert.NotContains(t, out.String(), heldTS, "a placeholder reached the output")
				es := entries(t, out.Bytes())
				require.Equal(t, c.wantTypes, types(es))
				for i, e := range es {
					assert.EqualValues(t, i, e["seq"])
					want := c.wantTS[0]
					if len(c.wantTS) > 1 {
						want = c.wantTS[i]
					}
					assert.Equal(t, want, e["ts"], "entry %d", i)
				}
				assert.Equal(t, c.wantClock, es[0]["data"].(map[string]any)["clock"])
				assert.Equal(t, int64(out.Len()), w.budget.written, "the budget counts what is written")
			})
		}
	}
}

// A saved input that fills its budget before any time is known keeps
// under it, every entry it writes released once.
func TestWriterHoldUnderABudget(t *testing.T) {
	for _, timedAt := range []int{-1, 3, 40} {
		var out bytes.Buffer
		const max = 4 << 10
		w := NewWriter(&out, Options{Clock: pinned, Saved: true, MaxBytes: max})
		for i := range 60 {
			w.BeginLine()
			if i == timedAt {
				w.SourceTime(at(t, "2026-09-06T17:14:00Z"))
			}
			w.ToolStart(ToolCall{ID: "c", Name: "Read", Args: rawArgs(`{"path":"` + strings.Repeat("p", 200) + `"}`)})
			w.ToolEnd(ToolResult{ID: "c", Output: Plain(strings.Repeat("r", 300))})
		}
		require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
		assert.LessOrEqual(t, out.Len(), max, "timed at %d", timedAt)
		assert.Equal(t, int64(out.Len()), w.budget.written, "timed at %d", timedAt)
		es := entries(t, out.Bytes())
		assert.Equal(t, w.Entries(), len(es))
		assert.Contains(t, es[len(es)-2]["content"], "left out", "timed at %d: the budget note", timedAt)
	}
}

// Held entries take no more memory than the bound and one entry.
func TestWriterHoldIsBounded(t *testing.T) {
	w := NewWriter(&bytes.Buffer{}, Options{Clock: pinned, Saved: true, MaxBytes: -1})
	maxHeld := 0
	for range 10 * maxHeldEntries {
		w.BeginLine()
		w.Message(Message{Content: Plain(strings.Repeat("m", 1000))})
		maxHeld = max(maxHeld, len(w.held))
	}
	assert.Less(t, maxHeld, maxHeldEntries*1100)
	assert.False(t, w.holding)
	assert.Nil(t, w.held)
}

// Random runs of a saved input's calls, times given late or never, under
// budgets small and none, built in place or not: every dialog is valid
// (seq from 0 by 1, ts never decreasing, every call ended once), no
// placeholder reaches it, and the budget counts what was written.
func TestWriterHoldRandomRuns(t *testing.T) {
	png := Image{Media: "image/png", Data: []byte(pixelPNG)}
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		var out bytes.Buffer
		opt := Options{Clock: pinned, Saved: true, MaxBytes: []int64{-1, 8 << 10, 16 << 10, 64 << 10}[seed%4]}
		var s *sink.Sink
		var w *Writer
		if seed%3 == 0 {
			s = sink.New(&out, 1+rng.IntN(4096))
			w = NewWriter(s, opt)
		} else {
			w = NewWriter(&out, opt)
		}
		timedFrom := rng.IntN(200)
		var open []string
		for i := range rng.IntN(300) {
			w.BeginLine()
			if i >= timedFrom && rng.IntN(3) > 0 {
				w.SourceTime(time.Date(2026, 9, 6, 17, 0, i, 0, time.UTC))
			}
			switch rng.IntN(6) {
			case 0:
				w.Message(Message{Content: Plain(strings.Repeat("m", rng.IntN(2000)))})
			case 1:
				w.Message(Message{Content: Plain("see"), Images: []Image{png}})
			case 2:
				id := "c" + strconv.Itoa(i)
				w.ToolStart(ToolCall{ID: id, Name: "Bash", Args: rawArgs(`{"command":"` + strings.Repeat("a", rng.IntN(500)) + `"}`)})
				open = append(open, id)
			case 3:
				if len(open) > 0 {
					k := rng.IntN(len(open))
					w.ToolEnd(ToolResult{ID: open[k], Output: Plain(strings.Repeat("r", rng.IntN(3000))), Images: []Image{png}[:rng.IntN(2)]})
					open = append(open[:k], open[k+1:]...)
				}
			case 4:
				w.UserPrompt(Plain("again"))
			case 5:
				w.Thinking(Plain("hmm"), "")
			}
		}
		var ending *Ending
		if seed%5 == 0 {
			ending = &Ending{Status: StatusTimeout, Reason: "signal"}
		}
		require.NoError(t, w.Close(Summary{Status: StatusSuccess}, ending), "seed %d", seed)
		if s != nil {
			require.NoError(t, s.Flush())
		}
		require.NotContains(t, out.String(), heldTS, "seed %d", seed)
		es := entries(t, out.Bytes())
		require.Equal(t, w.Entries(), len(es), "seed %d", seed)
		require.Equal(t, int64(out.Len()), w.budget.written, "seed %d", seed)
		if opt.MaxBytes > 0 && !strings.Contains(out.String(), "is over its budget") {
			require.LessOrEqual(t, int64(out.Len()), opt.MaxBytes, "seed %d", seed)
		}
		if es[0]["data"].(map[string]any)["clock"] == ClockSource {
			// Entries held before the first time take the source's, never
			// the conversion's.
			for _, e := range es {
				require.NotEqual(t, "2026-01-02T03:04:05.000Z", e["ts"], "seed %d", seed)
			}
		}
	}
}
