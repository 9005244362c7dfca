package atif

import (
	"sort"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// runOrder is the order in which to convert a trajectory's steps, as
// indexes into all; nil keeps the file's order. Harbor's aggregate of a
// multi-step trial (extra.harbor_multi_step) puts the steps' trajectories
// one after another in the order of their names, not the order they ran;
// extra.step_trajectories gives each one's number of steps, in the file's
// order. The segments are put in the order of their first step's time,
// so that the dialog's first prompt, its times and its span are the run's.
// Counts that do not add up to the steps, or a segment whose first step
// has no time, leave the file's order as it is.
func runOrder(doc jsonraw.Value, all []jsonraw.Value) []int {
	extra := doc.Get("extra")
	if !extra.Get("harbor_multi_step").IsTrue() {
		return nil
	}
	type segment struct {
		from, to int
		start    time.Time
	}
	var segs []segment
	at := 0
	for e := extra.Get("step_trajectories").Elements(); e.Next(); {
		n, ok := e.Value.Get("steps").Int()
		if !ok || n <= 0 || int64(at)+n > int64(len(all)) {
			return nil
		}
		start, ok := adapter.Time(all[at].Get("timestamp"))
		if !ok {
			return nil
		}
		segs = append(segs, segment{from: at, to: at + int(n), start: start})
		at += int(n)
	}
	if at != len(all) || sort.SliceIsSorted(segs, func(i, j int) bool { return segs[i].start.Before(segs[j].start) }) {
		return nil
	}
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].start.Before(segs[j].start) })
	order := make([]int, 0, len(all))
	for _, s := range segs {
		for i := s.from; i < s.to; i++ {
			order = append(order, i)
		}
	}
	return order
}
