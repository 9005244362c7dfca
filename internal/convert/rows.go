package convert

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/ssebench/sse-dialog-convert/internal/inputs"
	"github.com/ssebench/sse-dialog-convert/internal/runstats"
)

// Rows reads the runs, jobs at a time, and returns their rows in order:
// row makes one. None starts once ctx is done.
func Rows(ctx context.Context, runs []inputs.Run, jobs int, row func(inputs.Run) runstats.Row) []runstats.Row {
	rows := make([]runstats.Row, len(runs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(jobs, len(runs))) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(runs) || ctx.Err() != nil {
					return
				}
				rows[i] = row(runs[i])
			}
		})
	}
	wg.Wait()
	return rows
}
