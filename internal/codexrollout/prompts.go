package codexrollout

import (
	"bytes"
	"hash/maphash"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// The user's turns. A rollout holds each twice or more: as a
// response_item (the model-visible history, which also carries injected
// context: AGENTS.md, <environment_context>, IDE context), as an
// event_msg user_message (≤ 0.151) and as an item_completed UserMessage
// (0.149 on). The events hold only what the user typed, so they are the
// source whenever the file has them; the response_item copy is the
// fallback for files without (codex#43593: the turn-carrying record moved
// between versions).

// injectedPrefixes start the text of user items Codex injects itself.
var injectedPrefixes = [][]byte{
	[]byte("<environment_context>"),
	[]byte("<user_instructions>"),
	[]byte("# AGENTS.md instructions"),
	[]byte("<INSTRUCTIONS>"),
	[]byte("<permissions instructions>"),
	[]byte("<skills_instructions>"),
	[]byte("<user_shell_command>"),
	[]byte("<turn_aborted>"),
	[]byte("<subagent_notification>"),
	[]byte("<collaboration_mode>"),
}

// injected reports whether the body of a user text literal is context
// Codex added rather than the user's words.
func injected(body []byte) bool {
	body = bytes.TrimLeft(body, " ")
	for len(body) >= 2 && body[0] == '\\' && (body[1] == 'n' || body[1] == 't' || body[1] == 'r') {
		body = bytes.TrimLeft(body[2:], " ")
	}
	for _, p := range injectedPrefixes {
		if bytes.HasPrefix(body, p) {
			return true
		}
	}
	return false
}

// userEvent handles the user's turn as an event carries it: a message
// string (user_message) or content parts (item_completed UserMessage).
func (a *Adapter) userEvent(message, content jsonraw.Value) {
	a.userEvents = true
	a.candidates = a.candidates[:0]
	a.text.Reset()
	if l := message.Lit(); !l.IsEmpty() {
		a.text.Lit(l)
	}
	for e := content.Elements(); e.Next(); {
		if l := e.Value.Get("text").Lit(); !l.IsEmpty() {
			a.text.Line()
			a.text.Lit(l)
		}
	}
	if a.text.Empty() {
		a.w.Skip("", dialog.SkipEmpty)
		return
	}
	a.prompt(a.text.Literal())
}

// userItem handles a user message of the model-visible history: kept as
// a candidate, written only if no event carries the turn (see above).
func (a *Adapter) userItem(p jsonraw.Value) {
	if a.userEvents {
		a.w.Skip("", dialog.SkipDuplicate) // the user_message event says it
		return
	}
	// Newer rollouts say who wrote each part.
	var provenance []jsonraw.Value
	meta := p.Get("internal_chat_message_metadata_passthrough").Get("content_item_metadata")
	if !meta.Exists() {
		meta = p.Get("content_item_metadata")
	}
	for e := meta.Elements(); e.Next(); {
		provenance = append(provenance, e.Value.Get("provenance").Get("type"))
	}
	a.text.Reset()
	i := -1
	for e := p.Get("content").Elements(); e.Next(); {
		i++
		if !e.Value.Get("type").Is("input_text") {
			continue // images: never copied
		}
		if i < len(provenance) && provenance[i].Exists() && !provenance[i].Is("user") {
			continue
		}
		l := e.Value.Get("text").Lit()
		if l.IsEmpty() || injected(l.Body()) {
			continue
		}
		a.text.Line()
		a.text.Lit(l)
	}
	if a.text.Empty() {
		a.w.Skip("", SkipNoUser)
		return
	}
	a.candidates = append(a.candidates, a.hold(a.text.Literal()))
	a.w.Hold()
}

// settleUser writes the candidate turns once model output (or a turn's
// end) shows that no event will carry them.
func (a *Adapter) settleUser() {
	if len(a.candidates) == 0 {
		return
	}
	cs := a.candidates
	a.candidates = nil
	for _, h := range cs {
		if t, ok := heldTime(h); ok {
			a.setTime(t)
		}
		v, _ := jsonraw.Parse(h.lit)
		a.prompt(v.Lit())
	}
	a.restoreTime()
}

// hold copies a turn's text with its line's time.
func (a *Adapter) hold(l jsonraw.Literal) held {
	h := held{lit: append([]byte(nil), l.Bytes()...)}
	if a.hasTS {
		h.ts = a.lineTS
	}
	return h
}

// prompt writes a user turn, or holds it until init can name the model.
// The same text twice with no model output between is one turn told by
// two events.
func (a *Adapter) prompt(l jsonraw.Literal) {
	h := maphash.Bytes(a.seed, l.Body())
	if a.promptOpen && h == a.lastPrompt {
		a.w.Skip("", dialog.SkipDuplicate)
		return
	}
	a.promptOpen, a.lastPrompt = true, h
	a.compacted = false
	if !a.metaDone {
		turn := a.hold(l)
		turn.afterEnd = a.end != endNone
		a.waiting = append(a.waiting, turn)
		a.w.Hold()
		return
	}
	a.write(dialog.Lit(l))
}

// writeHeld writes a turn that waited for init.
func (a *Adapter) writeHeld(h held) {
	if t, ok := heldTime(h); ok {
		a.setTime(t)
	}
	v, _ := jsonraw.Parse(h.lit)
	if !h.afterEnd {
		a.writeTurn(dialog.Lit(v.Lit())) // the ending, if any, came after it
		return
	}
	a.write(dialog.Lit(v.Lit()))
}

// write writes a user turn: the first before the body is the task's
// prompt; any other is a later turn, where it was said. A turn starts
// here when the file has no task events (0.40).
func (a *Adapter) write(t dialog.Text) {
	if a.end != endNone {
		a.newTurn()
	}
	a.writeTurn(t)
}

// writeTurn writes a user turn, the last turn's ending settled.
func (a *Adapter) writeTurn(t dialog.Text) {
	a.boundary = true
	if !a.prompted && !a.body {
		a.prompted = true
		a.w.StreamPrompt(t)
		return
	}
	a.prompted = true
	a.w.UserPrompt(t)
}
