package cursor

import (
	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Adapter holds the state of one Cursor CLI stream.
//
// Rules where the stream leaves a choice:
//   - thinking deltas are joined into one thinking entry per run; the run
//     ends at thinking/completed or any other event.
//   - An assistant line with timestamp_ms and no model_call_id is a delta
//     of --stream-partial-output: deltas are joined into one message per
//     run. Any other assistant line is a whole message; one that closes a
//     run of deltas is Cursor's recap of that text and is dropped.
//   - Turns count model responses as runs of model output (thinking, text,
//     tool calls) separated by tool results; a call started after a tool
//     result under the model_call_id of the response before it (parallel
//     calls finishing one by one) is still that response.
//   - Each result covers its process: durations, usage and cost add up
//     over results; the last one decides the ending.
//   - A successful result's text is shown as a message only when no
//     assistant text came since the last result: that is the one object
//     of --output-format json (in stream-json it repeats the messages).
type Adapter struct {
	w   *dialog.Writer
	sum dialog.Summary

	thinking, text runBuf

	boundary bool   // the next model output begins a new response
	curCall  string // model_call_id of the current response, if known
	procs    adapter.Processes
	said     bool // assistant text since the last result

	tmp []byte // reused for compact JSON
	lit jsonraw.Builder

	// prompt is the echoed user line's text, held while held is set: the
	// line has no timestamp, and the prompt takes the time of the line
	// after it (see user).
	prompt jsonraw.Builder
	held   bool
}

// runBuf is a run of deltas being joined, copied out of their events.
type runBuf struct {
	b    jsonraw.Builder
	open bool
}

func (r *runBuf) add(l jsonraw.Literal) {
	if !r.open {
		r.b.Reset()
		r.open = true
	}
	r.b.Lit(l)
}

// New returns an Adapter writing to w.
func New(w *dialog.Writer) *Adapter {
	w.SetAgent(Agent)
	return &Adapter{w: w, boundary: true}
}

// event holds the top-level fields of one line that the adapter reads.
type event struct {
	typ, subtype, timestamp, modelCallID, message, text jsonraw.Value
	model, cwd, callID, toolCall                        jsonraw.Value
	isError, duration, result, usage                    jsonraw.Value
}

// Event handles one stream-json event.
func (a *Adapter) Event(e adapter.Event) error {
	var ev event
	for m := e.Members(); m.Next(); {
		switch string(m.Key) {
		case "type":
			ev.typ = m.Value
		case "subtype":
			ev.subtype = m.Value
		case "timestamp_ms":
			ev.timestamp = m.Value
		case "model_call_id":
			ev.modelCallID = m.Value
		case "message":
			ev.message = m.Value
		case "text":
			ev.text = m.Value
		case "model":
			ev.model = m.Value
		case "cwd":
			ev.cwd = m.Value
		case "call_id":
			ev.callID = m.Value
		case "tool_call":
			ev.toolCall = m.Value
		case "is_error":
			ev.isError = m.Value
		case "duration_ms":
			ev.duration = m.Value
		case "result":
			ev.result = m.Value
		case "usage":
			ev.usage = m.Value
		}
	}
	typ := string(ev.typ.Body())
	thinkingDelta := typ == "thinking" && ev.subtype.Is("delta")
	textDelta := typ == "assistant" && ev.timestamp.Exists() && !ev.modelCallID.Exists()
	// Any other event ends a run, before its own time is taken: the entry
	// is stamped with its last delta's time.
	if !thinkingDelta {
		a.endThinking()
	}
	recap := false
	if !textDelta {
		recap = typ == "assistant" && a.text.open
		a.endText()
	}
	stamped := false
	if t, ok := adapter.Time(ev.timestamp); ok {
		a.w.SourceTime(t)
		stamped = true
	}
	a.writePrompt()
	switch typ {
	case "system":
		if ev.subtype.Is("init") {
			a.newProcess()
			a.w.Meta(dialog.Meta{Model: ev.model.Str(), CWD: ev.cwd.Str(), Agent: Agent})
		} else {
			a.w.Skip("", dialog.SkipUnknown)
		}
	case "user":
		a.user(ev.message, stamped)
	case "thinking":
		if thinkingDelta && !ev.text.Lit().IsEmpty() {
			a.output(ev.modelCallID)
			a.thinking.add(ev.text.Lit())
			a.w.Hold() // written as one thinking entry when the run of deltas ends
		} else if thinkingDelta {
			a.w.Skip("", dialog.SkipEmpty)
		} else {
			a.w.Skip("", dialog.SkipNoContent) // thinking/completed: the run it ends is written
		}
	case "assistant":
		if recap {
			a.w.Skip("", dialog.SkipDuplicate) // the text of the deltas just written, again
			return nil
		}
		a.assistant(ev.message, ev.modelCallID, textDelta)
	case "tool_call":
		return a.toolCall(&ev)
	case "result":
		a.result(&ev)
	default:
		a.w.Skip("", dialog.SkipUnknown)
	}
	return nil
}

func (a *Adapter) endThinking() {
	if a.thinking.open {
		a.thinking.open = false
		a.w.Thinking(dialog.Lit(a.thinking.b.Literal()), "")
	}
}

func (a *Adapter) endText() {
	if a.text.open {
		a.text.open = false
		a.w.Message(dialog.Message{Content: dialog.Lit(a.text.b.Literal())})
	}
}

// user is the prompt, echoed: its text blocks joined by newlines. Cursor
// prints the line without a timestamp; written now, it would take the
// converter's clock, and every entry after it that time, as ts never goes
// back. It is held until the next line, whose time it takes (or the end
// of input); a user line with its own timestamp is written at once.
func (a *Adapter) user(msg jsonraw.Value, stamped bool) {
	a.boundary = true
	l := a.joinText(msg.Get("content"), &a.lit)
	if l.IsEmpty() {
		a.w.Skip("", dialog.SkipEmpty)
		return
	}
	if stamped {
		a.w.StreamPrompt(dialog.Lit(l))
		return
	}
	a.prompt.Reset()
	a.prompt.Lit(l)
	a.held = true
	a.w.Hold() // written with the next line's time (writePrompt)
}

// writePrompt writes the prompt held back by user, if any, at the time of
// the line being converted.
func (a *Adapter) writePrompt() {
	if a.held {
		a.held = false
		a.w.StreamPrompt(dialog.Lit(a.prompt.Literal()))
	}
}

// joinText joins the text blocks of a message's content (or a string
// content) with newlines, in b.
func (a *Adapter) joinText(content jsonraw.Value, b *jsonraw.Builder) jsonraw.Literal {
	if content.IsString() {
		return content.Lit()
	}
	b.Reset()
	for e := content.Elements(); e.Next(); {
		if !e.Value.Get("type").Is("text") {
			continue
		}
		l := e.Value.Get("text").Lit()
		if l.IsEmpty() {
			continue
		}
		b.Line()
		b.Lit(l)
	}
	if b.Empty() {
		return jsonraw.Literal{}
	}
	return b.Literal()
}

func (a *Adapter) assistant(msg, modelCallID jsonraw.Value, delta bool) {
	l := a.joinText(msg.Get("content"), &a.lit)
	if l.IsEmpty() {
		a.w.Skip("", dialog.SkipEmpty)
		return
	}
	a.output(modelCallID)
	a.said = true
	if delta {
		a.text.add(l)
		a.w.Hold() // written as one message when the run of deltas ends
		return
	}
	a.w.Message(dialog.Message{Content: dialog.Lit(l)})
}

// output marks model output: the first after a boundary starts a new
// response, unless it carries the current response's model_call_id.
func (a *Adapter) output(modelCallID jsonraw.Value) {
	id := modelCallID.Body()
	if a.boundary {
		a.boundary = false
		if len(id) > 0 && string(id) == a.curCall {
			return
		}
		a.sum.Turns++
		a.curCall = string(id)
		return
	}
	if a.curCall == "" && len(id) > 0 {
		a.curCall = string(id)
	}
}

// result records a process's ending, duration, usage and cost.
func (a *Adapter) result(ev *event) {
	a.procs.Ended()
	failed := adapter.FailureFlag(ev.isError)
	if !ev.isError.Exists() {
		failed = ev.subtype.Exists() && !ev.subtype.Is("success")
	}
	a.sum.Status, a.sum.Message = dialog.StatusSuccess, ""
	if !failed && !a.said && !ev.result.Lit().IsEmpty() {
		a.output(jsonraw.Value{})
		a.w.Message(dialog.Message{Content: dialog.Lit(ev.result.Lit())})
	}
	a.said = false
	if failed {
		a.sum.Status = dialog.StatusError
		switch {
		case !ev.result.Lit().IsEmpty():
			a.sum.Message = ev.result.Str()
		case !ev.subtype.Lit().IsEmpty():
			a.sum.Message = ev.subtype.Str()
		default:
			a.sum.Message = "the run ended in error"
		}
		if note := adapter.FlagNote(ev.isError, "is_error"); note != "" {
			a.sum.Message = note + " (" + a.sum.Message + ")"
		}
	}
	if d, ok := ev.duration.Int(); ok {
		a.sum.DurationMS += d
		a.sum.HasDuration = true
	}
	a.addUsage(ev.usage)
}

// addUsage adds a result's usage: inputTokens leaves out the cache reads
// and writes, which the dialog's in counts.
func (a *Adapter) addUsage(u jsonraw.Value) {
	var in, out, read, write int64
	var cost float64
	hasCost := false
	for m := u.Members(); m.Next(); {
		switch string(m.Key) {
		case "inputTokens":
			in, _ = m.Value.Int()
		case "outputTokens":
			out, _ = m.Value.Int()
		case "cacheReadTokens":
			read, _ = m.Value.Int()
		case "cacheWriteTokens":
			write, _ = m.Value.Int()
		case "totalCost":
			cost, hasCost = m.Value.Float()
		case "cost":
			if !hasCost {
				cost, hasCost = m.Value.Float()
			}
		}
	}
	a.sum.Tokens = a.sum.Tokens.Plus(dialog.Tokens{
		In: dialog.AddSat(in, dialog.AddSat(read, write)), Out: out, CacheRead: read, CacheWrite: write,
	})
	if hasCost {
		a.sum.CostUSD += cost
		a.sum.HasCost = true
	}
}

// newProcess starts the events of a cursor-agent process (system/init).
func (a *Adapter) newProcess() {
	a.procs.Start(a.w, &a.sum)
	a.boundary = true
}

// Summary returns what the complete entry should say.
func (a *Adapter) Summary() dialog.Summary {
	return a.sum
}

// Finish writes the thinking and text still being joined when the input ends.
func (a *Adapter) Finish() {
	a.writePrompt()
	a.endThinking()
	a.endText()
}
