package gemini

import (
	"strconv"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Adapter holds the state of one Gemini CLI stream (or json object).
//
// Rules where the stream leaves a choice:
//   - Assistant text comes as deltas; a run of them is one message, written
//     when any other event ends the run (its time is the last delta's).
//     A message without delta:true is a message of its own.
//   - Gemini has no response id, so turns count model responses as runs of
//     model output (text, tool calls) separated by tool results, as for
//     Codex: a new response starts at the first output after an init, a
//     tool result, or the user's message.
//   - Each result covers its own process (with --resume each turn is one):
//     durations and tokens add up over results, and the last one decides
//     the ending. An init after a failed result keeps that failure visible
//     as a warning.
type Adapter struct {
	w   *dialog.Writer
	sum dialog.Summary

	// run is the text of the assistant deltas seen since the last other
	// event (a copy: deltas do not outlive their event).
	run   jsonraw.Builder
	inRun bool

	// boundary is set when the next model output begins a new response.
	boundary bool
	procs    adapter.Processes

	// shells holds the ids of the shell calls started and not ended: their
	// output may state a failing exit code (see toolResult).
	shells map[string]struct{}

	text jsonraw.Builder // reused for warnings and joined texts
}

// New returns an Adapter writing to w.
func New(w *dialog.Writer) *Adapter {
	w.SetAgent(Agent)
	return &Adapter{w: w, boundary: true, shells: make(map[string]struct{})}
}

// event holds the top-level fields of one line that the adapter reads.
type event struct {
	typ, timestamp, role, content, delta, model                 jsonraw.Value
	toolName, toolID, parameters, status, output, errv, message jsonraw.Value
	stats, response, warnings                                   jsonraw.Value
}

// Event handles one stream-json event, or the one object of the json
// output.
func (a *Adapter) Event(e adapter.Event) error {
	var ev event
	for m := e.Members(); m.Next(); {
		switch string(m.Key) {
		case "type":
			ev.typ = m.Value
		case "timestamp":
			ev.timestamp = m.Value
		case "role":
			ev.role = m.Value
		case "content":
			ev.content = m.Value
		case "delta":
			ev.delta = m.Value
		case "model":
			ev.model = m.Value
		case "tool_name":
			ev.toolName = m.Value
		case "tool_id":
			ev.toolID = m.Value
		case "parameters":
			ev.parameters = m.Value
		case "status":
			ev.status = m.Value
		case "output":
			ev.output = m.Value
		case "error":
			ev.errv = m.Value
		case "message":
			ev.message = m.Value
		case "stats":
			ev.stats = m.Value
		case "response":
			ev.response = m.Value
		case "warnings":
			ev.warnings = m.Value
		}
	}
	assistantDelta := ev.typ.Is("message") && ev.role.Is("assistant") && ev.delta.IsTrue()
	if !assistantDelta {
		// Any other event ends the run of text, before its own time is
		// taken: the message is stamped with its last delta's time.
		a.endRun()
	}
	if t, ok := adapter.Time(ev.timestamp); ok {
		a.w.SourceTime(t)
	}
	if !ev.typ.Exists() {
		a.jsonOutput(&ev)
		return nil
	}
	switch string(ev.typ.Body()) {
	case "init":
		a.newProcess()
		a.w.Meta(dialog.Meta{Model: ev.model.Str(), Agent: Agent})
	case "message":
		a.message(&ev, assistantDelta)
	case "tool_use":
		a.toolUse(&ev)
	case "tool_result":
		a.toolResult(&ev)
	case "error":
		a.warning(ev.message.Lit())
	case "result":
		a.result(&ev)
	default:
		a.w.Skip("", dialog.SkipUnknown)
	}
	return nil
}

func (a *Adapter) message(ev *event, delta bool) {
	switch {
	case ev.role.Is("user"):
		// The prompt, echoed; a later one (a resumed turn) starts a new
		// response but is no entry: the dialog has no user messages.
		if ev.content.IsString() {
			a.w.StreamPrompt(dialog.Lit(ev.content.Lit()))
		} else {
			a.w.Skip("", dialog.SkipEmpty)
		}
		a.boundary = true
	case ev.role.Is("assistant") && ev.content.IsString():
		l := ev.content.Lit()
		if l.IsEmpty() {
			a.w.Skip("", dialog.SkipEmpty)
			return
		}
		a.output()
		if !delta {
			a.w.Message(dialog.Message{Content: dialog.Lit(l)})
			return
		}
		if !a.inRun {
			a.run.Reset()
			a.inRun = true
		}
		a.run.Lit(l)
		a.w.Hold() // written as one message when the run of deltas ends
	default:
		a.w.Skip("", dialog.SkipUnknown)
	}
}

// endRun writes the run of assistant text seen so far, if any.
func (a *Adapter) endRun() {
	if !a.inRun {
		return
	}
	a.inRun = false
	a.w.Message(dialog.Message{Content: dialog.Lit(a.run.Literal())})
}

func (a *Adapter) toolUse(ev *event) {
	id := ev.toolID.Str()
	a.output()
	name := ev.toolName.Str()
	if name == ShellTool {
		a.shells[id] = struct{}{}
	}
	a.w.ToolStart(dialog.ToolCall{ID: id, Name: name, Args: ev.parameters})
}

// toolResult ends a call. The status field decides; absent, an error
// object does. The text is error.message on failure, the output on success
// (absent output: an empty result). A shell call Gemini CLI calls a
// success is an error when its output states an exit code other than 0
// (Gemini CLI marks a command that ran a success whatever its code), its
// text led by "[exit code N]" as for other agents, so the cap never cuts
// it off.
func (a *Adapter) toolResult(ev *event) {
	id := ev.toolID.Str()
	_, shell := a.shells[id]
	delete(a.shells, id)
	failed := !ev.status.Is("success")
	if ev.status.IsNull() {
		failed = ev.errv.IsObject()
	}
	var out dialog.Text
	if failed {
		out = a.errorText(ev.errv, ev.output)
	} else if code, ok := DisplayedExitCode(ev.output.Body()); shell && ev.output.IsString() && ok && code != 0 {
		failed = true
		a.text.Reset()
		a.text.Text("[exit code " + strconv.FormatInt(code, 10) + "]")
		if l := ev.output.Lit(); !l.IsEmpty() {
			a.text.Text("\n")
			a.text.Lit(l)
		}
		out = dialog.Lit(a.text.Literal())
	} else if ev.output.IsString() {
		out = dialog.Lit(ev.output.Lit())
	}
	a.w.ToolEnd(dialog.ToolResult{ID: id, Output: out, IsError: failed})
	a.boundary = true
}

// errorText says what failed: error.message, else the output, else
// error.type.
func (a *Adapter) errorText(errv, output jsonraw.Value) dialog.Text {
	for _, v := range []jsonraw.Value{errv.Get("message"), output, errv.Get("type"), errv} {
		if l := v.Lit(); !l.IsEmpty() {
			return dialog.Lit(l)
		}
	}
	return dialog.Text{}
}

// result records a process's ending, duration and tokens.
func (a *Adapter) result(ev *event) {
	a.procs.Ended()
	a.sum.Status, a.sum.Message = dialog.StatusSuccess, ""
	if !ev.status.Is("success") {
		a.sum.Status = dialog.StatusError
		a.sum.Message = a.errorText(ev.errv, jsonraw.Value{}).String()
		if a.sum.Message == "" {
			a.sum.Message = "the run ended in error"
		}
	}
	if d, ok := ev.stats.Get("duration_ms").Int(); ok {
		a.sum.DurationMS += d
		a.sum.HasDuration = true
	}
	a.sum.Tokens = a.sum.Tokens.Plus(streamTokens(ev.stats))
}

// streamTokens reads a result's stats: per model from 0.34 on (summed),
// flat before. input_tokens is the whole prompt (cached included); the
// stream has no count of thought tokens.
func streamTokens(stats jsonraw.Value) dialog.Tokens {
	var t dialog.Tokens
	perModel := false
	for m := stats.Get("models").Members(); m.Next(); {
		perModel = true
		t = t.Plus(flatTokens(m.Value))
	}
	if !perModel {
		t = flatTokens(stats)
	}
	return t
}

func flatTokens(v jsonraw.Value) dialog.Tokens {
	var t dialog.Tokens
	v.PickInts([]string{"input_tokens", "output_tokens", "cached"}, &t.In, &t.Out, &t.CacheRead)
	return t
}

// newProcess starts the events of a Gemini CLI process (an init); the
// shell calls of the one before it are over.
func (a *Adapter) newProcess() {
	if a.procs.Start(a.w, &a.sum) {
		clear(a.shells)
	}
	a.boundary = true
}

// output marks model output (text, a tool call): the first after a
// boundary starts a new response.
func (a *Adapter) output() {
	if a.boundary {
		a.sum.Turns++
		a.boundary = false
	}
}

// warning shows a non-fatal error of the stream.
func (a *Adapter) warning(l jsonraw.Literal) {
	a.sum.Warnings++
	a.w.Message(dialog.Message{Content: dialog.Lit(WarningText(&a.text, l))})
}

// WarningText is the text of a warning entry for Gemini CLI's error or
// warning message l, built in b: "error" when l is empty. Both Gemini
// formats (this one and its chat files) write their errors so.
func WarningText(b *jsonraw.Builder, l jsonraw.Literal) jsonraw.Literal {
	b.Reset()
	b.Text(dialog.WarningPrefix)
	if l.IsEmpty() {
		b.Text("error")
	} else {
		b.Lit(l)
	}
	return b.Literal()
}

// Summary returns what the complete entry should say.
func (a *Adapter) Summary() dialog.Summary {
	return a.sum
}

// Finish writes the text still being joined when the input ends.
func (a *Adapter) Finish() { a.endRun() }
