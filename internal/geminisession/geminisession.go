// Package geminisession converts the chat files Gemini CLI keeps
// (~/.gemini/tmp/<project>/chats/session-*.jsonl, 0.39 on; a subagent's
// chat in chats/<session id>/<agent id>.jsonl) into dialog entries; and
// the chat files of earlier versions, one JSON document each
// (session-*.json: {sessionId, projectHash, …, messages: […]}), whose
// messages are the records of the JSON Lines form, each once (see
// docstream.go).
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
//     an error; a call still scheduled or executing stays open. A shell
//     call marked a success whose output states an exit code other than 0
//     (gemini.ShellExitCode) is an error: Gemini CLI marks every command
//     that ran a success.
package geminisession

import (
	"errors"
	"hash/maphash"
	"strconv"
	"strings"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/gemini"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Agent is the init.data.agent value for this format.
const Agent = "gemini-cli"

// typeDocumentCut is the type of the record OpenSession puts where a
// chat file of the JSON-document form stops being whole (cut while it was
// written, or broken): {type, messages (whole ones read), inMessages (it
// stops inside the list of messages), offset (of the end of the last
// whole value), lost (bytes from there to the end of the file), cut (the
// file ends there), error (else, what is wrong)}.
const typeDocumentCut = "gemini-session-document-cut"

// typeSubagent is the type of the envelope in which OpenSession passes a
// subagent's record (line) or the start of its call (no line: its name,
// args, and the model of the session's message that made it), with the id
// of the call that ran it.
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
// (sessionId with projectHash; a whole JSON document too), a model message
// (type "gemini" with an id), a rewind, or this package's own records (a
// subagent's envelope, a document's cut). A "$set" update is only
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
	case session && project, rewind, id && typ.Is("gemini"), line && typ.Is(typeSubagent), typ.Is(typeDocumentCut):
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
	// tokensShown: a message entry carried its tokens (never twice)
	tokensShown bool
	output      bool // counted as a turn
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
	lastNone      last = iota // nothing yet, or a user turn without an answer
	lastAnswer                // a model message with no tool call
	lastCalls                 // a model message with tool calls
	lastError                 // an error record
	lastDone                  // a subagent's complete_task call, succeeded
	lastCancelled             // the user cancelled the request (Esc)
)

// The texts Gemini CLI writes itself: the info message of a request the
// user cancelled, and the user message it sends when a response stopped
// short (its continueOnFailedApiCall and next-speaker check).
const (
	cancelledText = "Request cancelled."
	continueText  = "System: Please continue."
)

// ReasonInterrupted ends a chat whose last request the user cancelled.
const ReasonInterrupted = "interrupted"

// held is a prompt or a warning kept until init can say the model: its
// literal (copied) and the time of its record.
type held struct {
	lit    []byte
	images []dialog.Image // a prompt's pictures, copied
	ts     time.Time
	warn   bool
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
	body     bool      // an entry other than a prompt was written
	lineTS   time.Time // the current record's time, if it has one

	state    last
	finished bool // a complete_task call of this thread succeeded
	errMsg   string
	turns    int
	warnings int
	tokens   dialog.Tokens

	text   jsonraw.Builder
	out    jsonraw.Builder
	images []dialog.Image // the pictures of the result or prompt read last
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
	var typ, set, id, callID, line, msgs jsonraw.Value
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
		case "messages":
			msgs = m.Value
		}
	}
	switch {
	case typ.Is(typeDocumentCut):
		return a.documentCut(ev.Value)
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
	case msgs.IsArray():
		a.document(ev.Value)
	default:
		a.directories(ev.Get("directories")) // the header's (a subagent's)
	}
	return nil
}

// The reasons the adapter gives dialog.Writer.Skip, beside the common ones.
const (
	SkipSubagent  = "subagent's task text (its call's args)" // a subagent's user message
	SkipInjected  = "Gemini CLI's own context"               // <session_context> and the like
	SkipNoNewText = "written again, nothing new"             // a model message restated with nothing added
	// SkipResponses: a user message with no text: the tool responses sent
	// back to the model, shown with their calls.
	SkipResponses = "no user text (tool responses)"
)

// document handles a whole chat of the JSON-document form read as one
// record (from a stream: a file is read message by message, see
// OpenSession): its messages are the records the JSON Lines form writes
// one a line, each written once.
func (a *Adapter) document(v jsonraw.Value) {
	for m := v.Members(); m.Next(); {
		switch string(m.Key) {
		case "directories":
			a.directories(m.Value)
		case "messages":
			for e := m.Value.Elements(); e.Next(); {
				if e.Value.Get("id").IsString() {
					a.record(e.Value, "")
				}
			}
		}
	}
}

// documentCut handles the record OpenSession puts where a chat file of
// the JSON-document form stops being whole (see docstream.go): a warning
// that says what was lost, and an error, for the converter to report and
// count. A conversation cut inside its messages ends incomplete.
func (a *Adapter) documentCut(v jsonraw.Value) error {
	var whole, offset, lost int64
	v.PickInts([]string{"messages", "offset", "lost"}, &whole, &offset, &lost)
	var inMessagesV, cutV, whyV jsonraw.Value
	v.Pick([]string{"inMessages", "cut", "error"}, &inMessagesV, &cutV, &whyV)
	inMessages, cut, why := inMessagesV.IsTrue(), cutV.IsTrue(), whyV.Str()
	where := "after its messages"
	if inMessages {
		where = "in message " + strconv.FormatInt(whole+1, 10)
	}
	text := "the chat file's JSON document is not whole: it ends " + where + " (cut while it was written?)"
	if !cut {
		text = "the chat file's JSON document is broken " + where + " (" + why + ")"
	}
	text += ": the " + strconv.FormatInt(lost, 10) + " bytes after byte " + strconv.FormatInt(offset, 10)
	if inMessages && whole > 0 {
		text += ", where message " + strconv.FormatInt(whole, 10) + " ends,"
	}
	text += " are lost"
	a.notice(text)
	if inMessages {
		a.state = lastNone
	}
	return errors.New(text)
}

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
	if a.model == "" {
		a.model = ev.Get("model").Str()
	}
	a.ensureMeta()
	name := ev.Get("name").Str()
	a.open[id] = tool{name: name}
	a.body = true
	a.w.ToolStart(dialog.ToolCall{ID: id, Name: name, Args: ev.Get("args")})
}

// record handles one message record; parent is the subagent's call, for a
// record of a subagent's file.
func (a *Adapter) record(v jsonraw.Value, parent string) {
	var id, ts, typ, content, thoughts, tokens, model, calls jsonraw.Value
	v.Pick([]string{"id", "timestamp", "type", "content", "thoughts", "tokens", "model", "toolCalls"},
		&id, &ts, &typ, &content, &thoughts, &tokens, &model, &calls)
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
	case "info", "system":
		// A note of the CLI's own in the chat (system: before 0.4x):
		// shown as a notice, not dropped without a word.
		if !seen {
			a.text.Reset()
			a.text.Text(dialog.WarningPrefix)
			l := a.textOf(content)
			if l.IsEmpty() {
				a.text.Text(string(typ.Body()) + " message with no text")
			} else {
				a.text.Lit(l)
			}
			if parent == "" && string(l.Body()) == cancelledText {
				a.state = lastCancelled
			}
			a.warn(a.text.Literal(), parent)
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
	a.images = a.images[:0]
	for e := content.Elements(); e.Next(); {
		if e.Value.Get("functionResponse").Exists() {
			// Media beside a tool's response are the tool's (its call's
			// record has them), not the user's.
			a.images = a.images[:0]
			break
		}
		if d := e.Value.Get("inlineData"); d.IsObject() {
			// A picture the user attached (@file): Gemini CLI records
			// every part it sent.
			a.images = append(a.images, dialog.Image{Media: d.Get("mimeType").Str(), Data: d.Get("data").Body()})
		}
	}
	if l.IsEmpty() && len(a.images) == 0 {
		a.w.Skip("", SkipResponses)
		return
	}
	if injected(l.Body()) {
		a.contextDir(l)
		a.w.Skip("", SkipInjected) // shown as init's cwd, not as a prompt
		return
	}
	a.state = lastNone
	if string(l.Body()) == continueText {
		a.notice("Gemini CLI asked the model to go on (" + continueText + ")")
		return
	}
	a.prompt(l, a.images)
}

// contextDir takes the cwd, until init is written, from the session
// context Gemini CLI puts first in a chat: "I'm currently working in the
// directory: DIR" (or the first of "the following directories", in
// earlier versions), or the first of its "Workspace Directories:" (0.61:
// the folder it was started in). l is that text.
func (a *Adapter) contextDir(l jsonraw.Literal) {
	if a.cwd != "" || a.metaDone {
		return
	}
	text := l.String()
	for _, lead := range []string{"I'm currently working in the directory: ", "I'm currently working in the following directories:\n", "Workspace Directories:**\n", "Workspace Directories:\n"} {
		_, rest, ok := strings.Cut(text, lead)
		if !ok {
			continue
		}
		line, _, _ := strings.Cut(rest, "\n")
		if !strings.HasSuffix(lead, "\n") {
			a.cwd = strings.TrimSpace(line)
			return
		}
		// A list: "  - DIR" lines.
		if dir, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			a.cwd = strings.TrimSpace(dir)
		}
		return
	}
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
func (a *Adapter) prompt(l jsonraw.Literal, images []dialog.Image) {
	if !a.metaDone {
		h := held{lit: append([]byte(nil), l.Bytes()...), ts: a.lineTS}
		for _, img := range images {
			h.images = append(h.images, dialog.Image{Media: img.Media, Data: append([]byte(nil), img.Data...)})
		}
		a.waiting = append(a.waiting, h)
		a.w.Hold()
		return
	}
	a.writePrompt(dialog.Lit(l), images...)
}

// writePrompt writes a user turn: the first before the body is the task's
// prompt, any other a later turn where it was said (after a notice such as
// the one /init writes first, the first prompt is one of these).
func (a *Adapter) writePrompt(t dialog.Text, images ...dialog.Image) {
	task := !a.prompted && !a.body
	a.prompted = true
	if task {
		a.w.StreamPrompt(t, images...)
	} else {
		a.w.UserPrompt(t, images...)
	}
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
			a.body = true
			a.w.Message(dialog.Message{Content: dialog.Lit(v.Lit())})
			continue
		}
		a.writePrompt(dialog.Lit(v.Lit()), h.images...)
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
		a.tokens = a.tokens.Plus(chatTokens(tokens)) // saturating: totals never wrap
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
			a.body = true
			a.w.Thinking(dialog.Lit(l), parent)
			output = true
		}
	}
	if a.newText(msg, content, tokens, parent) {
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
func (a *Adapter) newText(msg *message, content, tokens jsonraw.Value, parent string) bool {
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
		a.message(msg, dialog.Lit(rest.Lit()), tokens, parent)
		return true
	case old != nil:
		// Rewritten otherwise: the first text stands.
		return false
	}
	msg.text = append(msg.text[:0], body...)
	a.message(msg, dialog.Lit(l), tokens, parent)
	return true
}

// message writes a message entry of model message msg. The first entry
// written from a record that has the message's tokens carries them: the
// CLI adds them once the response is done, so they are its final count.
// Text written from a record before the tokens came carries none.
func (a *Adapter) message(msg *message, content dialog.Text, tokens jsonraw.Value, parent string) {
	m := dialog.Message{Content: content, Parent: parent}
	if tokens.IsObject() && !msg.tokensShown && !content.IsEmpty() {
		msg.tokensShown = true
		m.Tokens, m.HasTokens = chatTokens(tokens), true
	}
	a.body = true
	a.w.Message(m)
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
	a.body = true
	a.w.ToolStart(dialog.ToolCall{ID: cid, Name: t.name, Args: c.Get("args"), Parent: parent})
	return true
}

// endCall ends an open call whose record has its outcome, at the call's
// own time.
func (a *Adapter) endCall(c jsonraw.Value) {
	var id, result, status, display, ts jsonraw.Value
	c.Pick([]string{"id", "result", "status", "resultDisplay", "timestamp"},
		&id, &result, &status, &display, &ts)
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
	out := a.resultText(result, display, isErr)
	if code, ok := shellExitCode(t.name, result); !isErr && ok {
		isErr, out = true, a.exitCodeText(code, out)
	}
	a.end(cid, out, isErr, a.images)
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

// shellExitCode returns the exit code other than 0 that the output of a
// shell call's function responses states (see gemini.ShellExitCode).
func shellExitCode(name string, result jsonraw.Value) (int64, bool) {
	if name != gemini.ShellTool {
		return 0, false
	}
	for e := result.Elements(); e.Next(); {
		out := e.Value.Get("functionResponse").Get("response").Get("output")
		if !out.IsString() {
			continue
		}
		if code, ok := gemini.ShellExitCode(out.Body()); ok && code != 0 {
			return code, true
		}
	}
	return 0, false
}

// exitCodeText is the result of a shell call that failed with code: "[exit
// code N]" ahead of its output, as for other agents, so that the cap
// never cuts the reason off. out may be borrowed from a.out.
func (a *Adapter) exitCodeText(code int64, out dialog.Text) dialog.Text {
	a.text.Reset()
	a.text.Text("[exit code " + strconv.FormatInt(code, 10) + "]")
	if !out.IsEmpty() {
		a.text.Text("\n")
		a.text.Text(out.String())
	}
	return dialog.Lit(a.text.Literal())
}

// resultText is a call's result: the output (or, for an error, the error)
// of its function responses, else its display text.
func (a *Adapter) resultText(result, display jsonraw.Value, isErr bool) dialog.Text {
	a.out.Reset()
	a.images = a.images[:0]
	for e := result.Elements(); e.Next(); {
		p := e.Value
		a.media(p)
		for q := p.Get("functionResponse").Get("parts").Elements(); q.Next(); {
			a.media(q.Value) // Gemini 3 models get a tool's media here
		}
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

// media reads a part of a result that carries a tool's media rather than
// text (read_file on a picture or a PDF): base64 data is an image of the
// result (the writer shows a type it does not draw as a placeholder); a
// file given by URI is named on a line of the text, never fetched.
func (a *Adapter) media(p jsonraw.Value) {
	if d := p.Get("inlineData"); d.IsObject() {
		a.images = append(a.images, dialog.Image{Media: d.Get("mimeType").Str(), Data: d.Get("data").Body()})
	}
	if f := p.Get("fileData"); f.IsObject() {
		a.out.Line()
		a.out.Text(fileNote(f.Get("mimeType").Str(), f.Get("fileUri").Str()))
	}
}

// fileNote names a file a tool sent by reference: its type and URI, and
// says which of them the part does not give, as the writer's image
// placeholders say "of unknown type".
func fileNote(mimeType, uri string) string {
	if mimeType == "" {
		mimeType = "of unknown type"
	}
	if uri == "" {
		return "[file " + mimeType + ", URI unknown]"
	}
	return "[file " + mimeType + " " + uri + "]"
}

// responses ends open calls from the function responses of a user
// message (the results as sent back to the model), for calls whose own
// record gave none. The media a tool sent the model are its result's: in
// its response's parts (Gemini 3), or the parts after its response, up to
// the next one (Gemini 2).
func (a *Adapter) responses(content jsonraw.Value) {
	if !content.IsArray() {
		return
	}
	var r response // the call whose response is read: its text in a.out, its media in a.images
	for e := content.Elements(); e.Next(); {
		fr := e.Value.Get("functionResponse")
		if !fr.IsObject() {
			if r.id != "" {
				a.media(e.Value)
			}
			continue
		}
		a.endResponse(r)
		r = response{}
		id := fr.Get("id").Str()
		if _, ok := a.open[id]; !ok {
			continue
		}
		res := fr.Get("response")
		r = response{id: id, isErr: res.Get("error").Exists() && !res.Get("error").IsNull()}
		a.out.Reset()
		a.images = a.images[:0]
		v := res.Get("output")
		if r.isErr {
			v = res.Get("error")
		}
		if v.IsString() {
			a.out.Lit(v.Lit())
		} else if v.Exists() {
			a.out.Text(string(v.Bytes()))
		}
		if v.IsString() && !r.isErr && a.open[id].name == gemini.ShellTool {
			r.exitCode, r.failed = gemini.ShellExitCode(v.Body())
			r.failed = r.failed && r.exitCode != 0
		}
		for q := fr.Get("parts").Elements(); q.Next(); {
			a.media(q.Value)
		}
	}
	a.endResponse(r)
}

// response is a call's function response being read (responses): the
// call's id ("" none), and whether it failed, by its error or by the exit
// code its shell output states.
type response struct {
	id       string
	isErr    bool
	failed   bool
	exitCode int64
}

// endResponse writes the result of the call whose response was read, its
// text in a.out and its media in a.images.
func (a *Adapter) endResponse(r response) {
	if r.id == "" {
		return
	}
	out := dialog.Lit(a.out.Literal())
	if r.failed {
		r.isErr, out = true, a.exitCodeText(r.exitCode, out)
	}
	a.end(r.id, out, r.isErr, a.images)
}

// end writes a call's result.
func (a *Adapter) end(id string, out dialog.Text, isErr bool, images []dialog.Image) {
	t := a.open[id]
	delete(a.open, id)
	a.closed[maphash.String(a.seed, id)] = struct{}{}
	a.w.ToolEnd(dialog.ToolResult{ID: id, Output: out, Images: images, IsError: isErr, Name: t.name, Parent: t.parent})
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
			switch l := a.textOf(m.Get("content")); {
			case injected(l.Body()):
				a.contextDir(l)
			case !l.IsEmpty():
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

// chatTokens reads a message's token counts: in = input (the prompt, cached
// included) + tool-use prompt, out = output + thoughts. The run's total is
// the sum of these, so a message's figure and the total agree.
func chatTokens(t jsonraw.Value) dialog.Tokens {
	var sum dialog.Tokens
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
		sum = sum.Plus(add) // saturating
	}
	return sum
}

// warning writes an error or warning record of the file.
func (a *Adapter) warning(content jsonraw.Value, parent string) {
	a.warn(gemini.WarningText(&a.text, a.textOf(content)), parent)
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
	a.body = true
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
	case a.state == lastCancelled:
		s.Status, s.Reason, s.Message = dialog.StatusError, ReasonInterrupted, cancelledText
	case (a.state == lastAnswer || a.state == lastDone) && len(a.open) == 0:
		s.Status = dialog.StatusSuccess
	}
	return s
}
