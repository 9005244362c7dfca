// Package geminisession converts the chat files Gemini CLI keeps
// (~/.gemini/tmp/<project>/chats/session-*.jsonl, 0.4x on; a subagent's
// chat in chats/<session id>/<agent id>.jsonl) into dialog entries.
//
// The file is a log of the CLI's record of the conversation:
//
//   - a header {sessionId, projectHash, startTime, kind};
//   - message records {id, timestamp, type, content, …}; a message is
//     written again, whole, each time it changes (tokens added, tool calls
//     added, their results): the same id, more in it;
//   - {"$set": {…}} metadata updates; one that sets "messages" replaces the
//     conversation wholesale (the session context at the start, the
//     client's history after a failed request or a compression);
//   - {"$rewindTo": id}: the conversation from that message on is dropped.
//
// Rules where the file leaves a choice (listed in the README):
//   - Each message id is written once; a record of an id already seen
//     writes only what is new in it: more thoughts, a text that grew, tool
//     calls not started, results of calls still open.
//   - A "$set" of messages writes no text: what it restates was written
//     when it was said, and what it adds (a compression summary, the
//     client's synthetic turns) was never said. Results of calls still
//     open are taken from it; its last message is where the conversation
//     now stands, for the ending.
//   - A call's status is its own status field: "success" is a success,
//     any other final status (error, cancelled, or a value of another type)
//     an error; a call still scheduled or executing stays open.
package geminisession

import (
	"errors"
	"hash/maphash"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Agent is the init.data.agent value for this format.
const Agent = "gemini-cli"

// typeSubagent is the type of the envelope in which OpenSession passes a
// subagent's record (line) or the start of its call (no line), with the
// id of the call that ran it.
const typeSubagent = "gemini-session-subagent"

// Format is Gemini CLI's chat files.
func Format() adapter.Format {
	return adapter.Format{
		Name:   "gemini-session",
		Title:  "a Gemini CLI chat file (~/.gemini/tmp)",
		Agent:  Agent,
		Detect: Detect,
		New:    func(w *dialog.Writer) adapter.Adapter { return New(w) },
		Inputs: Inputs,
	}
}

// Detect says whether a line is of a Gemini CLI chat file: its header
// (sessionId with projectHash), a model message (type "gemini" with an
// id), a rewind, or this package's own envelope. A "$set" update is only
// a Maybe; user messages ({id, timestamp, type: user, content}) are
// claimed by no one.
func Detect(ev adapter.Event) adapter.Claim {
	var session, project, id, set, rewind, line bool
	var typ jsonraw.Value
	for m := ev.Members(); m.Next(); {
		switch string(m.Key) {
		case "sessionId":
			session = true
		case "projectHash":
			project = true
		case "id":
			id = m.Value.IsString()
		case "type":
			typ = m.Value
		case "$set":
			set = m.Value.IsObject()
		case "$rewindTo":
			rewind = m.Value.IsString()
		case "line", "callId":
			line = true
		}
	}
	switch {
	case session && project, rewind, id && typ.Is("gemini"), line && typ.Is(typeSubagent):
		return adapter.Yes
	case set:
		return adapter.Maybe
	}
	return adapter.No
}

// message is what the adapter remembers of one message id.
type message struct {
	thoughts int  // thoughts written
	tokens   bool // its tokens counted
	output   bool // counted as a turn
	// text is the body of the text written (a literal's, escapes kept),
	// kept for the last message of its thread only: a later record of it
	// may have more.
	text []byte
}

// tool is a call started and not yet ended.
type tool struct {
	name   string
	parent string
}

// last is where the main conversation stands, for the ending.
type last uint8

const (
	lastNone   last = iota // nothing yet, or a user turn without an answer
	lastAnswer             // a model message with no tool call
	lastCalls              // a model message with tool calls
	lastError              // an error record
	lastDone               // a subagent's complete_task call, succeeded
)

// held is a prompt or a warning kept until init can say the model: its
// literal (copied) and the time of its record.
type held struct {
	lit  []byte
	ts   time.Time
	warn bool
}

// Adapter holds the state of one chat file.
type Adapter struct {
	w *dialog.Writer

	seed  maphash.Seed
	msgs  map[uint64]*message
	lastM [2]*message // the last message of the main thread and of subagents

	open   map[string]tool
	closed map[uint64]struct{}

	model    string
	cwd      string
	metaDone bool
	waiting  []held // prompts and warnings before the model is known
	prompted bool
	lineTS   time.Time // the current record's time, if it has one

	state    last
	finished bool // a complete_task call of this thread succeeded
	errMsg   string
	turns    int
	warnings int
	tokens   dialog.Tokens

	text jsonraw.Builder
	out  jsonraw.Builder
}

// New returns an Adapter writing to w.
func New(w *dialog.Writer) *Adapter {
	w.SetAgent(Agent)
	return &Adapter{
		w:      w,
		seed:   maphash.MakeSeed(),
		msgs:   make(map[uint64]*message),
		open:   make(map[string]tool),
		closed: make(map[uint64]struct{}),
	}
}

var errNoLine = errors.New("subagent envelope with a line that is not an object")

// Event handles one record.
func (a *Adapter) Event(ev adapter.Event) error {
	var typ, set, id, callID, line jsonraw.Value
	var hasLine, rewind bool
	for m := ev.Members(); m.Next(); {
		switch string(m.Key) {
		case "type":
			typ = m.Value
		case "$set":
			set = m.Value
		case "id":
			id = m.Value
		case "$rewindTo":
			rewind = true
		case "callId":
			callID = m.Value
		case "line":
			line, hasLine = m.Value, true
		}
	}
	switch {
	case typ.Is(typeSubagent):
		parent := callID.Str()
		if !hasLine {
			a.startSubagent(parent, ev.Value)
			return nil
		}
		if !line.IsObject() {
			return errNoLine
		}
		if line.Get("id").IsString() {
			a.record(line, parent)
		} else {
			a.w.Skip("", dialog.SkipNoContent)
		}
	case set.IsObject():
		a.directories(set.Get("directories"))
		if msgs := set.Get("messages"); msgs.IsArray() {
			a.restate(msgs)
		}
	case rewind:
		a.notice("the conversation was rewound: the messages after this point replace the ones above")
		a.state = lastNone
	case id.IsString():
		a.record(ev.Value, "")
	case ev.Get("messages").IsArray():
		a.w.Skip("", SkipDocument)
	default:
		a.directories(ev.Get("directories")) // the header's (a subagent's)
	}
	return nil
}

// The reasons the adapter gives dialog.Writer.Skip, beside the common ones.
const (
	// SkipDocument: a whole chat document (session-*.json of Gemini CLI
	// before 0.61) read as one record of the .jsonl format: not read.
	SkipDocument  = "whole chat document (.json), not read"
	SkipSubagent  = "subagent's task text (its call's args)" // a subagent's user message
	SkipInjected  = "Gemini CLI's own context"               // <session_context> and the like
	SkipNoNewText = "written again, nothing new"             // a model message restated with nothing added
	// SkipResponses: a user message with no text: the tool responses sent
	// back to the model, shown with their calls.
	SkipResponses = "no user text (tool responses)"
)

// directories takes the cwd from the first workspace directory the file
// names, until init is written.
func (a *Adapter) directories(dirs jsonraw.Value) {
	if a.cwd != "" || a.metaDone {
		return
	}
	for e := dirs.Elements(); e.Next(); {
		a.cwd = e.Value.Str()
		return
	}
}

// startSubagent starts the call that runs a subagent, before its records.
func (a *Adapter) startSubagent(id string, ev jsonraw.Value) {
	if id == "" || a.isClosed(id) {
		return
	}
	if _, ok := a.open[id]; ok {
		return
	}
	a.ensureMeta()
	name := ev.Get("name").Str()
	a.open[id] = tool{name: name}
	a.w.ToolStart(dialog.ToolCall{ID: id, Name: name, Args: ev.Get("args")})
}

// record handles one message record; parent is the subagent's call, for a
// record of a subagent's file.
func (a *Adapter) record(v jsonraw.Value, parent string) {
	var id, ts, typ, content, thoughts, tokens, model, calls jsonraw.Value
	for m := v.Members(); m.Next(); {
		switch string(m.Key) {
		case "id":
			id = m.Value
		case "timestamp":
			ts = m.Value
		case "type":
			typ = m.Value
		case "content":
			content = m.Value
		case "thoughts":
			thoughts = m.Value
		case "tokens":
			tokens = m.Value
		case "model":
			model = m.Value
		case "toolCalls":
			calls = m.Value
		}
	}
	if t, ok := adapter.Time(ts); ok {
		a.w.SourceTime(t)
		a.lineTS = t
	}
	thread := 0
	if parent != "" {
		thread = 1
	}
	k := maphash.Bytes(a.seed, id.Body())
	msg, seen := a.msgs[k]
	if !seen {
		msg = &message{}
		a.msgs[k] = msg
	}
	if a.lastM[thread] != msg {
		if prev := a.lastM[thread]; prev != nil {
			prev.text = nil // no later record of it is expected to grow it
		}
		a.lastM[thread] = msg
	}
	switch string(typ.Body()) {
	case "user":
		a.user(content, seen, parent)
	case "gemini":
		if a.model == "" && parent == "" {
			a.model = model.Str()
		}
		a.gemini(msg, content, thoughts, tokens, calls, parent)
	case "error", "warning":
		if !seen {
			a.warning(content, parent)
			if parent == "" && typ.Is("error") {
				a.state = lastError
				a.errMsg = a.textOf(content).String()
			}
		} else {
			a.w.Skip("", dialog.SkipDuplicate)
		}
	default:
		a.w.Skip("", dialog.SkipUnknown)
	}
}

// user handles a user message: the user's turn, or the results of tool
// calls (functionResponse parts) sent back to the model.
func (a *Adapter) user(content jsonraw.Value, seen bool, parent string) {
	a.responses(content)
	if seen || parent != "" {
		// A subagent's user text is the task its call was given (the
		// call's args): not the user's.
		if seen {
			a.w.Skip("", dialog.SkipDuplicate)
		} else {
			a.w.Skip("", SkipSubagent)
		}
		return
	}
	l := a.textOf(content)
	if l.IsEmpty() {
		a.w.Skip("", SkipResponses)
		return
	}
	if injected(l.Body()) {
		a.w.Skip("", SkipInjected)
		return
	}
	a.state = lastNone
	a.prompt(l)
}

// injectedPrefixes start the user texts Gemini CLI adds itself (its
// isIgnoredUserContent).
var injectedPrefixes = []string{"<session_context>", "<hook_context>"}

func injected(body []byte) bool {
	for len(body) > 0 && (body[0] == ' ' || body[0] == '\\' && len(body) > 1 && (body[1] == 'n' || body[1] == 't' || body[1] == 'r')) {
		if body[0] == ' ' {
			body = body[1:]
		} else {
			body = body[2:]
		}
	}
	for _, p := range injectedPrefixes {
		if len(body) >= len(p) && string(body[:len(p)]) == p {
			return true
		}
	}
	return false
}

// prompt writes a user turn, or holds it until init can name the model.
func (a *Adapter) prompt(l jsonraw.Literal) {
	if !a.metaDone {
		a.waiting = append(a.waiting, held{lit: append([]byte(nil), l.Bytes()...), ts: a.lineTS})
		a.w.Hold()
		return
	}
	a.writePrompt(dialog.Lit(l))
}

func (a *Adapter) writePrompt(t dialog.Text) {
	if !a.prompted {
		a.prompted = true
		a.w.StreamPrompt(t)
		return
	}
	a.w.UserPrompt(t)
}

// ensureMeta writes init, once, with the model the file has named so far,
// then the prompts that waited for it.
func (a *Adapter) ensureMeta() {
	if a.metaDone {
		return
	}
	a.metaDone = true
	if len(a.waiting) > 0 && !a.waiting[0].ts.IsZero() {
		// init takes the time of the first turn, not of the record that
		// named the model.
		a.w.SourceTime(a.waiting[0].ts)
	}
	a.w.Meta(dialog.Meta{Model: a.model, CWD: a.cwd, Agent: Agent})
	for _, h := range a.waiting {
		if !h.ts.IsZero() {
			a.w.SourceTime(h.ts)
		}
		v, _ := jsonraw.Parse(h.lit)
		if h.warn {
			a.w.Message(dialog.Message{Content: dialog.Lit(v.Lit())})
			continue
		}
		a.writePrompt(dialog.Lit(v.Lit()))
	}
	a.waiting = nil
	if !a.lineTS.IsZero() {
		a.w.SourceTime(a.lineTS)
	}
}

// Finish writes the prompts still waiting for a model message.
func (a *Adapter) Finish() { a.ensureMeta() }

// gemini handles a model message: its thoughts, its text and its tool
// calls, each written once however often the message is written again.
func (a *Adapter) gemini(msg *message, content, thoughts, tokens, calls jsonraw.Value, parent string) {
	a.ensureMeta()
	if parent == "" {
		a.finished = false
	}
	if tokens.IsObject() && !msg.tokens {
		msg.tokens = true
		a.addTokens(tokens)
	}
	output := false
	// Thoughts: a list of pieces of the model's thinking, the ones not
	// written yet as one entry.
	n := 0
	a.text.Reset()
	for e := thoughts.Elements(); e.Next(); {
		n++
		if n <= msg.thoughts {
			continue
		}
		th := e.Value
		if s := th.Get("subject").Lit(); !s.IsEmpty() {
			if len(a.text.Body()) > 0 {
				a.text.Text("\n\n")
			}
			a.text.Text("**")
			a.text.Lit(s)
			a.text.Text("**\n")
		}
		a.text.Lit(th.Get("description").Lit())
	}
	if n > msg.thoughts {
		msg.thoughts = n
		if l := a.text.Literal(); !l.IsEmpty() {
			a.w.Thinking(dialog.Lit(l), parent)
			output = true
		}
	}
	if a.newText(msg, content, parent) {
		output = true
	}
	// The calls of one message run together: all start, then those
	// finished end, each at its own time.
	ncalls := 0
	for e := calls.Elements(); e.Next(); {
		ncalls++
		if a.startCall(e.Value, parent) {
			output = true
		}
	}
	for e := calls.Elements(); e.Next(); {
		a.endCall(e.Value)
	}
	if !output {
		a.w.Skip("", SkipNoNewText)
	}
	if parent != "" {
		return
	}
	if output && !msg.output {
		msg.output = true
		a.turns++
	}
	if ncalls > 0 {
		a.state = lastCalls
		if a.finished {
			a.state = lastDone
		}
	} else if msg.output || !a.textOf(content).IsEmpty() {
		a.state = lastAnswer
	}
}

// newText writes what is new in a model message's text: all of it the
// first time, what was added to it later.
func (a *Adapter) newText(msg *message, content jsonraw.Value, parent string) bool {
	l := a.textOf(content)
	body := l.Body()
	if len(body) == 0 {
		return false
	}
	old := msg.text
	switch {
	case old == nil && msg.output:
		// An older message written again (its text not kept): nothing new.
		return false
	case string(old) == string(body):
		return false
	case old != nil && len(body) > len(old) && string(body[:len(old)]) == string(old):
		// It grew: the rest, a whole literal's body from an escape boundary.
		rest, ok := jsonraw.Parse(append(append([]byte{'"'}, body[len(old):]...), '"'))
		if !ok {
			return false
		}
		msg.text = append(msg.text, body[len(old):]...)
		a.w.Message(dialog.Message{Content: dialog.Lit(rest.Lit()), Parent: parent})
		return true
	case old != nil:
		// Rewritten otherwise: the first text stands.
		return false
	}
	msg.text = append(msg.text[:0], body...)
	a.w.Message(dialog.Message{Content: dialog.Lit(l), Parent: parent})
	return true
}

// textOf joins a content's text: a string, or the text parts of a list
// (thought parts aside). The literal is borrowed from a.out.
func (a *Adapter) textOf(content jsonraw.Value) jsonraw.Literal {
	if content.IsString() {
		return content.Lit()
	}
	a.out.Reset()
	for e := content.Elements(); e.Next(); {
		p := e.Value
		if p.Get("thought").IsTrue() {
			continue
		}
		a.out.Lit(p.Get("text").Lit())
	}
	return a.out.Literal()
}

// startCall starts a tool call of a model message, unless it is started
// or ended already; it reports whether it wrote anything.
func (a *Adapter) startCall(c jsonraw.Value, parent string) bool {
	cid := c.Get("id").Str()
	if a.isClosed(cid) {
		return false
	}
	if _, ok := a.open[cid]; ok {
		return false
	}
	t := tool{name: c.Get("name").Str(), parent: parent}
	a.open[cid] = t
	a.w.ToolStart(dialog.ToolCall{ID: cid, Name: t.name, Args: c.Get("args"), Parent: parent})
	return true
}

// endCall ends an open call whose record has its outcome, at the call's
// own time.
func (a *Adapter) endCall(c jsonraw.Value) {
	var id, result, status, display, ts jsonraw.Value
	for m := c.Members(); m.Next(); {
		switch string(m.Key) {
		case "id":
			id = m.Value
		case "result":
			result = m.Value
		case "status":
			status = m.Value
		case "resultDisplay":
			display = m.Value
		case "timestamp":
			ts = m.Value
		}
	}
	cid := id.Str()
	if _, ok := a.open[cid]; !ok {
		return
	}
	if pending(status) || !status.Exists() && !result.Exists() {
		return
	}
	isErr := !status.Is("success")
	if !status.Exists() {
		isErr = responseError(result)
	}
	if t, ok := adapter.Time(ts); ok {
		a.w.SourceTime(t)
	}
	t := a.open[cid]
	a.end(cid, a.resultText(result, display, isErr), isErr)
	if !isErr && t.parent == "" && t.name == "complete_task" {
		// A subagent's chat read alone: the call that hands its result
		// back ends it.
		a.finished = true
	}
}

// pending reports whether a call's status says it has not finished.
func pending(status jsonraw.Value) bool {
	switch string(status.Body()) {
	case "validating", "scheduled", "awaiting_approval", "executing":
		return status.IsString()
	}
	return false
}

// responseError reports whether a result's function responses carry an
// error.
func responseError(result jsonraw.Value) bool {
	for e := result.Elements(); e.Next(); {
		if r := e.Value.Get("functionResponse").Get("response"); r.Get("error").Exists() && !r.Get("error").IsNull() {
			return true
		}
	}
	return false
}

// resultText is a call's result: the output (or, for an error, the error)
// of its function responses, else its display text.
func (a *Adapter) resultText(result, display jsonraw.Value, isErr bool) dialog.Text {
	a.out.Reset()
	for e := result.Elements(); e.Next(); {
		p := e.Value
		r := p.Get("functionResponse").Get("response")
		var v jsonraw.Value
		if isErr && r.Get("error").Exists() {
			v = r.Get("error")
		} else {
			v = r.Get("output")
		}
		if !v.Exists() && r.Get("error").Exists() {
			v = r.Get("error")
		}
		if !v.Exists() {
			v = p.Get("text")
		}
		switch {
		case v.IsString():
			if len(a.out.Body()) > 0 && !v.Lit().IsEmpty() {
				a.out.Text("\n")
			}
			a.out.Lit(v.Lit())
		case v.Exists() && !v.IsNull():
			a.out.Line()
			a.out.Text(string(v.Bytes()))
		}
	}
	if l := a.out.Literal(); !l.IsEmpty() {
		return dialog.Lit(l)
	}
	if display.IsString() {
		return dialog.Lit(display.Lit())
	}
	return dialog.Plain("")
}

// responses ends open calls from the function responses of a user
// message (the results as sent back to the model), for calls whose own
// record gave none.
func (a *Adapter) responses(content jsonraw.Value) {
	if !content.IsArray() {
		return
	}
	for e := content.Elements(); e.Next(); {
		fr := e.Value.Get("functionResponse")
		if !fr.IsObject() {
			continue
		}
		id := fr.Get("id").Str()
		if _, ok := a.open[id]; !ok {
			continue
		}
		r := fr.Get("response")
		isErr := r.Get("error").Exists() && !r.Get("error").IsNull()
		a.out.Reset()
		v := r.Get("output")
		if isErr {
			v = r.Get("error")
		}
		if v.IsString() {
			a.out.Lit(v.Lit())
		} else if v.Exists() {
			a.out.Text(string(v.Bytes()))
		}
		a.end(id, dialog.Lit(a.out.Literal()), isErr)
	}
}

// end writes a call's result.
func (a *Adapter) end(id string, out dialog.Text, isErr bool) {
	t := a.open[id]
	delete(a.open, id)
	a.closed[maphash.String(a.seed, id)] = struct{}{}
	a.w.ToolEnd(dialog.ToolResult{ID: id, Output: out, IsError: isErr, Name: t.name, Parent: t.parent})
}

func (a *Adapter) isClosed(id string) bool {
	_, ok := a.closed[maphash.String(a.seed, id)]
	return ok
}

// restate handles a "$set" of the whole conversation (see the package
// comment): no text, results of open calls, and where it now stands.
func (a *Adapter) restate(msgs jsonraw.Value) {
	a.state = lastNone
	for e := msgs.Elements(); e.Next(); {
		m := e.Value
		id := m.Get("id")
		if !id.IsString() {
			continue
		}
		k := maphash.Bytes(a.seed, id.Body())
		if _, ok := a.msgs[k]; !ok {
			a.msgs[k] = &message{output: true}
		}
		switch string(m.Get("type").Body()) {
		case "user":
			a.responses(m.Get("content"))
			if !injected(a.textOf(m.Get("content")).Body()) && !a.textOf(m.Get("content")).IsEmpty() {
				a.state = lastNone
			}
		case "gemini":
			n := 0
			for c := m.Get("toolCalls").Elements(); c.Next(); {
				n++
				a.endCall(c.Value)
			}
			if n > 0 {
				a.state = lastCalls
			} else {
				a.state = lastAnswer
			}
		}
	}
}

// addTokens adds a message's token counts: in = input (the prompt, cached
// included) + tool-use prompt, out = output + thoughts.
func (a *Adapter) addTokens(t jsonraw.Value) {
	for m := t.Members(); m.Next(); {
		n, _ := m.Value.Int()
		var add dialog.Tokens
		switch string(m.Key) {
		case "input", "tool":
			add.In = n
		case "output":
			add.Out = n
		case "thoughts":
			add.Out, add.Reasoning = n, n
		case "cached":
			add.CacheRead = n
		}
		a.tokens = a.tokens.Plus(add) // saturating: totals never wrap
	}
}

// warning writes an error or warning record of the file.
func (a *Adapter) warning(content jsonraw.Value, parent string) {
	l := a.textOf(content)
	a.text.Reset()
	a.text.Text(dialog.WarningPrefix)
	if l.IsEmpty() {
		a.text.Text("error")
	} else {
		a.text.Lit(l)
	}
	a.warn(a.text.Literal(), parent)
}

// notice writes a warning the converter words itself.
func (a *Adapter) notice(text string) {
	a.text.Reset()
	a.text.Text(dialog.WarningPrefix + text)
	a.warn(a.text.Literal(), "")
}

// warn writes a warning, or holds it with the prompts until init can say
// the model.
func (a *Adapter) warn(l jsonraw.Literal, parent string) {
	a.warnings++
	if !a.metaDone && parent == "" {
		a.waiting = append(a.waiting, held{lit: append([]byte(nil), l.Bytes()...), ts: a.lineTS, warn: true})
		return
	}
	a.ensureMeta()
	a.w.Message(dialog.Message{Content: dialog.Lit(l), Parent: parent})
}

// Summary returns what the complete entry should say. The file has no
// final record: the conversation is a success when its last message is a
// model message with no tool call and no call is open; an error record
// last is an error; anything else is incomplete.
func (a *Adapter) Summary() dialog.Summary {
	s := dialog.Summary{Turns: a.turns, Tokens: a.tokens, Warnings: a.warnings}
	switch {
	case a.state == lastError:
		s.Status, s.Message = dialog.StatusError, a.errMsg
	case (a.state == lastAnswer || a.state == lastDone) && len(a.open) == 0:
		s.Status = dialog.StatusSuccess
	}
	return s
}
