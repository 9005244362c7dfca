package claude

import (
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Usage is one usage object's four counters.
type Usage struct {
	input, output, cacheRead, cacheWrite int64
}

// Tokens converts to the dialog's meaning: In counts every prompt token.
func (u Usage) Tokens() dialog.Tokens {
	return dialog.Tokens{
		In:         dialog.AddSat(dialog.AddSat(u.input, u.cacheRead), u.cacheWrite),
		Out:        u.output,
		CacheRead:  u.cacheRead,
		CacheWrite: u.cacheWrite,
	}
}

// Add adds v's counters to u, saturating.
func (u *Usage) Add(v Usage) {
	u.input = dialog.AddSat(u.input, v.input)
	u.output = dialog.AddSat(u.output, v.output)
	u.cacheRead = dialog.AddSat(u.cacheRead, v.cacheRead)
	u.cacheWrite = dialog.AddSat(u.cacheWrite, v.cacheWrite)
}

// MaxOf keeps the larger value of each counter: the lines of one message
// repeat its usage, and later copies (message_delta) may be larger.
func (u *Usage) MaxOf(v Usage) {
	u.input = max(u.input, v.input)
	u.output = max(u.output, v.output)
	u.cacheRead = max(u.cacheRead, v.cacheRead)
	u.cacheWrite = max(u.cacheWrite, v.cacheWrite)
}

// ParseUsage reads an API usage object (snake_case; null counters are 0).
func ParseUsage(raw jsonraw.Value) (u Usage, ok bool) {
	ok = raw.PickInts([]string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"},
		&u.input, &u.output, &u.cacheRead, &u.cacheWrite)
	return u, ok
}

// modelTotal is one model's entry of result.modelUsage.
type modelTotal struct {
	model string
	u     Usage
}

// parseModelUsage reads result.modelUsage (camelCase, keyed by model) into
// dst, reusing its backing array.
func parseModelUsage(dst []modelTotal, raw jsonraw.Value) []modelTotal {
	dst = dst[:0]
	for m := raw.Members(); m.Next(); {
		var u Usage
		m.Value.PickInts([]string{"inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens"},
			&u.input, &u.output, &u.cacheRead, &u.cacheWrite)
		dst = append(dst, modelTotal{model: string(m.Key), u: u})
	}
	return dst
}

func sumModels(ms []modelTotal) dialog.Tokens {
	var t dialog.Tokens
	for _, m := range ms {
		t = t.Plus(m.u.Tokens())
	}
	return t
}

// continues reports whether next can be a later cumulative snapshot of prev
// in the same process: no model gone, no counter smaller.
func continues(prev, next []modelTotal) bool {
	for _, p := range prev {
		found := false
		for _, n := range next {
			if n.model != p.model {
				continue
			}
			found = true
			if n.u.input < p.u.input || n.u.output < p.u.output ||
				n.u.cacheRead < p.u.cacheRead || n.u.cacheWrite < p.u.cacheWrite {
				return false
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// totals accounts for the result events of a stream.
//
// result.modelUsage and total_cost_usd are cumulative over one Claude Code
// process: a process that emits several results (SDK multi-turn, background
// tasks) repeats the running total in each, so only its last result counts.
// One file can also hold several processes (a run and its --resume legs
// concatenated); each starts again from zero, and their totals add up. A
// result starts a new process ("leg") when result_index is 0, when it has
// no result_index and a system/init came after the previous result, or when
// a running total went down. result.usage, used only when no result has
// modelUsage, covers one result's turn and is added up.
type totals struct {
	results int

	base    dialog.Tokens // closed legs, plus results counted from result.usage
	cur     dialog.Tokens // the current leg's latest modelUsage sum
	curMU   []modelTotal  // the current leg's latest modelUsage
	scratch []modelTotal
	haveMU  bool
	haveUse bool

	baseCost, curCost float64
	haveCost          bool

	initSinceResult bool

	// cachedInInput says input_tokens already counts the cache reads
	// (Qwen Code's usage is Gemini's promptTokenCount).
	cachedInInput bool
}

// resultTotals is the part of a result event that totals read.
type resultTotals struct {
	modelUsage, usage jsonraw.Value
	cost              jsonraw.Value // total_cost_usd or cost_usd
	resultIndex       jsonraw.Value
}

func (t *totals) add(r resultTotals) {
	mu := parseModelUsage(t.scratch, r.modelUsage)
	t.scratch = mu
	cost, hasCost := r.cost.Float()

	if t.results > 0 {
		newLeg := t.initSinceResult
		if i, ok := r.resultIndex.Int(); ok {
			newLeg = i == 0
		}
		if len(mu) > 0 && t.haveMU && !continues(t.curMU, mu) {
			newLeg = true
		}
		if hasCost && cost < t.curCost {
			newLeg = true
		}
		if newLeg {
			t.base = t.base.Plus(t.cur)
			t.cur = dialog.Tokens{}
			t.curMU = t.curMU[:0]
			t.baseCost += t.curCost
			t.curCost = 0
		}
	}
	t.results++
	t.initSinceResult = false

	switch {
	case len(mu) > 0:
		t.haveMU = true
		t.cur = sumModels(mu)
		t.curMU = append(t.curMU[:0], mu...)
	default:
		if u, ok := ParseUsage(r.usage); ok {
			if t.cachedInInput {
				u = u.withoutCached()
			}
			t.haveUse = true
			t.base = t.base.Plus(u.Tokens())
		}
	}
	if hasCost {
		t.haveCost = true
		t.curCost = cost
	}
}

// tokens returns the run's total, and false when no result gave any.
func (t *totals) tokens() (dialog.Tokens, bool) {
	if !t.haveMU && !t.haveUse {
		return dialog.Tokens{}, false
	}
	return t.base.Plus(t.cur), true
}

func (t *totals) cost() (float64, bool) {
	return t.baseCost + t.curCost, t.haveCost
}
