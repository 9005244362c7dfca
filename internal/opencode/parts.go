package opencode

import (
	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// part is the fields of a message part, read in one pass; the same shape
// in run lines and on the bus.
type part struct {
	id, session, message, typ jsonraw.Value
	text, time, synthetic     jsonraw.Value
	tool, callID, state       jsonraw.Value
	reason, tokens, cost      jsonraw.Value
}

// readPart reads the part object raw.
func readPart(raw jsonraw.Value) part {
	var p part
	for f := raw.Members(); f.Next(); {
		v := f.Value
		switch string(f.Key) {
		case "id":
			p.id = v
		case "sessionID":
			p.session = v
		case "messageID":
			p.message = v
		case "type":
			p.typ = v
		case "text":
			p.text = v
		case "time":
			p.time = v
		case "synthetic":
			p.synthetic = v
		case "tool":
			p.tool = v
		case "callID":
			p.callID = v
		case "state":
			p.state = v
		case "reason":
			p.reason = v
		case "tokens":
			p.tokens = v
		case "cost":
			p.cost = v
		}
	}
	return p
}

// toolState is the fields of a tool part's state.
type toolState struct {
	status, input, output, err jsonraw.Value
	exit                       jsonraw.Value // metadata.exit: a shell tool's exit code
	child                      jsonraw.Value // metadata.sessionId: a task call's subagent session
	start, end                 jsonraw.Value
}

func readState(v jsonraw.Value) toolState {
	var st toolState
	for f := v.Members(); f.Next(); {
		switch string(f.Key) {
		case "status":
			st.status = f.Value
		case "input":
			st.input = f.Value
		case "output":
			st.output = f.Value
		case "error":
			st.err = f.Value
		case "metadata":
			f.Value.Pick([]string{"exit", "sessionId"}, &st.exit, &st.child)
		case "time":
			f.Value.Pick([]string{"start", "end"}, &st.start, &st.end)
		}
	}
	return st
}

// textPart handles a text or reasoning part. A final one (run lines are
// all final; on the bus, one with time.end) is written whole, once; on the
// bus an earlier update opens the part, whose text is then kept in case
// its message ends without a final update.
func (a *Adapter) textPart(p *part, parent string, root, final bool) {
	if a.finished.has(p.id.Body()) {
		a.w.Skip("", dialog.SkipDuplicate)
		return
	}
	reasoning := p.typ.Is("reasoning")
	if !final {
		op := a.openPart(p, reasoning)
		if l := p.text.Lit(); p.text.IsString() && !l.IsEmpty() {
			// An update's text is the whole text so far (older versions
			// sent it with every delta; 1.18 sends "" until the end).
			op.text.Reset()
			op.text.Lit(l)
			op.empty = false
		}
		a.w.Hold()
		return
	}
	a.dropPart(p.id.Body())
	a.finished.add(p.id.Str())
	if p.text.IsString() {
		a.writeText(p.text.Lit(), reasoning, parent, root && !p.synthetic.IsTrue())
	}
}

// writeText writes a part's text; turn says it is model output of the
// root session (opencode's own synthetic text is not).
func (a *Adapter) writeText(l jsonraw.Literal, reasoning bool, parent string, turn bool) {
	if l.IsEmpty() {
		a.w.Skip("", dialog.SkipEmpty)
		return
	}
	a.meta()
	a.turn(turn)
	if reasoning {
		a.w.Thinking(dialog.Lit(l), parent)
		return
	}
	a.w.Message(dialog.Message{Content: dialog.Lit(l), Parent: parent})
}

// openPart returns the open part p is an update of, opening it if new.
func (a *Adapter) openPart(p *part, reasoning bool) *openPart {
	if op := a.parts.byID[string(p.id.Body())]; op != nil {
		return op
	}
	op := &openPart{id: string(p.id.Body()), message: string(p.message.Body()), session: string(p.session.Body()), reasoning: reasoning, empty: true}
	op.text.Reset()
	a.parts.open(op)
	return op
}

// dropPart forgets an open part.
func (a *Adapter) dropPart(id []byte) {
	if op := a.parts.byID[string(id)]; op != nil {
		a.parts.take(op)
	}
}

// delta appends a message.part.delta's text to its open part.
func (a *Adapter) delta(pr *props) {
	if !pr.field.Is("text") || !pr.delta.IsString() {
		return
	}
	if op := a.parts.byID[string(pr.partID.Body())]; op != nil {
		op.text.Lit(pr.delta.Lit())
		op.empty = op.empty && pr.delta.Lit().IsEmpty()
	}
}

// flushParts writes, in the order they opened, the open parts whose
// message (or, with bySession, session) is id, as their text stands: their
// message or session ended without a final update. An empty id flushes
// every open part.
func (a *Adapter) flushParts(id string, bySession bool) {
	l := &a.parts.order
	switch {
	case id == "":
	case bySession:
		l = a.parts.bySession[id]
	default:
		l = a.parts.byMessage[id]
	}
	if l == nil {
		return
	}
	// Taken out first: taking a part may compact the list being read.
	flush := a.parts.live(l, a.flushing[:0])
	for _, op := range flush {
		a.parts.take(op)
		a.finished.add(op.id)
		if !op.empty {
			a.writeText(op.text.Literal(), op.reasoning, a.parentOf([]byte(op.session)), op.session == a.root)
		}
	}
	clear(flush)
	a.flushing = flush[:0]
}

// openParts are the bus's text and reasoning parts not final yet, in the
// order they opened, found by id, and listed by message and by session,
// each in constant time: when every update, delta and final part searched
// one list of them, a bus with 100,000 text parts left unfinished took
// time quadratic in their number (19 s).
type openParts struct {
	order                partList
	byID                 map[string]*openPart
	byMessage, bySession map[string]*partList
	// visits counts the parts the lists' walks visit (flushes,
	// compactions): the test that the work grows with the input, not its
	// square, counts them.
	visits int
}

// partList is parts in the order they opened; those taken since stay in
// ps (marked gone) until the list is compacted, once most of it is gone.
type partList struct {
	ps   []*openPart
	live int
}

// len is the number of parts open.
func (o *openParts) len() int { return len(o.byID) }

func (o *openParts) open(op *openPart) {
	if o.byID == nil {
		o.byID = make(map[string]*openPart)
		o.byMessage = make(map[string]*partList)
		o.bySession = make(map[string]*partList)
	}
	o.byID[op.id] = op
	o.order.add(op)
	listOf(o.byMessage, op.message).add(op)
	listOf(o.bySession, op.session).add(op)
}

func listOf(m map[string]*partList, key string) *partList {
	l := m[key]
	if l == nil {
		l = &partList{}
		m[key] = l
	}
	return l
}

// take closes op: it leaves every list.
func (o *openParts) take(op *openPart) {
	if op.gone {
		return
	}
	op.gone = true
	delete(o.byID, op.id)
	o.leave(&o.order)
	if l := o.byMessage[op.message]; l != nil && o.leave(l) {
		delete(o.byMessage, op.message)
	}
	if l := o.bySession[op.session]; l != nil && o.leave(l) {
		delete(o.bySession, op.session)
	}
}

// leave counts one part of l gone, and reports whether l is now empty. A
// list mostly gone is compacted: each compaction walks at most twice the
// parts taken since the last, so the work stays linear.
func (o *openParts) leave(l *partList) bool {
	l.live--
	switch {
	case l.live == 0:
		clear(l.ps)
		l.ps = l.ps[:0]
		return true
	case len(l.ps) > 2*l.live+16:
		l.ps = o.live(l, l.ps[:0])
		clear(l.ps[len(l.ps):cap(l.ps)])
	}
	return false
}

// live appends the parts of l not gone to dst, in order (dst may share
// l's array, from its start).
func (o *openParts) live(l *partList, dst []*openPart) []*openPart {
	o.visits += len(l.ps)
	for _, op := range l.ps {
		if !op.gone {
			dst = append(dst, op)
		}
	}
	return dst
}

func (l *partList) add(op *openPart) {
	l.ps = append(l.ps, op)
	l.live++
}

// toolPart handles a tool part: run prints it once, completed or error;
// on the bus it goes pending → running → completed or error. The call
// starts when it runs (or, first seen finished, right before its result).
func (a *Adapter) toolPart(p *part, session []byte, parent string, root bool) {
	key := p.callID.Body()
	if len(key) == 0 {
		key = p.id.Body()
	}
	if a.finished.has(key) {
		a.w.Skip("", dialog.SkipDuplicate)
		return
	}
	st := readState(p.state)
	c := a.calls[string(key)]
	switch string(st.status.Body()) {
	case "running":
		if c == nil {
			c = a.startCall(string(key), p, &st, string(session), parent, root)
		}
		a.runsChild(c, &st)
	case "completed", "error":
		if c == nil {
			c = a.startCall(string(key), p, &st, string(session), parent, root)
		}
		a.runsChild(c, &st)
		a.endCall(c, &st)
	default:
		a.w.Hold() // pending: the call starts when it runs
	}
}

// startCall writes a tool call's start, at the time it started.
func (a *Adapter) startCall(id string, p *part, st *toolState, session, parent string, root bool) *openCall {
	a.meta()
	a.sourceTime(st.start)
	a.turn(root)
	a.order++
	c := &openCall{id: id, name: p.tool.Str(), session: session, order: a.order}
	a.calls[id] = c
	var args jsonraw.Value
	if !st.input.IsNull() {
		args = st.input
	}
	a.w.ToolStart(dialog.ToolCall{ID: id, Name: c.name, Args: args, Parent: parent})
	return c
}

// runsChild notes the subagent session a task call runs, once it says.
func (a *Adapter) runsChild(c *openCall, st *toolState) {
	if c.child != "" || !st.child.IsString() || st.child.Lit().IsEmpty() {
		return
	}
	c.child = st.child.Str()
	ch := a.children[c.child]
	if ch == nil {
		ch = &child{parent: c.session}
		a.children[c.child] = ch
	}
	ch.tool = c.id
}

// endCall writes a tool call's result, at the time it ended.
func (a *Adapter) endCall(c *openCall, st *toolState) {
	a.sourceTime(st.end)
	out, isErr := a.result(st)
	delete(a.calls, c.id)
	a.finished.add(c.id)
	if c.child != "" {
		delete(a.children, c.child)
	}
	a.w.ToolEnd(dialog.ToolResult{ID: c.id, Output: out, IsError: isErr, Name: c.name})
}

// result is a finished tool's text and status: state.error for status
// error; else state.output, an error when a shell tool's metadata.exit is
// not an integer 0 (a failing command is still "completed"), its text then
// led by "[exit code N]" as for Codex, so the cap never cuts it off. It is
// borrowed from the state or a.text.
func (a *Adapter) result(st *toolState) (dialog.Text, bool) {
	if st.status.Is("error") {
		switch {
		case st.err.IsString() && !st.err.Lit().IsEmpty():
			return dialog.Lit(st.err.Lit()), true
		case st.err.IsObject():
			return a.errorText(st.err), true
		}
		return dialog.Plain("error"), true
	}
	code, isInt := st.exit.Integer()
	if !st.exit.Exists() || isInt && code == 0 {
		return outputText(st.output), false
	}
	a.text.Reset()
	if st.exit.IsNull() {
		a.text.Text("[no exit code: the command was stopped]")
	} else {
		adapter.AppendExitCode(&a.text, st.exit)
	}
	switch {
	case st.output.IsString() && !st.output.Lit().IsEmpty():
		a.text.Text("\n")
		a.text.Lit(st.output.Lit())
	case st.output.Exists() && !st.output.IsNull() && !st.output.IsString():
		a.text.Text("\n" + string(st.output.Bytes()))
	}
	return dialog.Lit(a.text.Literal()), true
}

// outputText is a tool's output as text: a string as it is, another value
// as its JSON text, nothing for null.
func outputText(v jsonraw.Value) dialog.Text {
	switch {
	case v.IsString():
		return dialog.Lit(v.Lit())
	case v.IsNull():
		return dialog.Plain("")
	}
	return dialog.Plain(string(v.Bytes()))
}
