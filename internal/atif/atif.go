// Package atif reads Harbor's Agent Trajectory Interchange Format: one
// JSON document per agent run (`trajectory.json`, ATIF-v1.0 to v1.8),
// written after the run for every agent Harbor drives.
//
// A trajectory is not a stream: the whole document is one event. What lies
// beside it in a Harbor trial folder (continuation files, subagent files,
// the trial's result.json) is read by Inputs and handed to the adapter as
// records of its own after the document (see inputs.go), so the adapter
// itself knows only JSON.
package atif

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Agent is init.data.agent when the trajectory names none (agent.name is
// required by the format; a writer outside Harbor may leave it out).
const Agent = "unknown"

// attachmentKey marks the records Inputs adds after the trajectory: the
// trial's result.json, a subagent's file, a file that was named but not
// there. No agent writes it.
const attachmentKey = "sse_atif"

// Format is Harbor's ATIF trajectory.
func Format() adapter.Format {
	return adapter.Format{
		Name:   "atif",
		Title:  "Harbor ATIF trajectory",
		Agent:  Agent,
		Detect: Detect,
		New:    func(w *dialog.Writer) adapter.Adapter { return New(w) },
		Inputs: Inputs,
	}
}

// Detect claims a trajectory document (its schema_version is "ATIF-…")
// and the records Inputs adds beside it; nothing else.
func Detect(ev adapter.Event) adapter.Claim {
	if v := ev.Get("schema_version"); v.IsString() && strings.HasPrefix(string(v.Body()), "ATIF-") {
		return adapter.Yes
	}
	if ev.Get(attachmentKey).IsString() {
		return adapter.Yes
	}
	return adapter.No
}

// Adapter converts one run: its trajectory, continuations and attachments.
type Adapter struct {
	w   *dialog.Writer
	sum dialog.Summary

	docs     int  // trajectory documents read (the first is the run's)
	outcome  bool // result.json was read: the ending is known
	metaDone bool

	// totals are the final_metrics of the run's documents, field by field;
	// steps are the sums of the step metrics, used where final_metrics
	// has no figure.
	totals, summed tally
	// trial is result.json's agent_result: the figures used where the
	// trajectory has none.
	trial tally

	// open are the calls started and not yet ended, in order.
	open []openCall
	// own numbers the ids made for calls whose tool_call_id is empty.
	own int
	// embedded are the v1.7 subagent_trajectories of the document being
	// read, in order, for refs that name them.
	embedded []embeddedSub
	// files are the subagent files Inputs read beside the trajectory, by
	// the path refs name them with (copies: an event's bytes do not
	// outlive it); missing are those named and not there.
	files   map[string][]byte
	missing map[string]bool
	// sidechains are the sidechain steps of the document being read, by
	// the call they are shown under (see planSidechains).
	sidechains map[string][]sidechainStep
	// prompted is set once the task's prompt is written.
	prompted bool
	// call are the tokens of the model call being converted, until a
	// message entry carries them.
	call callTokens

	text jsonraw.Builder
}

// embeddedSub is a subagent trajectory embedded in the document.
type embeddedSub struct {
	id, session string
	doc         jsonraw.Value
	used        bool
}

// openCall is a tool call waiting for its result.
type openCall struct {
	id, name, parent string
}

// callTokens are one model call's tokens, if the step gave them.
type callTokens struct {
	tokens dialog.Tokens
	has    bool
}

// tally is a set of token figures, each with whether any source gave it.
type tally struct {
	in, out, cached, written, cost               float64
	hasIn, hasOut, hasCache, hasWritten, hasCost bool
}

// New returns the adapter for one dialog.
func New(w *dialog.Writer) *Adapter {
	return &Adapter{w: w}
}

// Event handles one record: a trajectory document or an attachment.
func (a *Adapter) Event(ev adapter.Event) error {
	if kind := ev.Get(attachmentKey); kind.IsString() {
		a.attachment(kind.Str(), ev.Value)
		return nil
	}
	if !ev.Get("steps").IsArray() {
		return errNoSteps
	}
	a.docs++
	a.document(ev.Value)
	return nil
}

// errNoSteps is a document that claims ATIF and has no steps.
var errNoSteps = adapterError("an ATIF document without a steps list")

type adapterError string

func (e adapterError) Error() string { return string(e) }

// document converts one trajectory of the run: the run's own, or a
// continuation of it (continued_trajectory_ref), read as more of the same
// run.
func (a *Adapter) document(doc jsonraw.Value) {
	if !a.metaDone {
		a.metaDone = true
		a.w.Meta(dialog.Meta{Model: model(doc), CWD: cwd(doc), Agent: doc.Get("agent").Get("name").Str()})
	}
	a.embedded = a.embedded[:0]
	for e := doc.Get("subagent_trajectories").Elements(); e.Next(); {
		a.embedded = append(a.embedded, embeddedSub{id: e.Value.Get("trajectory_id").Str(), session: e.Value.Get("session_id").Str(), doc: e.Value})
	}
	calls := findRepeats(doc)
	recounted := a.tallyFinal(doc, calls)
	a.steps(doc, "", oldPrompts(doc), calls)
	if recounted != "" {
		a.notice(recounted, "")
	}
	// An embedded subagent no step refers to is shown all the same, under
	// a call of its own.
	for i := range a.embedded {
		if sub := &a.embedded[i]; !sub.used {
			sub.used = true
			id := a.ownID()
			a.w.ToolStart(dialog.ToolCall{ID: id, Name: "subagent"})
			a.notice("subagent trajectory "+quote(sub.id)+" is embedded but no step refers to it", id)
			a.subagent(sub.doc, id)
			a.w.ToolEnd(dialog.ToolResult{ID: id, Output: dialog.Plain("[an embedded subagent trajectory no step refers to]")})
		}
	}
	a.embedded = a.embedded[:0]
	a.sidechains = nil
}

// attachment keeps what Inputs read beside the trajectory.
func (a *Adapter) attachment(kind string, v jsonraw.Value) {
	path := v.Get("path").Str()
	if kind != "unreadable" {
		a.w.Hold() // shown where a step refers to it, or in complete
	}
	switch kind {
	case "subagent":
		if a.files == nil {
			a.files = map[string][]byte{}
		}
		a.files[path] = append([]byte(nil), v.Get("trajectory").Bytes()...)
	case "missing":
		if a.missing == nil {
			a.missing = map[string]bool{}
		}
		a.missing[path] = true
	case "unreadable":
		a.notice(path+" could not be read: "+v.Get("error").Str(), "")
	case "result":
		a.result(v.Get("result"))
	}
}

// result reads a Harbor trial's result.json: how the run ended (an
// exception, a timeout, else success), and its time span.
func (a *Adapter) result(r jsonraw.Value) {
	a.outcome = true
	a.sum.Status, a.sum.Reason, a.sum.Message = dialog.StatusSuccess, "", ""
	if ex := r.Get("exception_info"); ex.IsObject() {
		typ, msg := ex.Get("exception_type").Str(), ex.Get("exception_message").Str()
		a.sum.Status, a.sum.Reason = dialog.StatusError, "agent_exception"
		if typ == "AgentTimeoutError" {
			a.sum.Status, a.sum.Reason = dialog.StatusTimeout, dialog.ReasonTimeout
		}
		a.sum.Message = strings.TrimSpace(typ + ": " + msg)
	}
	if reward, ok := r.Get("verifier_result").Get("rewards").Get("reward").Float(); ok {
		a.sum.Reward, a.sum.HasReward = reward, true
	}
	exec := r.Get("agent_execution")
	start, ok1 := adapter.Time(exec.Get("started_at"))
	end, ok2 := adapter.Time(exec.Get("finished_at"))
	if ok1 && ok2 && !end.Before(start) {
		a.sum.DurationMS, a.sum.HasDuration = end.Sub(start).Milliseconds(), true
	}
	ar := r.Get("agent_result")
	in, hasIn := ar.Get("n_input_tokens").Float()
	out, hasOut := ar.Get("n_output_tokens").Float()
	cached, hasCache := ar.Get("n_cache_tokens").Float()
	cost, hasCost := ar.Get("cost_usd").Float()
	a.trial.add(tally{in: in, out: out, cached: cached, cost: cost, hasIn: hasIn, hasOut: hasOut, hasCache: hasCache, hasCost: hasCost})
}

// oldPrompts reports whether a document's prompt is in cumulative
// prompt_tokens that leave cached tokens out (v1.0 and v1.1).
func oldPrompts(doc jsonraw.Value) bool {
	v := doc.Get("schema_version").Str()
	return v == "ATIF-v1.0" || v == "ATIF-v1.1"
}

// model is agent.model_name, else the first step's model_name.
func model(doc jsonraw.Value) string {
	if m := doc.Get("agent").Get("model_name").Str(); m != "" {
		return m
	}
	for s := doc.Get("steps").Elements(); s.Next(); {
		if m := s.Value.Get("model_name").Str(); m != "" {
			return m
		}
	}
	return ""
}

// cwd is where the producer says the agent ran: claude-code's
// agent.extra.cwds, codex's agent.extra.cwd, a step's extra.cwd.
func cwd(doc jsonraw.Value) string {
	extra := doc.Get("agent").Get("extra")
	for e := extra.Get("cwds").Elements(); e.Next(); {
		if s := e.Value.Str(); s != "" {
			return s
		}
	}
	if s := extra.Get("cwd").Str(); s != "" {
		return s
	}
	for s := doc.Get("steps").Elements(); s.Next(); {
		if c := s.Value.Get("extra").Get("cwd").Str(); c != "" {
			return c
		}
	}
	return ""
}

// tallyFinal keeps the document's final_metrics. A continuation's are the
// whole run's so far (terminus-2's golden: the continued run's final
// figures equal those of the same run summarised in place), so they
// replace the earlier documents'. Where they are the sum of steps that
// repeat one model call's metrics (see repeats.go), the repeats are taken
// out, and the returned notice says so with both figures.
func (a *Adapter) tallyFinal(doc jsonraw.Value, calls callSteps) (recounted string) {
	fm := doc.Get("final_metrics")
	if !fm.IsObject() {
		return ""
	}
	if fm.Get("total_prompt_tokens").Exists() || fm.Get("total_completion_tokens").Exists() {
		a.totals = tally{}
	}
	in, hasIn := fm.Get("total_prompt_tokens").Float()
	cached, hasCache := fm.Get("total_cached_tokens").Float()
	written, hasWritten := fm.Get("extra").Get("total_cache_creation_input_tokens").Float()
	out, hasOut := fm.Get("total_completion_tokens").Float()
	cost, hasCost := fm.Get("total_cost_usd").Float()
	f := tally{in: in, out: out, cached: cached, written: written, cost: cost,
		hasIn: hasIn, hasOut: hasOut, hasCache: hasCache, hasWritten: hasWritten, hasCost: hasCost}
	if calls.inflated(f) {
		once := calls.once(f)
		recounted = countedOnce(f, once, len(calls.repeat))
		f = once
	}
	if f.hasIn {
		f.in = promptIn(f.in, f.cached, f.written, oldPrompts(doc))
	}
	a.totals.add(f)
	return recounted
}

// promptIn is every prompt token, as the dialog counts them, from a
// producer's prompt figure and its cache reads and writes. From v1.2
// prompt_tokens include the cached ones; v1.0 and v1.1 leave them out, and
// so do some later producers (openclaw: cached > prompt tells). Cache
// writes are in prompt_tokens for Claude Code's converter from 2026 on,
// not before (a prompt smaller than reads and writes together tells).
func promptIn(in, cached, written float64, old bool) float64 {
	if old || cached > in {
		in += cached
	}
	if written > 0 && in < cached+written {
		in += written
	}
	return in
}

func (t *tally) add(f tally) {
	if f.hasIn {
		t.in, t.hasIn = t.in+f.in, true
	}
	if f.hasOut {
		t.out, t.hasOut = t.out+f.out, true
	}
	if f.hasCache {
		t.cached, t.hasCache = t.cached+f.cached, true
	}
	if f.hasWritten {
		t.written, t.hasWritten = t.written+f.written, true
	}
	if f.hasCost {
		t.cost, t.hasCost = t.cost+f.cost, true
	}
}

// stepTokens reads a step's metrics as the dialog counts tokens: in is
// every prompt token (cached ones added where the producer left them
// out), out every output token.
func stepTokens(m jsonraw.Value, old bool) (t dialog.Tokens, cost float64, has, hasCost bool) {
	if !m.IsObject() {
		return t, 0, false, false
	}
	in, hasIn := m.Get("prompt_tokens").Int()
	out, hasOut := m.Get("completion_tokens").Int()
	cached, hasCache := m.Get("cached_tokens").Int()
	written, _ := m.Get("extra").Get("cache_creation_input_tokens").Int()
	cached, written = max(cached, 0), max(written, 0)
	if hasIn {
		in = toInt(promptIn(float64(in), float64(cached), float64(written), old))
	}
	t = dialog.Tokens{In: max(in, 0), Out: max(out, 0), CacheRead: cached, CacheWrite: written}
	if r, ok := m.Get("extra").Get("reasoning_tokens").Int(); ok && r > 0 {
		t.Reasoning = r
	}
	cost, hasCost = m.Get("cost_usd").Float()
	return t, cost, hasIn || hasOut || hasCache, hasCost
}

// Summary is what the complete entry says.
func (a *Adapter) Summary() dialog.Summary {
	s := a.sum
	// Each figure from the most authoritative source that has it:
	// final_metrics, else the steps' sum, else the trial's result.json.
	pick := func(final, summed, trial float64, hasFinal, hasSummed, hasTrial bool) (float64, bool) {
		switch {
		case hasFinal:
			return final, true
		case hasSummed:
			return summed, true
		case hasTrial:
			return trial, true
		}
		return 0, false
	}
	in, _ := pick(a.totals.in, a.summed.in, a.trial.in, a.totals.hasIn, a.summed.hasIn, a.trial.hasIn)
	out, _ := pick(a.totals.out, a.summed.out, a.trial.out, a.totals.hasOut, a.summed.hasOut, a.trial.hasOut)
	cached, _ := pick(a.totals.cached, a.summed.cached, a.trial.cached, a.totals.hasCache, a.summed.hasCache, a.trial.hasCache)
	written, _ := pick(a.totals.written, a.summed.written, 0, a.totals.hasWritten, a.summed.hasWritten, false)
	s.Tokens = dialog.Tokens{In: toInt(in), Out: toInt(out), CacheRead: toInt(cached), CacheWrite: toInt(written)}
	s.CostUSD, s.HasCost = pick(a.totals.cost, a.summed.cost, a.trial.cost, a.totals.hasCost, a.summed.hasCost, a.trial.hasCost)
	if !a.outcome && a.docs > 0 && s.Status == "" {
		s.Status, s.Reason = dialog.StatusError, ReasonUnknownEnding
		s.Message = "the trajectory does not record how the run ended (no Harbor result.json beside it)"
	}
	return s
}

// toInt is a token figure as the dialog counts them: whole, not negative,
// saturated.
func toInt(f float64) int64 {
	switch {
	case f != f || f <= 0:
		return 0
	case f >= 1<<62:
		return 1 << 62
	}
	return int64(f)
}

// ReasonUnknownEnding is complete.reason when nothing says how the run
// ended: a trajectory read without its trial's result.json.
const ReasonUnknownEnding = "unknown_ending"

// Finish says which subagent files no step referred to. Calls still open
// are closed by the writer, as for every format.
func (a *Adapter) Finish() {
	for _, path := range slices.Sorted(maps.Keys(a.files)) {
		a.notice("subagent trajectory "+quote(path)+" was read beside the trajectory, but no step refers to it", "")
	}
}

// closeOpen ends, as errors, the open calls which says: a subagent's, whose
// results its trajectory does not hold, before its parent call ends.
func (a *Adapter) closeOpen(which func(openCall) bool) {
	kept := a.open[:0]
	var done []openCall
	for _, c := range a.open {
		if which(c) {
			done = append(done, c)
		} else {
			kept = append(kept, c)
		}
	}
	a.open = kept
	for _, c := range done {
		a.w.ToolEnd(dialog.ToolResult{ID: c.id, Output: dialog.Plain("[the trajectory records no result for this call]"), IsError: true, Parent: c.parent})
	}
}

// notice writes a warning the converter words itself.
func (a *Adapter) notice(s, parent string) {
	a.sum.Warnings++
	a.w.Message(dialog.Message{Content: dialog.Plain(dialog.WarningPrefix + s), Parent: parent})
}

// ownID names a call whose tool_call_id is empty.
func (a *Adapter) ownID() string {
	a.own++
	return "atif-call-" + strconv.Itoa(a.own)
}
