package convert

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ssebench/sse-dialog-convert/internal/inputs"
	"github.com/ssebench/sse-dialog-convert/internal/runstats"
)

// TestRows: the rows come in the runs' order whatever --jobs; none starts
// once the context is done.
func TestRows(t *testing.T) {
	var runs []inputs.Run
	for i := range 20 {
		runs = append(runs, inputs.Run{File: strconv.Itoa(i)})
	}
	row := func(r inputs.Run) runstats.Row { return runstats.Row{File: r.File} }
	for _, jobs := range []int{1, 3, 50} {
		rows := Rows(context.Background(), runs, jobs, row)
		for i, r := range rows {
			assert.Equal(t, strconv.Itoa(i), r.File, "jobs %d", jobs)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var made atomic.Int64
	Rows(ctx, runs, 4, func(r inputs.Run) runstats.Row { made.Add(1); return runstats.Row{} })
	assert.Zero(t, made.Load())
}
