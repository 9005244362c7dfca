// Package dialog knows the SSEBench dialog protocol: the entries of a
// dialog.jsonl and a Writer that cannot write an invalid dialog whatever
// its callers do. Package dialogcheck checks any dialog against the
// contract.
package dialog

import (
	"math"
	"time"
)

// Status is how a dialog ends: one of the three values the web UI knows.
type Status string

// The closed set of complete.status values.
const (
	StatusSuccess Status = "success"
	StatusError   Status = "error"
	StatusTimeout Status = "timeout"
)

// Reasons for an ending, written as complete.reason. Finer than Status, which
// the web UI keeps to three values.
const (
	ReasonIncomplete = "incomplete" // input ended with no terminal event
	ReasonSignal     = "signal"     // the converter was stopped by a signal
	ReasonTimeout    = "timeout"    // run --timeout expired
)

// Meta is what an input stream says about the session, for the init entry.
// Empty fields are left to the fallbacks.
type Meta struct {
	Model string
	CWD   string
	Agent string
}

// Tokens are token counts. In counts every prompt token the model processed
// (uncached, cache reads and cache writes); Out counts output tokens,
// reasoning included. The breakdown fields are extras, written when non-zero.
type Tokens struct {
	In, Out    int64
	CacheRead  int64 // of In, read from cache
	CacheWrite int64 // of In, written to cache
	Reasoning  int64 // of Out, spent on reasoning
}

// Summary is what the complete entry says. Adapters keep it up to date as
// terminal events arrive; the Writer writes it once, at the end.
type Summary struct {
	// Status is empty when the input has shown no ending; the entry then
	// says error with reason incomplete.
	Status  Status
	Message string
	Reason  string
	Turns   int
	// DurationMS is the source's own figure, used when HasDuration is set.
	DurationMS  int64
	HasDuration bool
	Tokens      Tokens
	// CostUSD is written as cost_usd when HasCost is set.
	CostUSD float64
	HasCost bool
	// Warnings counts non-fatal error notices in the stream (retries, warnings).
	Warnings int
	// Reward is a benchmark verifier's score of the run (Harbor's
	// result.json), written as reward when HasReward is set.
	Reward    float64
	HasReward bool
}

// WarningPrefix starts a message entry that shows a warning: a failure
// or notice the protocol has no entry type for (an error event, a retry, a
// call left open). The web UI shows it as the message it is; view and
// export --html mark it.
const WarningPrefix = "⚠ "

// Clock gives the converter's own time, for entries whose source line has no
// timestamp. A pinned clock makes output reproducible.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// FixedClock always says the same time (SOURCE_DATE_EPOCH).
type FixedClock time.Time

// Now returns the pinned time.
func (c FixedClock) Now() time.Time { return time.Time(c) }

// Plus returns the sum of two token counts. Counters saturate at the
// bounds of int64 rather than wrap: two runs of 5e18 tokens are more than
// int64 holds, and a wrapped sum would say they used none.
func (t Tokens) Plus(u Tokens) Tokens {
	return Tokens{
		In:         AddSat(t.In, u.In),
		Out:        AddSat(t.Out, u.Out),
		CacheRead:  AddSat(t.CacheRead, u.CacheRead),
		CacheWrite: AddSat(t.CacheWrite, u.CacheWrite),
		Reasoning:  AddSat(t.Reasoning, u.Reasoning),
	}
}

// AddSat returns a+b, held at math.MaxInt64 or math.MinInt64 when the sum
// does not fit: for totals (tokens, durations) that must never wrap.
func AddSat(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}
