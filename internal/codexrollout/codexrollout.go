// Package codexrollout converts the session files Codex keeps
// (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, .jsonl.zst when cold)
// into dialog entries. Each line is a record {timestamp, type, payload}:
//
//   - response_item is the content: messages, reasoning summaries, tool
//     calls and their outputs (paired by call_id);
//   - event_msg gives turn boundaries (task_started, task_complete,
//     turn_aborted), token totals (token_count) and the user's own turns
//     (user_message, item_completed UserMessage); its copies of the
//     content (agent_message, agent_reasoning) are skipped;
//   - session_meta gives the cwd and the start, turn_context the model;
//   - compacted is never replayed (its replacement_history is a copy of
//     the conversation): a marker message stands where it was.
//
// Rules where the file leaves a choice (listed in the README):
//   - The user's turns come from the events when the file has them; the
//     response_item copy of a user message is used only in files without
//     such events, and never when it is injected context (AGENTS.md,
//     <environment_context>, …, or provenance "harness").
//   - A forked or subagent rollout starts with its own session_meta, then
//     replays its parent's (another id) and the parent's history. That
//     history is skipped up to the first record whose turn id (a UUIDv7,
//     minted when the turn ran) is not older than the session itself.
//   - Exit codes come from the output's metadata (0.4x JSON outputs), from
//     Codex's own event for the call (item_completed), or from the header
//     Codex puts before the output ("Exit code: N", "Process exited with
//     code N"); a non-zero code is an error.
//   - A message entry carries tokens (its request's last_token_usage) only
//     when the request's token_count came after its turn_context and
//     before any of its response items, with a total that grew (0.4x);
//     later versions write it after the message, whose entry is out then.
package codexrollout

import (
	"errors"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/codex"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Agent is the init.data.agent value for this format.
const Agent = "codex"

// Format is Codex's rollout files.
func Format() adapter.Format {
	return adapter.Format{
		Name:   "codex-rollout",
		Title:  "a Codex session file (~/.codex/sessions)",
		Agent:  Agent,
		Detect: Detect,
		New:    func(w *dialog.Writer) adapter.Adapter { return New(w) },
		Inputs: Inputs,

		ClaimedInputs: ClaimedInputs,
	}
}

// Detect says whether a line is of a rollout: a typed record with its
// payload.
func Detect(ev adapter.Event) adapter.Claim {
	typ := ev.Get("type")
	switch string(typ.Body()) {
	case "session_meta", "response_item", "event_msg", "turn_context", "compacted", "token_usage_record", "world_state":
		if ev.Get("payload").Exists() {
			return adapter.Yes
		}
	}
	return adapter.No
}

// knownRecord reports whether a record type is one this converter knows,
// read or deliberately skipped.
func knownRecord(typ []byte) bool {
	switch string(typ) {
	case "session_meta", "response_item", "event_msg", "turn_context", "compacted",
		"world_state", "token_usage_record", "inter_agent_communication",
		"inter_agent_communication_metadata", "security_risk_score", "realtime_item":
		return true
	}
	return false
}

// call is a tool call started in the dialog and not yet ended.
type call struct {
	id, name string
	order    int
	// exit is the exit code Codex's own event for the call gave, if any;
	// failed says the event reported a failure without one.
	exit    int64
	hasExit bool
	failed  bool
}

// held is a user turn kept until it can be written: its text (a JSON
// string literal, copied) and the time of its line. afterEnd: a turn's
// ending came before it, whose notice goes before it.
type held struct {
	lit      []byte
	ts       time.Time
	afterEnd bool
}

// ending is how the last turn ended.
type ending uint8

const (
	endNone ending = iota
	endComplete
	endFailed
	endAborted
)

// Adapter holds the state of one rollout.
type Adapter struct {
	w *dialog.Writer

	lineTS time.Time // the current line's time
	hasTS  bool
	at     time.Time // the time last given to the writer

	// session
	metaSeen, metaDone bool
	owner              string
	ownerMS            int64
	fork               bool
	cwd, model         string

	// the replayed parent history of a fork (see the package comment)
	gate     bool
	gateDone bool
	replayed int

	// user turns
	userEvents bool   // the file carries the user's turns as events
	waiting    []held // turns written before init can say the model
	candidates []held // response_item user texts, until it is known whether events follow
	prompted   bool
	lastPrompt uint64 // hash of the last prompt, while no model output followed it
	promptOpen bool

	// entries
	body   bool // an entry other than a prompt was written
	open   map[string]*call
	order  int
	search int // web searches without an id, for their ids

	// turns and endings
	taskEvents   bool // task_started / task_complete are in the file
	turnActive   bool
	end          ending
	endMsg       string
	endTS        time.Time // the time of the line that ended it (zero: none given)
	lastIsAnswer bool      // the last model output was a message
	anyOutput    bool
	boundary     bool
	turns        int
	warnings     int
	compacted    bool // a compaction marker stands for the current compaction

	tokens dialog.Tokens
	// stepUsage is the usage of the model request under way, when a
	// token_count gave it before any response item of the request (Codex
	// 0.4x writes it first; later ones write it after the request's
	// message, whose entry is out by then): its first message entry
	// carries it. stepItems: a response item came since the request's
	// turn_context.
	stepUsage    dialog.Tokens
	hasStepUsage bool
	stepItems    bool

	records, unknown int
	unknownNames     []string

	seed maphash.Seed
	text jsonraw.Builder
	join jsonraw.Builder
	// images are the base64 images of the output being read (parts),
	// which the writer puts after its text; finish hands them on.
	images []dialog.Image
	buf    []byte // decoded JSON text (arguments, 0.4x outputs)
}

// New returns an Adapter writing to w.
func New(w *dialog.Writer) *Adapter {
	w.SetAgent(Agent)
	// stepItems until a turn_context: no request is known to have begun.
	return &Adapter{w: w, open: make(map[string]*call), boundary: true, seed: maphash.MakeSeed(), stepItems: true}
}

// The reasons the adapter gives dialog.Writer.Skip, beside the common ones.
const (
	SkipReplayed  = "replayed parent history (fork)"               // a fork's copy of its parent's turns
	SkipEventCopy = "event copy of a response item"                // event_msg agent_message and the like: the response_item says it
	SkipRole      = "developer or system message"                  // instructions, not the conversation
	SkipNoUser    = "no user text (injected context, images only)" // a user item with nothing the user wrote
)

var errNoPayload = errors.New("record without a payload object")

// Event handles one record.
func (a *Adapter) Event(ev adapter.Event) error {
	var typ, payload, ts jsonraw.Value
	ev.Pick([]string{"type", "payload", "timestamp"}, &typ, &payload, &ts)
	a.records++
	if t, ok := adapter.Time(ts); ok {
		a.setTime(t)
		a.lineTS, a.hasTS = t, true
	}
	kind := typ.Body()
	if !knownRecord(kind) {
		if isItemType(kind) && !payload.Exists() {
			// A bare response item: the pre-envelope rollouts of mid-2025.
			a.responseItem(ev.Value)
			return nil
		}
		a.unknownRecord(string(kind))
		return nil
	}
	if !payload.IsObject() && !payload.IsString() {
		return errNoPayload
	}
	if string(kind) == "session_meta" {
		a.sessionMeta(payload)
		return nil
	}
	if a.skipReplayed(payload) {
		a.w.Skip("", SkipReplayed)
		return nil
	}
	switch string(kind) {
	case "response_item":
		a.responseItem(payload)
	case "event_msg":
		a.eventMsg(payload)
	case "turn_context":
		a.stepItems, a.hasStepUsage = false, false // a new model request
		a.turnContext(payload)
	case "compacted":
		a.settleUser()
		a.compaction()
	default:
		a.w.Skip("", dialog.SkipNoContent)
	}
	return nil
}

// isItemType reports whether a type is one of a response item's.
func isItemType(typ []byte) bool {
	switch string(typ) {
	case "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
		"custom_tool_call_output", "local_shell_call", "web_search_call":
		return true
	}
	return false
}

// maxUnknownNames bounds the names of unknown types the summary lists.
const maxUnknownNames = 5

func (a *Adapter) unknownRecord(name string) {
	a.w.Skip("", dialog.SkipUnknown)
	a.unknown++
	if name == "" {
		name = "(no type)"
	}
	if len(a.unknownNames) < maxUnknownNames && !slices.Contains(a.unknownNames, name) {
		a.unknownNames = append(a.unknownNames, name)
	}
}

func (a *Adapter) sessionMeta(p jsonraw.Value) {
	id := p.Get("id").Str()
	if a.metaSeen {
		// A second session_meta: the same session resumed (same id), or,
		// in a fork, the parent's, whose history follows.
		if a.fork && id != a.owner && !a.gateDone {
			a.gate = true
		}
		return
	}
	a.metaSeen = true
	a.owner = id
	a.cwd = p.Get("cwd").Str()
	a.fork = p.Get("forked_from_id").Str() != "" || p.Get("parent_thread_id").Str() != "" ||
		p.Get("thread_source").Is("subagent") || p.Get("source").Get("subagent").Exists()
	a.ownerMS = uuidV7Millis(id)
	if a.ownerMS == 0 {
		if t, ok := adapter.Time(p.Get("timestamp")); ok {
			a.ownerMS = t.UnixMilli()
		} else if a.hasTS {
			a.ownerMS = a.lineTS.UnixMilli()
		}
	}
	if a.ownerMS == 0 {
		a.fork = false // nothing to tell the replay from the session's own turns
	}
}

// skipReplayed reports whether a record belongs to the parent history a
// fork replays. The gate opens at the first record with a turn id not
// older than the session; a turn id that is no UUIDv7 opens it too (no
// way to tell: keep the data); records without a turn id stay behind it.
func (a *Adapter) skipReplayed(p jsonraw.Value) bool {
	if !a.gate {
		return false
	}
	tid := p.Get("turn_id")
	if !tid.Exists() {
		tid = p.Get("internal_chat_message_metadata_passthrough").Get("turn_id")
	}
	if tid.IsString() {
		if ms := uuidV7Millis(tid.Str()); ms == 0 || ms >= a.ownerMS {
			a.gate, a.gateDone = false, true
			return false
		}
	}
	a.replayed++
	return true
}

// uuidV7Millis is the Unix time in milliseconds a UUIDv7 was minted at, 0
// for anything else.
func uuidV7Millis(id string) int64 {
	hex := strings.ReplaceAll(id, "-", "")
	if len(hex) != 32 || hex[12] != '7' {
		return 0
	}
	ms, err := strconv.ParseInt(hex[:12], 16, 64)
	if err != nil {
		return 0
	}
	return ms
}

func (a *Adapter) turnContext(p jsonraw.Value) {
	if a.model == "" {
		a.model = p.Get("model").Str()
	}
	if a.cwd == "" {
		a.cwd = p.Get("cwd").Str()
	}
	if a.model != "" {
		a.ensureMeta()
	}
}

// ensureMeta gives init what the file says, once, and writes the user's
// turns that waited for it.
func (a *Adapter) ensureMeta() {
	if a.metaDone {
		return
	}
	a.metaDone = true
	if len(a.waiting) > 0 {
		// init takes the time of the first turn, not of the line that
		// named the model.
		if t, ok := heldTime(a.waiting[0]); ok {
			a.setTime(t)
		}
	}
	a.w.Meta(dialog.Meta{Model: a.model, CWD: a.cwd, Agent: Agent})
	waiting := a.waiting
	a.waiting = nil
	for _, h := range waiting {
		a.writeHeld(h)
	}
	a.restoreTime()
}

func heldTime(h held) (time.Time, bool) { return h.ts, !h.ts.IsZero() }

// restoreTime sets the writer's time back to the current line's.
func (a *Adapter) restoreTime() {
	if a.hasTS {
		a.setTime(a.lineTS)
	}
}

// setTime gives the writer the time of the entries that follow.
func (a *Adapter) setTime(t time.Time) {
	a.w.SourceTime(t)
	a.at = t
}

// entry is called before an entry other than a prompt is written.
func (a *Adapter) entry() {
	a.settleUser()
	a.ensureMeta()
	a.body = true
}

// output marks model output (a message, reasoning, a tool call): a new
// response begins at the first output after a turn start or a tool result.
func (a *Adapter) output(answer bool) {
	a.entry()
	a.promptOpen = false
	a.compacted = false
	a.anyOutput = true
	a.lastIsAnswer = answer
	if a.boundary {
		a.turns++
		a.boundary = false
	}
}

// notice writes a warning the converter words itself.
func (a *Adapter) notice(text string) {
	a.entry()
	a.warnings++
	a.w.Message(dialog.Message{Content: dialog.Plain(dialog.WarningPrefix + text)})
}

// warning writes a warning the file words (an error event's message).
func (a *Adapter) warning(head string, msg jsonraw.Value) {
	a.entry()
	a.warnings++
	a.text.Reset()
	a.text.Text(dialog.WarningPrefix + head)
	if l := msg.Lit(); !l.IsEmpty() {
		a.text.Lit(l)
	} else {
		a.text.Text("error")
	}
	a.w.Message(dialog.Message{Content: dialog.Lit(a.text.Literal())})
}

// compaction writes the marker of a compaction once: the compacted record
// and the context_compacted event both stand for it.
func (a *Adapter) compaction() {
	if a.compacted {
		return
	}
	a.notice("context compacted")
	a.compacted = true
}

func (a *Adapter) eventMsg(p jsonraw.Value) {
	switch string(p.Get("type").Body()) {
	case "task_started":
		a.taskEvents = true
		a.newTurn()
		if a.turnActive {
			a.closeOpen("the turn ended without a final event")
			a.notice("turn ended without a final event (interrupted or killed)")
		}
		a.turnActive = true
	case "task_complete":
		a.settleUser()
		a.taskEvents = true
		a.closeOpen("the turn ended before the tool call returned")
		a.turnActive = false
		a.end, a.endMsg, a.endTS = endComplete, "", a.lineTime()
		if e := p.Get("error"); e.Exists() && !e.IsNull() {
			a.end = endFailed
			a.endMsg = e.Get("message").Str()
			if a.endMsg == "" {
				a.endMsg = e.Str()
			}
			if a.endMsg == "" {
				a.endMsg = "turn failed"
			}
		}
	case "turn_aborted":
		a.settleUser()
		a.closeOpen("the turn was aborted before the tool call returned")
		a.turnActive = false
		a.end, a.endTS = endAborted, a.lineTime()
		a.endMsg = "turn aborted"
		if r := p.Get("reason").Str(); r != "" {
			a.endMsg += " (" + r + ")"
		}
	case "token_count":
		if info := p.Get("info"); info.IsObject() {
			if u := info.Get("total_token_usage"); u.IsObject() {
				total := codex.Tokens(u)
				// A total that did not change repeats the last request's
				// count (Codex writes each twice), so it is no one's.
				if last := info.Get("last_token_usage"); last.IsObject() && !a.stepItems && total != a.tokens {
					a.stepUsage, a.hasStepUsage = codex.Tokens(last), true
				}
				a.tokens = total
			}
		}
	case "user_message":
		a.userEvent(p.Get("message"), jsonraw.Value{})
	case "item_completed":
		a.itemCompleted(p.Get("item"))
	case "exec_command_end":
		// Older rollouts' record of a command: its exit code.
		if code, ok := p.Get("exit_code").Integer(); ok {
			a.exitCode(p.Get("call_id").Str(), code)
		}
	case "patch_apply_end":
		if !adapter.SuccessFlag(p.Get("success")) {
			a.callFailed(p.Get("call_id").Str())
		}
	case "context_compacted":
		a.settleUser()
		a.compaction()
	case "error":
		a.warning("", p.Get("message"))
	case "stream_error":
		a.warning("stream error: ", p.Get("message"))
	case "thread_rolled_back":
		n, _ := p.Get("num_turns").Int()
		a.notice("the last " + strconv.FormatInt(n, 10) + " turns were rolled back")
	case "agent_message", "agent_reasoning":
		a.w.Skip("", SkipEventCopy)
	default:
		a.w.Skip("", dialog.SkipUnknown)
	}
}

// newTurn is called when a turn starts: the previous turn's ending stops
// being the dialog's; a failure or an abort stays visible as a warning.
// The ending is cleared first: writing the warning can write held turns,
// which start a turn too.
func (a *Adapter) newTurn() {
	end, msg, ts := a.end, a.endMsg, a.endTS
	a.end, a.endMsg, a.endTS = endNone, "", time.Time{}
	switch end {
	case endFailed:
		a.endNotice("turn failed: "+msg, ts)
	case endAborted:
		a.endNotice(msg, ts)
	}
	a.boundary = true
}

// endNotice writes the warning of an earlier turn's ending, where the next
// turn starts but with the time of the line that ended it (ts, zero when
// none was given), then gives the writer its time back (the next turn's).
func (a *Adapter) endNotice(text string, ts time.Time) {
	a.entry() // held turns first, at their own times
	if ts.IsZero() {
		a.notice(text)
		return
	}
	resume := a.at
	a.setTime(ts)
	a.notice(text)
	a.setTime(resume)
}

// lineTime is the time of the current line, zero when no line gave one.
func (a *Adapter) lineTime() time.Time {
	if !a.hasTS {
		return time.Time{}
	}
	return a.lineTS
}

// itemCompleted reads Codex's own record of a finished item (0.149 on):
// the user's message, and the exit code of a command.
func (a *Adapter) itemCompleted(it jsonraw.Value) {
	switch string(it.Get("type").Body()) {
	case "UserMessage":
		a.userEvent(jsonraw.Value{}, it.Get("content"))
	case "CommandExecution":
		id := it.Get("id").Str()
		if code, ok := it.Get("exit_code").Integer(); ok {
			a.exitCode(id, code)
		} else if st := it.Get("status"); st.Is("failed") || st.Is("declined") {
			a.callFailed(id)
		}
	default:
		a.w.Skip("", SkipEventCopy)
	}
}

// exitCode records the exit code Codex's own event gives for an open call;
// the call's output comes after it.
func (a *Adapter) exitCode(id string, code int64) {
	if c := a.open[id]; c != nil {
		c.exit, c.hasExit = code, true
	}
}

// callFailed records that Codex's own event says an open call failed,
// with no exit code.
func (a *Adapter) callFailed(id string) {
	if c := a.open[id]; c != nil {
		c.failed = true
	}
}

// closeOpen ends every open call, in the order they started, as an error.
func (a *Adapter) closeOpen(why string) {
	if len(a.open) == 0 {
		return
	}
	left := make([]*call, 0, len(a.open))
	for _, c := range a.open {
		left = append(left, c)
	}
	slices.SortFunc(left, func(x, y *call) int { return x.order - y.order })
	for _, c := range left {
		a.finish(c, dialog.Plain(why), true)
	}
}

// Summary returns what the complete entry should say.
func (a *Adapter) Summary() dialog.Summary {
	s := dialog.Summary{Turns: a.turns, Tokens: a.tokens, Warnings: a.warnings}
	switch {
	case a.turnActive:
		// the last turn started and never ended: incomplete
	case a.end == endComplete:
		s.Status = dialog.StatusSuccess
	case a.end == endFailed:
		s.Status, s.Message = dialog.StatusError, a.endMsg
	case a.end == endAborted:
		s.Status, s.Message, s.Reason = dialog.StatusError, a.endMsg, ReasonInterrupted
	case !a.taskEvents && a.anyOutput && a.lastIsAnswer && len(a.open) == 0:
		// Early rollouts (0.40) mark no turn's end: a turn whose last
		// output is an answer, with no call open, is over.
		s.Status = dialog.StatusSuccess
	}
	var notes []string
	if a.gate && a.replayed > 0 {
		s.Warnings++
		notes = append(notes, strconv.Itoa(a.replayed)+" records after the parent session's session_meta were taken for its replayed history and skipped, and no turn of this session's own followed")
	}
	if a.unknown > 0 && a.unknown*2 > a.records {
		s.Warnings++
		notes = append(notes, strconv.Itoa(a.unknown)+" of "+strconv.Itoa(a.records)+" records are of types this converter does not know ("+strings.Join(a.unknownNames, ", ")+"): the rollout format may have changed")
	}
	if len(notes) > 0 {
		if s.Message != "" {
			notes = append([]string{s.Message}, notes...)
		}
		s.Message = strings.Join(notes, "; ")
	}
	return s
}

// ReasonInterrupted is complete.reason for a last turn that was aborted.
const ReasonInterrupted = "interrupted"
