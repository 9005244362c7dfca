package adaptertest

import (
	"io"
	"sync"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Events are lines as the pipeline hands them to an adapter, for
// benchmarks of the adapter alone: the lines that parse as JSON, each one
// event (lines that do not are left out: compare the lengths to require
// them all). size is every line's bytes, a newline each included.
func Events(lines [][]byte) (events []adapter.Event, size int64) {
	for _, l := range lines {
		size += int64(len(l)) + 1
		if v, ok := jsonraw.Parse(l); ok {
			events = append(events, adapter.Event{Value: v})
		}
	}
	return events, size
}

// ConvertEvents writes one dialog of f from events to io.Discard with the
// writer's options opt: the adapter and the writer alone (no framing, no
// checking), as the adapter benchmarks measure them. It fails on an
// event's error.
func ConvertEvents(tb testing.TB, f adapter.Format, opt dialog.Options, events []adapter.Event) {
	w := dialog.NewWriter(io.Discard, opt)
	a := f.Start(w)
	for _, ev := range events {
		w.BeginLine()
		if err := a.Event(ev); err != nil {
			tb.Fatal(err)
		}
	}
	if fin, ok := a.(adapter.Finisher); ok {
		w.BeginLine()
		fin.Finish()
	}
	if err := w.Close(a.Summary(), nil); err != nil {
		tb.Fatal(err)
	}
}

// Once is build done once per test binary (benchmark inputs cost more to
// build than a round of conversion), for each caller: a caller fails at
// once on the build's error.
func Once[T any](build func() (T, error)) func(testing.TB) T {
	built := sync.OnceValues(build)
	return func(tb testing.TB) T {
		tb.Helper()
		v, err := built()
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}
}
