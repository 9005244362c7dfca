// Package claude converts Claude Code's --output-format stream-json events
// (and the Agent SDK's message stream, which is the same) into dialog entries.
//
// Rules where the stream leaves a choice (to be listed in the README):
//   - Each content block of an assistant line is one entry; a block that
//     repeats, byte for byte, an earlier block of the same message.id is a
//     duplicate and is dropped.
//   - thinking with empty text (display "omitted", signature only) and
//     redacted_thinking are no entry: there is no text to show.
//   - stream_event lines (--include-partial-messages) never make entries; the
//     complete assistant line that follows each block does. Their usage only
//     refines the per-message fallback totals. A block cut off before its
//     assistant line is lost.
//   - A subagent's prompt echo (a user text line with parent_tool_use_id) is
//     skipped: it repeats the Agent/Task call's args.prompt. Skill bodies
//     injected as user text (isSynthetic) are skipped too.
//   - The first replayed user message (isReplay, --replay-user-messages) is
//     the prompt, unless one is known already; later ones are skipped. A
//     replayed slash command is the command as typed ("/name args", not
//     its tags), unless the next replay is its output in the CLI
//     (<local-command-stdout>: /clear, /cost never reach the model); such
//     output is no prompt either.
//   - Synthetic assistant messages (model "<synthetic>": API errors, local
//     command output) are shown as messages, unchanged, but are not turns;
//     those with a top-level error count as warnings, as do system/api_retry.
//   - Per-message tokens: the usage on an assistant line is the
//     message_start snapshot (output 0–8, a placeholder) unless the line
//     has a stop_reason, which it gets only once the API's message_delta
//     has given the final counts. So the first text entry of an API
//     message whose line has a stop_reason carries that message's usage,
//     once per message.id; other message entries carry none (unknown,
//     not a placeholder shown as a count). Synthetic messages carry none.
//     Qwen Code's lines are final when their usage is not all zeros
//     (compatible.go).
//
// Claude-compatible streams go through the same adapter, named by their
// system/init (see compatible.go): Qwen Code (qwen_code_version) and Amp
// (a thread id "T-…" as session_id).
package claude

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Agent is the init.data.agent value for this format.
const Agent = "claude-code"

// AgentQwen is init.data.agent for Qwen Code, whose stream is Claude
// Code's (its init says qwen_code_version).
const AgentQwen = "qwen-code"

// AgentAmp is init.data.agent for Amp (amp -x --stream-json), whose stream
// is Claude Code's (its init's session_id is a thread id, "T-…").
const AgentAmp = "amp"

// Format is the Claude Code stream-json input format.
func Format() adapter.Format {
	return adapter.Format{
		Name:     "claude",
		Title:    "Claude Code stream-json",
		Agent:    Agent,
		Detect:   Detect,
		New:      func(w *dialog.Writer) adapter.Adapter { return New(w) },
		Commands: []string{"claude"},
	}
}

// Detect says whether an event is Claude Code's. Event types alone are
// shared: Cursor's stream has system/init, user, assistant and result
// lines too, and Gemini's ends with a result. So an event is surely
// Claude's only by what Claude alone prints: an init listing its tools, an
// assistant message of the API (with its id), a result with
// Claude's accounting (num_turns, total_cost_usd), the fields of its newer
// versions (uuid, parent_tool_use_id), or a type no other stream has.
// Claude Code's session files (camelCase sessionId, parentUuid) are not
// this stream.
func Detect(ev adapter.Event) adapter.Claim {
	var typ, subtype, message, session jsonraw.Value
	claudeOnly := false
	for m := ev.Members(); m.Next(); {
		switch string(m.Key) {
		case "type":
			typ = m.Value
		case "subtype":
			subtype = m.Value
		case "message":
			message = m.Value
		case "session_id":
			session = m.Value
		case "tools", "claude_code_version", "qwen_code_version", "mcp_servers", "modelUsage",
			"total_cost_usd", "num_turns", "parent_tool_use_id", "uuid":
			claudeOnly = true
		case "sessionId", "parentUuid":
			return adapter.No
		}
	}
	switch string(typ.Body()) {
	case "stream_event", "rate_limit_event", "tool_progress", "tool_use_summary", "control_request",
		"control_response", "keep_alive", "prompt_suggestion", "auth_status":
		return adapter.Yes
	case "system":
		if claudeOnly || (subtype.Exists() && !subtype.Is("init")) {
			return adapter.Yes
		}
		return adapter.Maybe
	case "assistant", "user":
		if claudeOnly || message.Get("id").Exists() {
			return adapter.Yes
		}
		if message.IsObject() {
			return adapter.Maybe
		}
	case "result":
		if claudeOnly {
			return adapter.Yes
		}
		if subtype.Exists() && session.Exists() {
			return adapter.Maybe
		}
	}
	return adapter.No
}

// Adapter holds the state of one Claude Code stream.
type Adapter struct {
	w *dialog.Writer

	initSeen bool      // init is written, or its data is known
	waitInit bool      // a system/init without a model waits for an answer's
	initCWD  string    // the cwd of that system/init
	agent    string    // init.data.agent: claude-code, or a compatible CLI's name
	prompted bool      // the first replayed user message was seen
	command  *Command  // a replayed slash command, until the next event says if it reached the model
	lineTS   time.Time // the current line's timestamp (zero: none)
	boundary bool      // Qwen Code: the next main-thread output is a new turn

	msgs      recent[*MessageState] // by message.id, the most recent ones
	forgotten Usage                 // the usage of messages msgs no longer holds
	blocks    *Blocks               // content blocks and tool calls, the most recent calls remembered
	stream    map[string]string     // current partial message id per parent
	turns     int
	totals    totals
	loose     Usage // usage of messages without an id, summed

	status         dialog.Status
	errMsg, reason string
	durMS          int64
	hasDur         bool
	warnings       int
	lit            Parts
}

// How many messages and tool calls the adapter remembers (see recent): far
// more than are ever in flight at once, and a few hundred KiB at most.
const (
	recentMessages = 1024
	recentTools    = 4096
)

// New returns an Adapter writing to w.
func New(w *dialog.Writer) *Adapter {
	w.SetAgent(Agent)
	a := &Adapter{
		w:      w,
		agent:  Agent,
		msgs:   newRecent[*MessageState](recentMessages),
		stream: make(map[string]string),
	}
	a.blocks = NewBlocks(w, nil, recentTools, &a.lit)
	return a
}

// event holds the top-level fields of one line that the adapter reads.
type event struct {
	typ, subtype, message, parent, timestamp, uuid, err jsonraw.Value
	replay, toolUseResult, streamEvent                  jsonraw.Value
	model, cwd, qwenVersion, session, compact           jsonraw.Value
	isError, duration, errors, result, terminalReason   jsonraw.Value
	res                                                 resultTotals
}

// The reasons the adapter gives dialog.Writer.Skip, beside the common ones.
const (
	SkipEncrypted = dialog.SkipEncrypted                      // redacted_thinking: nothing readable
	SkipBlock     = "content block not read"                  // a block type the adapter does not read
	SkipUserText  = "user content (not the prompt)"           // a subagent's prompt echo, a skill's body, a slash command's output, an image
	SkipPartial   = "partial message (the whole one follows)" // --include-partial-messages deltas
)

// The errors of a line that holds no API message to read, in both Claude
// formats.
var (
	ErrNoMessage = errors.New("no message object")
	ErrNoContent = errors.New("message.content is neither an array nor a string")
)

// Event handles one stream-json event.
func (a *Adapter) Event(e adapter.Event) error {
	var ev event
	for m := e.Members(); m.Next(); {
		switch string(m.Key) {
		case "type":
			ev.typ = m.Value
		case "subtype":
			ev.subtype = m.Value
		case "message":
			ev.message = m.Value
		case "parent_tool_use_id":
			ev.parent = m.Value
		case "timestamp":
			ev.timestamp = m.Value
		case "uuid":
			ev.uuid = m.Value
		case "error":
			ev.err = m.Value
		case "isReplay":
			ev.replay = m.Value
		case "tool_use_result":
			ev.toolUseResult = m.Value
		case "event":
			ev.streamEvent = m.Value
		case "model":
			ev.model = m.Value
		case "cwd":
			ev.cwd = m.Value
		case "is_error":
			ev.isError = m.Value
		case "duration_ms":
			ev.duration = m.Value
		case "errors":
			ev.errors = m.Value
		case "result":
			ev.result = m.Value
		case "terminal_reason":
			ev.terminalReason = m.Value
		case "total_cost_usd":
			ev.res.cost = m.Value
		case "cost_usd":
			if !ev.res.cost.Exists() {
				ev.res.cost = m.Value
			}
		case "usage":
			ev.res.usage = m.Value
		case "modelUsage":
			ev.res.modelUsage = m.Value
		case "result_index":
			ev.res.resultIndex = m.Value
		case "qwen_code_version":
			ev.qwenVersion = m.Value
		case "compact_metadata":
			ev.compact = m.Value
		case "session_id":
			ev.session = m.Value
		}
	}
	a.lineTS = time.Time{}
	if t, ok := adapter.Time(ev.timestamp); ok {
		a.w.SourceTime(t)
		a.lineTS = t
	}
	switch string(ev.typ.Body()) {
	case "system":
		a.system(&ev, e.Value)
	case "assistant":
		return a.assistant(&ev)
	case "user":
		return a.user(&ev)
	case "result":
		a.result(&ev)
	case "stream_event":
		a.partial(&ev)
	default:
		a.w.Skip("", dialog.SkipUnknown)
	}
	return nil
}

// system handles a system line; line is the whole line, for the fields
// of the rarer subtypes.
func (a *Adapter) system(ev *event, line jsonraw.Value) {
	switch string(ev.subtype.Body()) {
	case "init", "session_start":
		a.totals.initSinceResult = true
		if a.initSeen {
			return // a later init (background task, model switch): no new entry
		}
		a.initSeen = true
		a.setAgent(ev)
		model, cwd := ev.model.Str(), ev.cwd.Str()
		if model == "" {
			// Some captures cut init down; the first answer names the model.
			a.waitInit, a.initCWD = true, cwd
			return
		}
		a.w.Meta(dialog.Meta{Model: model, CWD: cwd, Agent: a.agent})
	case "api_retry":
		a.warnings++
	case "compact_boundary":
		pre, hasPre := ev.compact.Get("pre_tokens").Int()
		a.notice(CompactNotice(ev.compact.Get("trigger").Str(), pre, hasPre), ev.parent.Str())
	case "status":
		// Status lines say what the CLI is doing (requesting, compacting)
		// and how a compaction ended; only a failed one is news.
		if !line.Get("compact_result").Is("failed") {
			a.w.Skip("", dialog.SkipUnknown)
			return
		}
		text := "context compaction failed"
		if e := strings.TrimSpace(line.Get("compact_error").Str()); e != "" {
			text += ": " + e
		}
		a.notice(text, ev.parent.Str())
	default:
		a.w.Skip("", dialog.SkipUnknown)
	}
}

// notice writes a warning message: something the run went through that
// the dialog must show, though no model said it.
func (a *Adapter) notice(text, parent string) {
	a.warnings++
	a.w.Message(dialog.Message{Content: dialog.Plain(dialog.WarningPrefix + text), Parent: parent})
}

// CompactNotice words a compaction, in both Claude formats: how it was
// triggered (auto, manual) and the context's size before, in thousands of
// tokens, each when known.
func CompactNotice(trigger string, preTokens int64, hasPre bool) string {
	s := "context compacted"
	switch {
	case trigger != "" && hasPre:
		s += " (" + trigger + ", " + strconv.FormatInt(preTokens/1000, 10) + "k tokens)"
	case trigger != "":
		s += " (" + trigger + ")"
	case hasPre:
		s += " (" + strconv.FormatInt(preTokens/1000, 10) + "k tokens)"
	}
	return s
}

// meta writes init from a system/init that lacked the model, or, when no
// system/init came at all, from the first answer's model.
// The model is read only when init is still to be written: every
// assistant line names it.
func (a *Adapter) meta(model jsonraw.Value) {
	if a.initSeen && !a.waitInit {
		return
	}
	a.initSeen, a.waitInit = true, false
	a.w.Meta(dialog.Meta{Model: model.Str(), CWD: a.initCWD, Agent: a.agent})
}

// MessageKey is the id that groups the lines of one API message:
// message.id, else the line's uuid; absent when the line has neither. It
// is the literal's text as written: the ids are plain ASCII.
func MessageKey(id, uuid jsonraw.Value) []byte {
	if k := id.Body(); len(k) > 0 {
		return k
	}
	return uuid.Body()
}

// lookup returns the state of message key, creating it.
func (a *Adapter) lookup(key []byte) *MessageState {
	if len(key) == 0 {
		return &MessageState{} // no id: a message of its own, never matched again
	}
	ms, _ := a.msgs.get(string(key))
	if ms == nil {
		ms = &MessageState{}
		if old, ok := a.msgs.put(string(key), ms); ok {
			a.forgotten.Add(old.Usage) // the fallback totals keep its usage
		}
	}
	return ms
}

func (a *Adapter) assistant(ev *event) error {
	if !ev.message.IsObject() {
		return ErrNoMessage
	}
	msg := ParseMessage(ev.message)
	id, model, content, use := msg.ID, msg.Model, msg.Content, msg.Usage
	if !content.IsArray() && !content.IsString() {
		return ErrNoContent
	}
	synthetic := model.Is("<synthetic>") || !ev.err.IsNull()
	switch {
	case !synthetic:
		a.meta(model)
	case a.waitInit:
		a.meta(jsonraw.Value{})
	}
	a.settleCommand(true) // an answer: the command reached the model
	parent := ev.parent.Str()
	key := MessageKey(id, ev.uuid)
	ms := a.lookup(key)
	if !ms.Seen {
		ms.Seen = true
		if synthetic && !ev.err.IsNull() {
			a.warnings++
		}
	}
	final := false // this line's usage is the message's final count
	if !synthetic {
		if parent == "" && a.countsTurn(ms) {
			a.turns++
		}
		if u, ok := a.parseUsage(use); ok {
			ms.Usage.MaxOf(u)
			if len(key) == 0 {
				a.loose.Add(u) // no id (Amp): a message of its own
			}
			final = a.finalUsage(msg.StopReason, u)
		}
	}
	a.blocks.Assistant(content, parent, ms, final)
	return nil
}

func (a *Adapter) user(ev *event) error {
	if !ev.message.IsObject() {
		return ErrNoMessage
	}
	if a.waitInit {
		a.meta(jsonraw.Value{})
	}
	content := ev.message.Get("content")
	isReplay := ev.replay.IsTrue() || a.echoesPrompt(ev)
	if isReplay && ev.parent.IsNull() && a.replayedCommand(content) {
		return nil
	}
	replay := isReplay && !a.prompted
	if isReplay {
		a.prompted = true
	}
	if content.IsString() {
		if replay {
			a.w.StreamPrompt(dialog.Lit(content.Lit()))
		} else {
			a.w.Skip("", SkipUserText)
		}
		return nil
	}
	if !content.IsArray() {
		return ErrNoContent
	}
	if replay {
		a.lit.Reset()
		for e := content.Elements(); e.Next(); {
			if e.Value.Get("type").Is("text") {
				a.lit.Add(e.Value.Get("text").Lit())
			}
		}
		a.w.StreamPrompt(a.lit.Text())
	}
	parent := ev.parent.Str()
	for e := content.Elements(); e.Next(); {
		// Text blocks are the subagent's prompt echo (the Agent call's
		// args.prompt), an injected skill body, or a replay: none is output.
		if e.Value.Get("type").Is("tool_result") {
			a.blocks.ToolResult(e.Value, ev.toolUseResult, parent)
			if parent == "" {
				a.boundary = true
			}
		} else if !replay {
			a.w.Skip("", SkipUserText)
		}
	}
	return nil
}

// partial reads the usage of --include-partial-messages stream events; their
// content is left to the complete assistant lines.
func (a *Adapter) partial(ev *event) {
	e := ev.streamEvent
	switch string(e.Get("type").Body()) {
	case "message_start":
		msg := e.Get("message")
		key := msg.Get("id").Body()
		if len(key) == 0 || msg.Get("model").Is("<synthetic>") {
			return
		}
		ms := a.lookup(key)
		parent := string(ev.parent.Body())
		if a.stream[parent] != string(key) {
			a.stream[parent] = string(key)
		}
		if u, ok := a.parseUsage(msg.Get("usage")); ok {
			ms.Usage.MaxOf(u)
		}
	case "message_delta":
		key := a.stream[string(ev.parent.Body())]
		if key == "" {
			return
		}
		if u, ok := a.parseUsage(e.Get("usage")); ok {
			a.lookup([]byte(key)).Usage.MaxOf(u)
		}
	default:
		a.w.Skip("", SkipPartial)
	}
}

// result records a result event: is_error decides (anything but false or
// null is an error); without it, the subtype does.
func (a *Adapter) result(ev *event) {
	a.settleCommand(true)
	isErr := adapter.FailureFlag(ev.isError)
	subtype := ev.subtype.Str()
	if ev.isError.IsNull() {
		isErr = subtype != "" && subtype != "success"
	}
	a.status = dialog.StatusSuccess
	if isErr {
		a.status = dialog.StatusError
	}
	a.reason = reasonFor(subtype, ev.terminalReason.Str(), isErr)
	a.errMsg = ""
	if isErr {
		a.errMsg = errorMessage(ev.errors, ev.result, ev.err, subtype)
	}
	if note := adapter.FlagNote(ev.isError, "is_error"); note != "" {
		// Not the agent's word for an error: the message says why it is
		// one, and the reason guesses at no cause.
		a.errMsg = note + " (" + a.errMsg + ")"
		if a.reason == ReasonAPIError {
			a.reason = ReasonInvalidFlag
		}
	}
	if d, ok := ev.duration.Int(); ok {
		a.durMS = dialog.AddSat(a.durMS, d)
		a.hasDur = true
	}
	a.totals.add(ev.res)
}

// Reasons written as complete.reason for a result that ended in error, or
// with an error subtype.
const (
	ReasonMaxTurns         = "max_turns"         // error_max_turns, terminal_reason max_turns
	ReasonBudget           = "budget"            // error_max_budget_usd
	ReasonStructuredOutput = "structured_output" // error_max_structured_output_retries
	ReasonInterrupted      = "interrupted"       // terminal_reason aborted_streaming / aborted_tools
	ReasonDuringExecution  = "during_execution"  // error_during_execution
	ReasonAPIError         = "api_error"         // is_error with subtype success: API, auth, billing, network
	ReasonInvalidFlag      = "invalid_is_error"  // is_error not a boolean ("false" as a string): read as an error
)

// reasonFor maps a result's subtype and terminal_reason to complete.reason.
// Unknown error subtypes give the subtype without its "error_" prefix.
func reasonFor(subtype, terminal string, isErr bool) string {
	switch {
	case subtype == "error_max_turns" || terminal == "max_turns":
		return ReasonMaxTurns
	case subtype == "error_max_budget_usd":
		return ReasonBudget
	case subtype == "error_max_structured_output_retries":
		return ReasonStructuredOutput
	case strings.HasPrefix(terminal, "aborted"):
		return ReasonInterrupted
	case subtype == "error_during_execution":
		return ReasonDuringExecution
	case strings.HasPrefix(subtype, "error_"):
		return strings.TrimPrefix(subtype, "error_")
	case isErr:
		return ReasonAPIError
	}
	return ""
}

// errorMessage says why a result is an error: its errors[], else its result
// text, else its error: error.message (Qwen Code) or the error string
// (Amp), else its subtype.
func errorMessage(errs, result, errv jsonraw.Value, subtype string) string {
	var parts []string
	for e := errs.Elements(); e.Next(); {
		if s := strings.TrimSpace(e.Value.Str()); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, "; ")
	}
	if s := result.Str(); strings.TrimSpace(s) != "" {
		return s
	}
	if s := errv.Get("message").Str(); strings.TrimSpace(s) != "" {
		return s
	}
	if s := errv.Str(); strings.TrimSpace(s) != "" {
		return s
	}
	if subtype != "" {
		return subtype
	}
	return "the run ended in error"
}

// Summary returns what the complete entry should say.
func (a *Adapter) Summary() dialog.Summary {
	s := dialog.Summary{
		Status:      a.status,
		Message:     a.errMsg,
		Reason:      a.reason,
		Turns:       a.turns,
		DurationMS:  a.durMS,
		HasDuration: a.hasDur,
		Warnings:    a.warnings,
	}
	if t, ok := a.totals.tokens(); ok {
		s.Tokens = t
	} else {
		// No result: the per-message usage, each message.id counted once
		// (those forgotten too), and that of every message without an id.
		u := a.forgotten
		u.Add(a.loose)
		a.msgs.all(func(ms *MessageState) { u.Add(ms.Usage) })
		s.Tokens = u.Tokens()
	}
	if c, ok := a.totals.cost(); ok {
		if r := math.Round(c*1e10) / 1e10; a.totals.baseCost != 0 && !math.IsInf(r, 0) {
			c = r // a sum of legs: drop float noise (of a finite sum only)
		}
		s.CostUSD, s.HasCost = c, true
	}
	return s
}
