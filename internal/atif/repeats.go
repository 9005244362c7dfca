package atif

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Harbor's Claude Code converter, before it wrote one step per API message
// (ATIF below v1.7), made a step of each line of Claude Code's log, and
// Claude Code writes one line per content block of a message, each with
// the whole message's usage: a text block, then each tool_use block as a
// step whose message is the placeholder "Executed <Tool> <id>", all with
// the same metrics. Its final_metrics are the sum over those steps, so a
// message's tokens are counted once per block.
//
// The rule, from what the file says: an agent step repeats the model call
// of the agent step just before it in the file when
//   - the trajectory is Claude Code's (agent.name "claude-code") below
//     ATIF-v1.7;
//   - both are in the same thread (extra.is_sidechain alike), with no user
//     or system step between them;
//   - their metrics are the same, byte for byte;
//   - and the step is a later block of one message: a tool_use block (one
//     call, the converter's placeholder as its message), or any step after
//     one that has no text of its own (a thinking block, then its text).
//
// A later call of one thread re-reads the earlier call's output, so its
// prompt is larger: equal metrics on adjacent steps of a thread are one
// call. A step with text after a step with text, a step after a user step
// or in another thread is a call of its own, whatever it cost.

// SkipRepeatedMetrics is the reason a repeated step's metrics are not
// counted: the step is shown, its call's tokens were counted before.
const SkipRepeatedMetrics = "metrics repeated from the step before: one model call"

// callSteps are what a trajectory's steps say of its model calls.
type callSteps struct {
	// repeat marks, by index in steps, the steps that repeat the call
	// of the step before.
	repeat map[int]bool
	// all are the steps' metrics as written (repeats included), repeated
	// the repeats' alone: prompt_tokens, completion_tokens,
	// cached_tokens, cache writes and cost, none adjusted.
	all, repeated tally
}

// splitsMessages reports whether a trajectory is Claude Code's from
// before one step per API message (v1.7).
func splitsMessages(doc jsonraw.Value) bool {
	if doc.Get("agent").Get("name").Str() != "claude-code" {
		return false
	}
	minor, ok := strings.CutPrefix(doc.Get("schema_version").Str(), "ATIF-v1.")
	n, err := strconv.Atoi(minor)
	return ok && err == nil && n < 7
}

// findRepeats finds the steps that repeat a model call (see the rule
// above), in file order; none in a trajectory of another producer.
func findRepeats(doc jsonraw.Value) callSteps {
	var cs callSteps
	if !splitsMessages(doc) {
		return cs
	}
	var prev jsonraw.Value // the agent step before, if the step before is one
	i := -1
	for s := doc.Get("steps").Elements(); s.Next(); {
		i++
		step := s.Value
		if !step.Get("source").Is("agent") || step.Get("is_copied_context").IsTrue() {
			prev = jsonraw.Value{}
			continue
		}
		raw := rawMetrics(step.Get("metrics"))
		cs.all.add(raw)
		if prev.Exists() && sameCall(prev, step) {
			if cs.repeat == nil {
				cs.repeat = map[int]bool{}
			}
			cs.repeat[i] = true
			cs.repeated.add(raw)
		}
		prev = step
	}
	return cs
}

// sameCall reports whether step is a later block of prev's message.
func sameCall(prev, step jsonraw.Value) bool {
	m := step.Get("metrics")
	if !m.IsObject() || !bytes.Equal(m.Bytes(), prev.Get("metrics").Bytes()) {
		return false
	}
	if isSidechain(prev) != isSidechain(step) {
		return false
	}
	return toolUseBlock(step) || noText(prev)
}

func isSidechain(step jsonraw.Value) bool {
	return adapter.FailureFlag(step.Get("extra").Get("is_sidechain"))
}

// toolUseBlock reports whether step is the converter's step of one
// tool_use block: one call, and "Executed <function_name> <tool_call_id>"
// as its message.
func toolUseBlock(step jsonraw.Value) bool {
	calls := step.Get("tool_calls").Elements()
	if !calls.Next() {
		return false
	}
	call := calls.Value
	if calls.Next() {
		return false
	}
	return step.Get("message").Str() == "Executed "+call.Get("function_name").Str()+" "+call.Get("tool_call_id").Str()
}

// noText reports whether a step has neither text nor calls of its own (a
// thinking block's step).
func noText(step jsonraw.Value) bool {
	m := step.Get("message")
	return (!m.Exists() || m.IsString() && strings.TrimSpace(m.Str()) == "") && !step.Get("tool_calls").Elements().Next()
}

// rawMetrics are a step's metrics as written.
func rawMetrics(m jsonraw.Value) tally {
	in, hasIn := m.Get("prompt_tokens").Float()
	out, hasOut := m.Get("completion_tokens").Float()
	cached, hasCache := m.Get("cached_tokens").Float()
	written, hasWritten := m.Get("extra").Get("cache_creation_input_tokens").Float()
	cost, hasCost := m.Get("cost_usd").Float()
	return tally{in: in, out: out, cached: cached, written: written, cost: cost,
		hasIn: hasIn, hasOut: hasOut, hasCache: hasCache, hasWritten: hasWritten, hasCost: hasCost}
}

// inflated reports whether final_metrics are the sum of every step's
// metrics, repeats included (Harbor's converter summed its steps): then
// prompt and completion figures equal those sums, and repeats exist.
func (cs callSteps) inflated(final tally) bool {
	return len(cs.repeat) > 0 && final.hasIn && final.hasOut && cs.all.hasIn && cs.all.hasOut &&
		final.in == cs.all.in && final.out == cs.all.out
}

// once is final with the repeats taken out of each figure that is the
// sum of every step's (a figure of another source is kept).
func (cs callSteps) once(final tally) tally {
	sub := func(f, all, rep float64, has, hasAll bool) float64 {
		if has && hasAll && f == all {
			return f - rep
		}
		return f
	}
	final.in = sub(final.in, cs.all.in, cs.repeated.in, final.hasIn, cs.all.hasIn)
	final.out = sub(final.out, cs.all.out, cs.repeated.out, final.hasOut, cs.all.hasOut)
	final.cached = sub(final.cached, cs.all.cached, cs.repeated.cached, final.hasCache, cs.all.hasCache)
	final.written = sub(final.written, cs.all.written, cs.repeated.written, final.hasWritten, cs.all.hasWritten)
	final.cost = sub(final.cost, cs.all.cost, cs.repeated.cost, final.hasCost, cs.all.hasCost)
	return final
}

// countedOnce is the notice that says complete's totals are not the
// trajectory's final_metrics, and both figures.
func countedOnce(final, once tally, repeats int) string {
	n := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	return "final_metrics say " + n(final.in) + " prompt and " + n(final.out) + " completion tokens, the sum over all steps; " +
		"but Claude Code's converter repeats a model call's metrics on each step of its message (" + strconv.Itoa(repeats) +
		" steps here repeat the step before), so total_tokens counts each call once: " + n(once.in) + " prompt and " + n(once.out) + " completion tokens"
}
