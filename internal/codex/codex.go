// Package codex converts the JSON Lines of `codex exec --json`, in every
// dialect Codex has printed, into dialog entries:
//
//   - current (0.44 on): thread.started, turn.*, item.* with item.type;
//   - 0.43: the same events, items tagged item_type, assistant_message;
//   - 0.42 experimental: session.created, item_type items, no turn events;
//   - legacy (0.8–0.42): a config-summary line, {"prompt": …}, then
//     {"id", "msg": {"type": …}} events.
//
// The dialect is not a mode: every line is handled by its own shape, so a
// file holding several runs of different versions converts too.
package codex

import (
	"errors"
	"hash/maphash"
	"maps"
	"math"
	"slices"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Agent is the init.data.agent value for this format.
const Agent = "codex"

// Tool names in the dialog. Codex items have no tool name of their own;
// these follow the protocol's examples and Codex's own names.
const (
	toolBash      = "bash"        // command_execution, legacy exec_command_*
	toolEdit      = "edit"        // file_change, legacy patch_apply_*
	toolWebSearch = "web_search"  // web_search, legacy web_search_*
	toolTodo      = "todo_list"   // todo_list: one call, the final checklist
	toolPlan      = "update_plan" // legacy plan_update: one call per update
	toolCollab    = "collab_tool_call"
	toolMCP       = "mcp_tool_call" // an MCP call naming neither server nor tool
)

// Format is the codex exec --json input format, every dialect.
func Format() adapter.Format {
	return adapter.Format{
		Name:          "codex",
		Title:         "`codex exec --json` output",
		Agent:         Agent,
		Detect:        Detect,
		New:           func(w *dialog.Writer) adapter.Adapter { return New(w) },
		Commands:      []string{"codex"},
		ModelFromArgs: modelFromArgs,
	}
}

// Detect says whether an event is Codex's. Its current event types are
// dotted (thread.started, item.completed); opencode's event bus has dotted
// types too, but its events carry their data in "properties". Legacy lines
// are {"id", "msg": {"type"}}, {"prompt"} and the config summary. A bare
// {"type":"error"} could be anyone's. Codex's session files (rollouts)
// have other types, and a payload.
func Detect(ev adapter.Event) adapter.Claim {
	cfg := 0
	var typ, msg, prompt jsonraw.Value
	for f := ev.Members(); f.Next(); {
		switch string(f.Key) {
		case "type":
			typ = f.Value
		case "msg":
			msg = f.Value
		case "prompt":
			prompt = f.Value
		case "properties", "payload", "part", "sessionID":
			return adapter.No
		default:
			if isConfigKey(f.Key) {
				cfg++
			}
		}
	}
	switch {
	case typ.Exists():
		switch string(typ.Body()) {
		case "thread.started", "turn.started", "turn.completed", "turn.failed",
			"item.started", "item.updated", "item.completed", "session.created":
			return adapter.Yes
		case "error":
			return adapter.Maybe
		}
		return adapter.No
	case msg.IsObject() && msg.Get("type").Exists(), prompt.IsString(), cfg >= configKeysNeeded:
		return adapter.Yes
	}
	return adapter.No
}

// configKeysNeeded is how many keys of the legacy config-summary line a
// line needs to be taken for one: any one of them alone could be anything.
const configKeysNeeded = 2

// isConfigKey reports whether key is one the legacy config-summary line
// always has (the others, "reasoning effort" and so on, come and go).
func isConfigKey(key []byte) bool {
	switch string(key) {
	case "model", "workdir", "provider", "approval", "sandbox":
		return true
	}
	return false
}

// kind is what an item or a legacy call is, for naming and for results.
type kind uint8

const (
	kindNone kind = iota
	kindMessage
	kindReasoning
	kindWarning
	kindCommand
	kindFileChange
	kindMCP
	kindWebSearch
	kindTodo
	kindCollab
)

// itemKind is the kind of an item of type typ (a string's body). It takes
// the bytes: a string made of them to switch on was copied for every item
// line.
func itemKind(typ []byte) kind {
	switch string(typ) {
	case "agent_message", "assistant_message":
		return kindMessage
	case "reasoning":
		return kindReasoning
	case "error":
		return kindWarning
	case "command_execution":
		return kindCommand
	case "file_change":
		return kindFileChange
	case "mcp_tool_call":
		return kindMCP
	case "web_search":
		return kindWebSearch
	case "todo_list":
		return kindTodo
	case "collab_tool_call":
		return kindCollab
	}
	return kindNone
}

// openCall is a tool call started in the dialog and not yet ended. Its
// strings are copies: obj does not outlive the Event call.
type openCall struct {
	id    string // the source id (item_N, a legacy call_id), given to the writer
	name  string
	kind  kind
	order int
	// state is what the result will need and only an earlier line holds:
	// a todo_list's latest items, a legacy patch's change list (JSON text,
	// copied).
	state []byte
}

// Adapter holds the state of one Codex stream.
type Adapter struct {
	w   *dialog.Writer
	sum dialog.Summary

	// Usage is a running total per process: cur is the current process's
	// last figure, done the sum of the processes before it.
	cur, done dialog.Tokens
	procs     int

	// active is set while a run is under way with no ending seen yet.
	active bool
	// boundary is set when the next model output begins a new response
	// (the turns rule, see output).
	boundary bool

	open  map[string]*openCall // by source id: a call started under an open id takes its place
	free  []*openCall          // ended calls, for the next ones
	ids   map[string]string
	names map[string]string // MCP call names, by server and tool (mcpCallName)
	key   []byte
	order int

	// lastMsg is the hash of the last agent message, so that a legacy
	// task_complete repeats no message already shown.
	lastMsg uint64
	msgSeen bool
	seed    maphash.Seed

	// it and msg are the item or legacy msg of the line being handled,
	// when it has one (hasItem, hasMsg); zero between lines.
	it              item
	msg             legacyMsg
	hasItem, hasMsg bool

	// why is the message of the current run's failure, when hasWhy: the
	// literal of turn.failed's error, copied.
	why    jsonraw.Builder
	hasWhy bool

	// Reused buffers for the text and args built here: text for results
	// and warnings, args for tool args, join for pieces of a result.
	text, join jsonraw.Builder
	args       jsonraw.ValueBuilder
	// images are the base64 images of the MCP result being built, which
	// the writer puts after its text; finish hands them on and empties it.
	images []dialog.Image
	// stateChk checks the JSON text an open call kept (a todo list's
	// items, a legacy patch's changes) when its result needs it: one
	// Checker for them all, not one made for each (parse).
	stateChk jsonraw.Checker
}

// parse reads JSON text kept from an earlier event, with no depth limit
// but memory; nothing for text that is not JSON. The value is valid until
// the next parse.
func (a *Adapter) parse(kept []byte) jsonraw.Value {
	v, _ := a.stateChk.Value(kept, math.MaxInt)
	return v
}

// New returns an Adapter writing to w.
func New(w *dialog.Writer) *Adapter {
	w.SetAgent(Agent)
	return &Adapter{w: w, open: make(map[string]*openCall), ids: make(map[string]string), names: make(map[string]string), boundary: true, seed: maphash.MakeSeed()}
}

// Summary returns what the complete entry should say.
func (a *Adapter) Summary() dialog.Summary {
	s := a.sum
	if a.hasWhy {
		s.Message = a.why.Literal().String()
	}
	s.Tokens = a.done.Plus(a.cur)
	return s
}

var errNoItem = errors.New("item event without an item object")

// Event handles one Codex event.
func (a *Adapter) Event(ev adapter.Event) error {
	err := a.event(ev)
	// The item or msg read borrows the line: let go of it, and leave the
	// fields zero for the next line, which then zeroes only what it uses.
	if a.hasItem {
		a.it, a.hasItem = item{}, false
	}
	if a.hasMsg {
		a.msg, a.hasMsg = legacyMsg{}, false
	}
	return err
}

func (a *Adapter) event(ev adapter.Event) error {
	var typ, errv, message, prompt jsonraw.Value
	var usage dialog.Tokens
	hasUsage, cfg := false, 0
	for f := ev.Members(); f.Next(); {
		switch string(f.Key) {
		case "type":
			typ = f.Value
		case "item":
			if f.Value.IsObject() {
				if a.hasItem {
					a.it = item{} // the last "item" is the one read
				}
				parseItem(&a.it, f.Value)
				a.hasItem = true
			}
		case "msg":
			if f.Value.IsObject() {
				if a.hasMsg {
					a.msg = legacyMsg{}
				}
				parseLegacy(&a.msg, f.Value)
				a.hasMsg = true
			}
		case "usage":
			hasUsage = f.Value.IsObject()
			if hasUsage {
				usage = Tokens(f.Value)
			}
		case "error":
			errv = f.Value
		case "message":
			message = f.Value
		case "prompt":
			prompt = f.Value
		default:
			if isConfigKey(f.Key) {
				cfg++
			}
		}
	}
	if typ.Exists() {
		switch string(typ.Body()) {
		case "thread.started", "session.created":
			a.newProcess()
			a.w.Meta(dialog.Meta{Agent: Agent})
		case "turn.started":
			a.supersede()
			a.active = true
			a.boundary = true
		case "turn.completed":
			if hasUsage {
				a.setUsage(usage)
			}
			a.closeOpen("the turn ended before the tool call finished", true)
			a.end(dialog.StatusSuccess, "", "")
		case "turn.failed":
			why := errv.Lit()
			if errv.IsObject() {
				why = errv.Get("message").Lit()
			}
			a.closeOpen("the turn failed before the tool call finished", false)
			a.fail(why)
		case "item.started", "item.updated", "item.completed":
			if !a.hasItem {
				return errNoItem
			}
			ph := phaseCompleted
			switch string(typ.Body()) {
			case "item.started":
				ph = phaseStarted
			case "item.updated":
				ph = phaseUpdated
			}
			return a.item(&a.it, ph)
		case "error":
			a.warning(message)
		default:
			a.w.Skip("", dialog.SkipUnknown)
		}
		return nil
	}
	switch {
	case a.hasMsg:
		return a.legacy(&a.msg)
	case prompt.IsString():
		a.w.StreamPrompt(dialog.Lit(prompt.Lit()))
	case cfg >= configKeysNeeded:
		a.config(ev.Value)
	default:
		a.w.Skip("", dialog.SkipUnknown)
	}
	return nil
}

// newProcess starts the events of a new Codex process: a new thread, or
// the same one resumed (item ids restart at item_0, usage at 0).
func (a *Adapter) newProcess() {
	if a.procs > 0 {
		a.closeOpen("the run ended before the tool call finished", false)
		a.supersede()
		a.done = a.done.Plus(a.cur)
		a.cur = dialog.Tokens{}
	}
	a.procs++
	a.boundary = true
}

// end records the ending of the current run. The last run's ending is the
// dialog's; earlier ones are turned into warnings by supersede.
func (a *Adapter) end(st dialog.Status, msg, reason string) {
	a.sum.Status, a.sum.Message, a.sum.Reason = st, msg, reason
	a.active = false
	a.hasWhy = false
}

// fail ends the current run with a failure whose message is the literal
// why ("turn failed" when it is empty). The literal is kept as it stands
// and decoded only for the complete entry: most failures are superseded
// by the next turn and shown as a warning, which copies it.
func (a *Adapter) fail(why jsonraw.Literal) {
	if why.IsEmpty() {
		a.end(dialog.StatusError, "turn failed", "")
		return
	}
	a.end(dialog.StatusError, "", "")
	a.why.Reset()
	a.why.Lit(why)
	a.hasWhy = true
}

// supersede is called when a new run or turn starts: the previous run's
// ending stops being the dialog's ending. A failure, or a run cut short,
// stays visible as a warning.
func (a *Adapter) supersede() {
	switch {
	case a.sum.Status == dialog.StatusError && a.hasWhy:
		a.notice("run failed: ", a.why.Literal())
	case a.sum.Status == dialog.StatusError:
		a.notice("run failed: "+a.sum.Message, jsonraw.Literal{})
	case a.sum.Status == "" && a.active:
		a.notice("run ended without a final event (interrupted or killed)", jsonraw.Literal{})
	}
	a.sum.Status, a.sum.Message, a.sum.Reason = "", "", ""
	a.active = false
	a.hasWhy = false
}

// warning shows a non-fatal error of the stream (raw: its message).
func (a *Adapter) warning(raw jsonraw.Value) {
	if l := raw.Lit(); !l.IsEmpty() {
		a.notice("", l)
		return
	}
	a.notice("error", jsonraw.Literal{})
}

// notice is a warning the converter words itself: head, then detail as the
// input wrote it (copied, not decoded), if any.
func (a *Adapter) notice(head string, detail jsonraw.Literal) {
	a.sum.Warnings++
	a.text.Reset()
	a.text.Text(dialog.WarningPrefix + head)
	if !detail.IsEmpty() {
		a.text.Lit(detail)
	}
	a.w.Message(dialog.Message{Content: dialog.Lit(a.text.Literal())})
}

// output marks model output (a message, reasoning, a tool call). Codex
// gives no response id, so turns counts model responses this way: a
// response is a maximal run of model output with no tool result inside
// it; one begins at the first output after the start of a turn, a process
// or a tool result.
func (a *Adapter) output() {
	if a.boundary {
		a.sum.Turns++
		a.boundary = false
	}
}

// result marks a tool result: the model's next output is a new response.
func (a *Adapter) result() { a.boundary = true }

func (a *Adapter) message(raw jsonraw.Value) {
	if l, ok := a.outputText(raw); ok {
		a.lastMsg, a.msgSeen = maphash.Bytes(a.seed, l.Body()), true
		a.w.Message(dialog.Message{Content: dialog.Lit(l)})
	}
}

func (a *Adapter) thinking(raw jsonraw.Value) {
	if l, ok := a.outputText(raw); ok {
		a.w.Thinking(dialog.Lit(l), "")
	}
}

// outputText reads the text of a message or of reasoning, which is model
// output; an empty one is skipped, and false.
func (a *Adapter) outputText(raw jsonraw.Value) (jsonraw.Literal, bool) {
	l := raw.Lit()
	if l.IsEmpty() {
		a.w.Skip("", dialog.SkipEmpty)
		return l, false
	}
	a.output()
	return l, true
}

// setUsage takes a running total (input_tokens includes cached input,
// output_tokens includes reasoning). A total lower than the last one can
// only come from a new process whose start the input does not show, so the
// last one is kept as that earlier process's.
func (a *Adapter) setUsage(t dialog.Tokens) {
	if t.In < a.cur.In || t.Out < a.cur.Out {
		a.done = a.done.Plus(a.cur)
	}
	a.cur = t
}

// Tokens reads a Codex usage object (turn.completed's usage, a rollout's
// total_token_usage): input_tokens counts cached input, output_tokens
// counts reasoning, as the dialog's totals do.
func Tokens(u jsonraw.Value) dialog.Tokens {
	var t dialog.Tokens
	u.PickInts([]string{"input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens", "reasoning_output_tokens"},
		&t.In, &t.Out, &t.CacheRead, &t.CacheWrite, &t.Reasoning)
	return t
}

// start opens a tool call in the dialog; its args are args, or
// {argsKey: args} when argsKey is set (see dialog.ToolCall).
func (a *Adapter) start(id, name string, k kind, argsKey string, args jsonraw.Value) *openCall {
	a.output()
	var c *openCall
	if n := len(a.free); n > 0 {
		c, a.free = a.free[n-1], a.free[:n-1]
		*c = openCall{state: c.state[:0]}
	} else {
		c = new(openCall)
	}
	c.id, c.name, c.kind, c.order = id, name, k, a.order
	a.order++
	a.open[c.id] = c
	a.w.ToolStart(dialog.ToolCall{ID: c.id, Name: c.name, Args: args, ArgsKey: argsKey})
	return c
}

// finish ends an open call.
func (a *Adapter) finish(c *openCall, out dialog.Text, isError bool) {
	delete(a.open, c.id)
	a.w.ToolEnd(dialog.ToolResult{ID: c.id, Output: out, Images: a.images, IsError: isError, Name: c.name})
	a.images = a.images[:0]
	a.result()
	if len(a.free) < maxFree {
		a.free = append(a.free, c)
	}
}

// idString is the string of an item id, the same string for the same id:
// Codex numbers its items item_0, item_1, … in every process, so a few
// strings serve a whole file, and a call costs no new one.
func (a *Adapter) idString(v jsonraw.Value) string {
	if s, ok := a.ids[string(v.Body())]; ok {
		return s
	}
	s := v.Str()
	if len(v.Body()) > maxKeptLen {
		return s // a long id is rare and kept by nobody: the cache stays small
	}
	if len(a.ids) >= maxIDs {
		clear(a.ids)
	}
	a.ids[string(v.Body())] = s
	return s
}

// maxIDs bounds the ids idString keeps, and the names mcpCallName keeps;
// maxKeptLen bounds their length, so that the caches' memory is bounded
// too (item_N and MCP names are short).
const (
	maxIDs     = 1024
	maxKeptLen = 256
)

// maxFree bounds the calls kept for reuse: as many as are ever open at once
// in practice.
const maxFree = 16

// closeOpen ends every open call, in the order they started, when their
// run or turn is over. A todo list ends with its last known checklist.
func (a *Adapter) closeOpen(why string, ok bool) {
	if len(a.open) == 0 {
		return
	}
	left := slices.Collect(maps.Values(a.open))
	slices.SortFunc(left, func(x, y *openCall) int { return x.order - y.order })
	for _, c := range left {
		if c.kind == kindTodo && c.state != nil {
			items := a.parse(c.state)
			a.finish(c, a.checklist(items), !ok)
			continue
		}
		a.finish(c, dialog.Plain(why), true)
	}
}
