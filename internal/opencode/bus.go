package opencode

import (
	"strconv"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// props is the fields of a bus event's properties, read in one pass.
type props struct {
	session, info, status, err, time jsonraw.Value
	partID, field, delta             jsonraw.Value
	part                             part
	hasPart                          bool
}

// readProps reads the properties object raw.
func readProps(raw jsonraw.Value) props {
	var pr props
	for f := raw.Members(); f.Next(); {
		switch string(f.Key) {
		case "part":
			if f.Value.IsObject() {
				pr.part = readPart(f.Value)
				pr.hasPart = true
			}
		case "sessionID":
			pr.session = f.Value
		case "info":
			pr.info = f.Value
		case "status":
			pr.status = f.Value
		case "error":
			pr.err = f.Value
		case "time":
			pr.time = f.Value
		case "partID":
			pr.partID = f.Value
		case "field":
			pr.field = f.Value
		case "delta":
			pr.delta = f.Value
		}
	}
	return pr
}

// bus handles an event of the serve event bus.
func (a *Adapter) bus(typ string, pr *props) {
	if typ != "message.part.updated" { // busPart sets it after activity
		a.sourceTime(pr.time)
	}
	switch typ {
	case "message.part.delta":
		a.delta(pr)
	case "message.part.updated":
		if pr.hasPart {
			a.busPart(pr)
		}
	case "message.updated":
		a.message(pr.info)
	case "session.created", "session.updated":
		a.session(pr.info, typ == "session.created")
	case "session.status":
		a.status(pr)
	case "session.idle":
		a.idle(pr.session.Body())
	case "session.error":
		a.sessionError(pr)
	case "server.connected", "server.heartbeat", "session.diff", "session.compacted",
		"session.deleted", "message.removed", "message.part.removed", "plugin.added",
		"catalog.updated", "reference.updated", "integration.updated", "file.edited",
		"file.watcher.updated", "todo.updated", "lsp.updated", "lsp.client.diagnostics",
		"permission.asked", "permission.replied", "permission.updated", "command.executed",
		"project.updated", "vcs.branch.updated", "installation.updated",
		"installation.update-available", "mcp.tools.changed":
		// Known, and nothing for the dialog.
		a.w.Skip("", dialog.SkipNoContent)
	default:
		a.skipped++
		a.w.Skip("", dialog.SkipUnknown)
	}
}

// see reports whether session is the root session; the first session seen
// that is no known subagent's becomes the root.
func (a *Adapter) see(session []byte) bool {
	if len(session) == 0 {
		return false
	}
	if a.root == "" && a.children[string(session)] == nil {
		a.root = string(session)
	}
	return string(session) == a.root
}

// busPart handles message.part.updated.
func (a *Adapter) busPart(pr *props) {
	p := &pr.part
	s := pr.session.Body()
	if len(s) == 0 {
		s = p.session.Body()
	}
	root := a.see(s)
	parent := a.parentOf(s)
	user := a.userMsgs.has(p.message.Body())
	typ := string(p.typ.Body())
	if id := p.id.Body(); typ == "tool" && len(p.callID.Body()) > 0 {
		if a.finished.has(p.callID.Body()) {
			a.w.Skip("", dialog.SkipDuplicate) // an update of a call already ended
			return
		}
	} else if a.finished.has(id) {
		a.w.Skip("", dialog.SkipDuplicate) // an update of a part already written
		return
	}
	// Work of the root's model: an error before it was not the end (the
	// warning then written has the time of the error, not of this part).
	if root && !user && (typ == "step-start" || typ == "step-finish" || typ == "text" || typ == "reasoning" || typ == "tool") {
		a.activity()
	}
	a.sourceTime(pr.time)
	if user {
		a.userPart(p, root, parent)
		return
	}
	switch typ {
	case "step-start":
		if root {
			a.finished.add(p.id.Str())
			a.steps++
		}
	case "step-finish":
		a.stepFinish(p)
		if root {
			a.stepEnd(p)
		}
	case "text", "reasoning":
		end := p.time.Get("end")
		final := end.Exists() && !end.IsNull()
		a.sourceTime(end)
		a.textPart(p, parent, root, final)
	case "tool":
		a.toolPart(p, s, parent, root)
	default:
		a.w.Skip("", dialog.SkipUnknown)
	}
}

// sourceTime sets the time of the entries to come from a timestamp of the
// source (epoch milliseconds), when v is one.
func (a *Adapter) sourceTime(v jsonraw.Value) {
	if t, ok := adapter.Time(v); ok {
		a.w.SourceTime(t)
	}
}

// userPart handles a part of a user message: the root's first text is the
// prompt; a synthetic text is opencode's own (run prints it, so it is a
// message here too); a subagent's prompt is its task call's args already.
func (a *Adapter) userPart(p *part, root bool, parent string) {
	if !p.typ.Is("text") || !p.text.IsString() {
		a.w.Skip("", SkipUserPart)
		return
	}
	if p.synthetic.IsTrue() {
		if root {
			a.activity()
		}
		a.textPart(p, parent, root, true)
		return
	}
	if root {
		a.meta()
		a.w.StreamPrompt(dialog.Lit(p.text.Lit()))
	} else {
		a.w.Skip("", SkipUserPart) // a subagent's prompt: its task call's args
	}
}

// SkipUserPart is the reason a part of a user message is not shown: a
// subagent's prompt (its task call's args say it), a file or an image.
const SkipUserPart = "user part (not the prompt)"

// message handles message.updated: a user message's id (its parts are not
// the model's), the model and cwd of the root's messages, and the end of
// an assistant message, which ends its parts still open.
func (a *Adapter) message(info jsonraw.Value) {
	var id, role, session, provider, modelID, model, path, tm jsonraw.Value
	info.Pick([]string{"id", "role", "sessionID", "providerID", "modelID", "model", "path", "time"},
		&id, &role, &session, &provider, &modelID, &model, &path, &tm)
	root := a.see(session.Body())
	switch string(role.Body()) {
	case "user":
		if !a.userMsgs.has(id.Body()) {
			a.userMsgs.add(id.Str())
		}
		if root && !a.modelKnown {
			a.setModel(model.Get("providerID"), model.Get("modelID"))
		}
	case "assistant":
		if root {
			a.setModel(provider, modelID)
			if c := path.Get("cwd"); a.cwd == "" && c.IsString() {
				a.cwd = c.Str()
			}
		}
		if done := tm.Get("completed"); done.Exists() && !done.IsNull() {
			a.sourceTime(done)
			if a.parts.len() > 0 {
				a.flushParts(string(id.Body()), false)
			}
		}
	}
}

// setModel takes the model as opencode names it on the command line,
// provider/model, while init is not written yet.
func (a *Adapter) setModel(provider, model jsonraw.Value) {
	if a.metaDone || !model.IsString() || model.Lit().IsEmpty() {
		return
	}
	a.model = model.Str()
	if p := provider.Str(); p != "" {
		a.model = p + "/" + a.model
	}
	a.modelKnown = true
}

// session handles session.created and session.updated: a subagent's
// session (it has a parentID) is noted when created; the root's give the
// cwd and the model.
func (a *Adapter) session(info jsonraw.Value, created bool) {
	var id, parent, dir, model jsonraw.Value
	info.Pick([]string{"id", "parentID", "directory", "model"}, &id, &parent, &dir, &model)
	if parent.IsString() && !parent.Lit().IsEmpty() {
		if created && id.IsString() && string(id.Body()) != a.root && a.children[string(id.Body())] == nil {
			a.children[id.Str()] = &child{parent: parent.Str()}
		}
		return
	}
	if !a.see(id.Body()) {
		return
	}
	if a.cwd == "" && dir.IsString() {
		a.cwd = dir.Str()
	}
	if !a.modelKnown {
		a.setModel(model.Get("providerID"), model.Get("id"))
	}
}

// status handles session.status: idle ends the session, busy marks the
// root at work, a retry is a warning.
func (a *Adapter) status(pr *props) {
	s := pr.session.Body()
	var typ, attempt, msg jsonraw.Value
	pr.status.Pick([]string{"type", "attempt", "message"}, &typ, &attempt, &msg)
	switch string(typ.Body()) {
	case "idle":
		a.idle(s)
	case "busy":
		if a.see(s) {
			a.active = true
		}
	case "retry":
		a.see(s)
		text := "retrying"
		if n, ok := attempt.Integer(); ok {
			text += " (attempt " + strconv.FormatInt(n, 10) + ")"
		}
		if m := msg.Str(); m != "" {
			text += ": " + m
		}
		a.warning(text, a.parentOf(s))
	}
}

// idle handles the end of a session's work (session.idle, or
// session.status idle; both come): the root's ends the run, once it has
// worked; parts still open are written as they stand.
func (a *Adapter) idle(session []byte) {
	if !a.see(session) {
		if a.parts.len() > 0 {
			a.flushParts(string(session), true)
		}
		return
	}
	if !a.active {
		return
	}
	a.meta()
	a.flushParts("", false)
	a.succeed()
	a.active = false
}

// sessionError handles session.error: the root's is the failure unless the
// run goes on; a subagent's is a warning (its task call reports it too).
func (a *Adapter) sessionError(pr *props) {
	s := pr.session.Body()
	if len(s) == 0 || a.see(s) {
		a.fail(pr.err)
		return
	}
	a.warning(a.errorText(pr.err).String(), a.parentOf(s))
}
