// Package opencode converts opencode's output into dialog entries. It reads
// both of opencode's event streams:
//
//   - `opencode run --format json`: one line per finished part of the run's
//     session ({type, timestamp, sessionID, part}: step_start, text,
//     reasoning, tool_use, step_finish), error lines and, in newer
//     versions, a closing done line;
//   - the event bus of `opencode serve` (GET /event, Server-Sent Events;
//     the framing layer hands over each data: payload): {type, properties}
//     events with dotted types, where parts grow by updates and deltas and
//     the session's idle status ends the run.
//
// A part has the same shape in both, so both are converted by the same
// code; a line is read by its own shape, not by a mode.
package opencode

import (
	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Agent is the init.data.agent value for this format.
const Agent = "opencode"

// reasonInterrupted is complete.reason when the session was aborted
// (MessageAbortedError), as for Claude Code's aborted runs.
const reasonInterrupted = "interrupted"

// Format is opencode's JSON output, both streams.
func Format() adapter.Format {
	return adapter.Format{
		Name:          "opencode",
		Title:         "opencode output (`run --format json`, or the `serve` event bus)",
		Agent:         Agent,
		Detect:        Detect,
		New:           func(w *dialog.Writer) adapter.Adapter { return New(w) },
		Commands:      []string{"opencode"},
		ModelFromArgs: modelFromArgs,
	}
}

// Detect says whether an event is opencode's: run --format json events
// carry a sessionID and their part (error and done lines have no part);
// the serve bus's events have dotted types and their data in properties.
// Codex's events are dotted too, but have no properties, and Codex claims
// nothing with a sessionID or a part.
func Detect(ev adapter.Event) adapter.Claim {
	var typ, part, session, properties jsonraw.Value
	ev.Pick([]string{"type", "part", "sessionID", "properties"}, &typ, &part, &session, &properties)
	switch {
	case !typ.IsString():
		return adapter.No
	case session.Exists() && (part.IsObject() || typ.Is("error") || typ.Is("done")):
		return adapter.Yes
	case properties.IsObject():
		for _, b := range typ.Body() {
			if b == '.' {
				return adapter.Yes
			}
		}
	}
	return adapter.No
}

// Adapter holds the state of one opencode stream. What it keeps is bounded
// by what is open: parts still growing, tool calls not ended, subagent
// sessions whose task call runs, and two small rings of recent ids.
type Adapter struct {
	w   *dialog.Writer
	sum dialog.Summary

	// root is the session the dialog is about: the run's sessionID, or on
	// the bus the first session seen that is no other's child.
	root string
	// active is set while the root session works (bus: busy, or any of its
	// parts) and no idle has ended it.
	active bool
	// failed holds an error that nothing has followed yet: the run's
	// failure if the input ends there, a warning once the run goes on.
	failed              bool
	failMsg, failReason string
	// limitReason and limitMsg say why the root's last step stopped, when
	// a limit stopped it (see stepEnd); work after it clears them.
	limitReason, limitMsg string
	steps, countedStep    int // root steps begun; the last one counted as a turn
	parts                 openParts
	flushing              []*openPart // reused by flushParts
	calls                 map[string]*openCall
	children              map[string]*child
	order                 int  // calls started so far
	finished, userMsgs    ring // ids of parts and calls already ended; user messages
	model, cwd            string
	metaDone, modelKnown  bool
	skipped               int

	text jsonraw.Builder // warnings and error results, reused
}

// openPart is a text or reasoning part of the bus that is not final yet:
// its text so far (the latest whole text an update gave, and the deltas
// after it), copied.
type openPart struct {
	id, message, session string
	reasoning            bool
	text                 jsonraw.Builder
	empty                bool // nothing in text yet
	gone                 bool // taken out of the open parts (see partList)
}

// openCall is a tool call started in the dialog and not yet ended.
type openCall struct {
	id, name, session string
	child             string // a task call's subagent session
	order             int
}

// child is a subagent's session: the session that made it and the task
// call that runs it (empty until known).
type child struct {
	parent, tool string
}

// ring remembers the last few ids of something, so that an update that
// repeats a finished part is not written twice, without keeping every id.
type ring struct {
	ids  [32]string
	next int
}

func (r *ring) add(id string) {
	if id == "" {
		return
	}
	r.ids[r.next%len(r.ids)] = id
	r.next++
}

func (r *ring) has(id []byte) bool {
	if len(id) == 0 {
		return false
	}
	for _, s := range r.ids {
		if s == string(id) {
			return true
		}
	}
	return false
}

// New returns an Adapter writing to w.
func New(w *dialog.Writer) *Adapter {
	w.SetAgent(Agent)
	return &Adapter{
		w:           w,
		calls:       make(map[string]*openCall),
		children:    make(map[string]*child),
		countedStep: -1,
	}
}

// Summary returns what the complete entry should say.
func (a *Adapter) Summary() dialog.Summary {
	s := a.sum
	if a.failed {
		s.Status, s.Message, s.Reason = dialog.StatusError, a.failMsg, a.failReason
	}
	return s
}

// Skipped returns how many bus events of types this converter does not
// know were skipped (those it knows to carry nothing for the dialog, such
// as plugin.added or server.heartbeat, are not counted).
func (a *Adapter) Skipped() int { return a.skipped }

// Event handles one event of either stream.
func (a *Adapter) Event(ev adapter.Event) error {
	var typ, ts, session, errv, rejected jsonraw.Value
	var p part
	var pr props
	hasPart, hasProps := false, false
	for f := ev.Members(); f.Next(); {
		switch string(f.Key) {
		case "part":
			if f.Value.IsObject() {
				p = readPart(f.Value)
				hasPart = true
			}
		case "properties":
			if f.Value.IsObject() {
				pr = readProps(f.Value)
				hasProps = true
			}
		case "type":
			typ = f.Value
		case "timestamp":
			ts = f.Value
		case "sessionID":
			session = f.Value
		case "error":
			errv = f.Value
		case "rejected":
			rejected = f.Value
		}
	}
	if hasProps {
		a.bus(string(typ.Body()), &pr)
		return nil
	}
	a.runLine(typ, ts, session, &p, hasPart, errv, rejected)
	return nil
}

// runLine handles a line of `opencode run --format json`. Every line names
// the run's session; a part of another session would be a subagent's
// (opencode prints none: it filters parts by the run's session).
func (a *Adapter) runLine(typ, ts, session jsonraw.Value, p *part, hasPart bool, errv, rejected jsonraw.Value) {
	if s := session.Body(); len(s) > 0 && string(s) != a.root {
		a.root = string(s)
	}
	a.meta()
	sourceTime := func() {
		if t, ok := adapter.Time(ts); ok {
			a.w.SourceTime(t)
		}
	}
	switch string(typ.Body()) {
	case "error":
		sourceTime()
		a.fail(errv)
		return
	case "done":
		sourceTime()
		a.done(rejected)
		return
	}
	if !hasPart {
		sourceTime()
		a.skipped++ // a run line this converter does not know
		a.w.Skip("", dialog.SkipUnknown)
		return
	}
	sess := p.session.Body()
	root := len(sess) == 0 || string(sess) == a.root
	if root {
		a.activity() // a warning it writes has the time of the error
	}
	sourceTime()
	parent := a.parentOf(sess)
	switch string(typ.Body()) {
	case "step_start":
		if root {
			a.steps++
		}
	case "step_finish":
		a.stepFinish(p)
		if root {
			// The agent's loop ends with a step that did not stop for tool
			// calls: 1.18 prints nothing after it, newer versions a done line.
			switch a.stepEnd(p) {
			case "tool-calls", "unknown":
			default:
				a.succeed()
			}
		}
	case "text", "reasoning":
		a.textPart(p, parent, root, true)
	case "tool_use":
		a.toolPart(p, sess, parent, root)
	default:
		a.skipped++
		a.w.Skip("", dialog.SkipUnknown)
	}
}

// done is the newer run's closing line ({reason: "idle", rejected: [...]}):
// success unless an error was the last thing before it. Permissions
// opencode refused on its own (no --auto) are worth a warning.
func (a *Adapter) done(rejected jsonraw.Value) {
	first := true
	for e := rejected.Elements(); e.Next(); {
		if !e.Value.IsString() {
			continue
		}
		if first {
			a.text.Reset()
			a.text.Text(dialog.WarningPrefix + "permission requests were rejected: ")
			first = false
		} else {
			a.text.Text(", ")
		}
		a.text.Lit(e.Value.Lit())
	}
	if !first {
		a.sum.Warnings++
		a.w.Message(dialog.Message{Content: dialog.Lit(a.text.Literal())})
	}
	a.succeed()
	a.active = false
}

// meta gives the writer what the stream says about the session, once,
// before the first entry (and, live, as soon as the model is known).
func (a *Adapter) meta() {
	if a.metaDone {
		return
	}
	a.metaDone = true
	a.w.Meta(dialog.Meta{Model: a.model, CWD: a.cwd, Agent: Agent})
}

// activity marks work of the root session: an error before it was not
// the end of the run, and is kept as a warning; an ending before it is no
// longer the ending.
func (a *Adapter) activity() {
	if a.failed {
		a.failed = false
		a.warning(a.failMsg, "")
	}
	a.sum.Status, a.sum.Message, a.sum.Reason = "", "", ""
	a.limitReason, a.limitMsg = "", ""
	a.active = true
}

// Reasons written as complete.reason when the root's last step stopped
// at a limit of the model's (step_finish reason), as Claude's stop_reason
// values name them.
const (
	reasonMaxTokens = "max_tokens" // reason "length": the output-token cap
	reasonRefusal   = "refusal"    // reason "content-filter"
)

// stepEnd notes how a step of the root session ended, and returns its
// reason: a step cut at the output-token cap (a real run wrote 98 KB of
// repeated text and stopped there) or by the content filter is the run's
// ending, unless work follows it.
func (a *Adapter) stepEnd(p *part) string {
	reason := string(p.reason.Body())
	switch reason {
	case "length":
		a.limitReason, a.limitMsg = reasonMaxTokens, "the model's answer stopped at its output-token limit (step_finish reason \"length\")"
	case "content-filter":
		a.limitReason, a.limitMsg = reasonRefusal, "the model's answer was stopped by its content filter (step_finish reason \"content-filter\")"
	}
	return reason
}

// succeed ends the run, unless an error was the last thing in it; a last
// step cut at a limit ends it in error.
func (a *Adapter) succeed() {
	switch {
	case a.failed:
	case a.limitReason != "":
		a.sum.Status, a.sum.Message, a.sum.Reason = dialog.StatusError, a.limitMsg, a.limitReason
	default:
		a.sum.Status = dialog.StatusSuccess
	}
}

// fail records an error of the root session ({name, data: {message}}): the
// failure unless the run goes on.
func (a *Adapter) fail(errv jsonraw.Value) {
	a.meta()
	if a.failed { // two in a row: the first one is history
		a.warning(a.failMsg, "")
	}
	a.failed = true
	a.failMsg = a.errorText(errv).String()
	a.failReason = ""
	if errorName(errv) == "MessageAbortedError" {
		a.failReason = reasonInterrupted
	}
	a.sum.Status, a.sum.Message, a.sum.Reason = "", "", ""
}

// warning shows a non-fatal error.
func (a *Adapter) warning(msg, parent string) {
	a.meta()
	a.sum.Warnings++
	a.w.Message(dialog.Message{Content: dialog.Plain(dialog.WarningPrefix + msg), Parent: parent})
}

// errorName is an error object's name.
func errorName(errv jsonraw.Value) string {
	return errv.Get("name").Str()
}

// errorText words an error object as "Name: message" (data.message, else
// message), or as much of that as it has. It is borrowed from a.text.
func (a *Adapter) errorText(errv jsonraw.Value) dialog.Text {
	if errv.IsString() {
		return dialog.Lit(errv.Lit())
	}
	var name, msg jsonraw.Value
	for f := errv.Members(); f.Next(); {
		switch string(f.Key) {
		case "name":
			name = f.Value
		case "message":
			if !msg.IsString() {
				msg = f.Value
			}
		case "data":
			if m := f.Value.Get("message"); m.IsString() {
				msg = m
			}
		}
	}
	a.text.Reset()
	if l := name.Lit(); name.IsString() && !l.IsEmpty() {
		a.text.Lit(l)
		if msg.IsString() && !msg.Lit().IsEmpty() {
			a.text.Text(": ")
		}
	}
	if msg.IsString() {
		a.text.Lit(msg.Lit())
	}
	if len(a.text.Body()) == 0 {
		a.text.Text("error")
	}
	return dialog.Lit(a.text.Literal())
}

// turn counts a turn for the root's current step, once: a step is one
// model response, and counts when it produced output.
func (a *Adapter) turn(root bool) {
	if root && a.countedStep != a.steps {
		a.countedStep = a.steps
		a.sum.Turns++
	}
}

// stepFinish adds a step's tokens and cost to the totals: every step of
// every session (a subagent's steps are spent by the run too).
func (a *Adapter) stepFinish(p *part) {
	if a.finished.has(p.id.Body()) {
		return
	}
	a.finished.add(p.id.Str())
	var in, out, reasoning, read, write int64
	for f := p.tokens.Members(); f.Next(); {
		n, _ := f.Value.Int()
		switch string(f.Key) {
		case "input":
			in = n
		case "output":
			out = n
		case "reasoning":
			reasoning = n
		case "cache":
			f.Value.PickInts([]string{"read", "write"}, &read, &write)
		}
	}
	a.sum.Tokens = a.sum.Tokens.Plus(dialog.Tokens{
		In:  dialog.AddSat(in, dialog.AddSat(read, write)),
		Out: dialog.AddSat(out, reasoning), CacheRead: read, CacheWrite: write, Reasoning: reasoning,
	})
	if c, ok := p.cost.Float(); ok {
		a.sum.CostUSD += c
		a.sum.HasCost = true
	}
}

// parentOf is the tool id a session's entries carry as parent_tool_id: the
// task call that runs it; "" for the root session and sessions of no
// known call.
func (a *Adapter) parentOf(session []byte) string {
	if len(session) == 0 || string(session) == a.root {
		return ""
	}
	c := a.children[string(session)]
	if c == nil {
		return ""
	}
	if c.tool == "" {
		c.tool = a.taskFor(string(session), c.parent)
	}
	return c.tool
}

// taskFor finds the task call that runs a subagent session when the call
// did not name it: the latest open task call of the parent session that
// runs no other session.
func (a *Adapter) taskFor(session, parent string) string {
	var best *openCall
	for _, c := range a.calls {
		if c.name == "task" && c.session == parent && c.child == "" && (best == nil || c.order > best.order) {
			best = c
		}
	}
	if best == nil {
		return ""
	}
	best.child = session
	return best.id
}
