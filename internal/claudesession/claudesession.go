// Package claudesession converts the session files Claude Code keeps
// (~/.claude/projects/<project>/<session>.jsonl, with its subagents'
// files) into dialog entries.
//
// Two ways in:
//
//   - One pass (a session file given as a stream: standard input, a FILE
//     read through detection, --follow): every line in file order, each
//     uuid once. Inline sidechains (Claude Code 1.0.x) are tied to their
//     Task call by its prompt. Rewound branches cannot be told from the
//     conversation before the file ends, so they stay in.
//   - Two passes (Inputs: a session file or a folder on disk): the first
//     pass reads the parentUuid graph and picks the conversation from its
//     active leaf; the second streams the file again keeping that
//     conversation only, merged by timestamp with the subagents' files,
//     whose lines come wrapped in an envelope naming their Task/Agent call.
//     The adapter reads that stream in one pass like any other.
//
// The stream Open makes holds lines of this package's own, which Claude
// Code never writes:
//
//	{"type":"claude-session-start","model":"…","cwd":"…"}
//	{"type":"claude-session-subagent","agentId":"…","toolUseId":"toolu_…","line":{…}}
//	{"type":"progress","claude-session-left-out":2}
//
// The first, at the top, names the model before the first prompt (init
// need not wait for the first answer); the second carries one line of a
// subagent's file, whose entries get parent_tool_id = toolUseId; the
// third stands for a line the second pass left out (its type, subtype and
// why), so that every line is counted.
//
// Rules where the file leaves a choice (listed in the README):
//   - Each content block of an assistant line is one entry; a block that
//     repeats, byte for byte, an earlier block of the same message.id is
//     dropped (a resumed session copies history).
//   - The user's turns are prompts: the first is the task's, each later one
//     a prompt entry where it was said. Tool results, isMeta lines (a slash
//     command's expansion among them), compaction summaries, hook lines,
//     task notifications and system reminders are not.
//   - A slash command is the user's turn as typed: "/name args" from its
//     <command-name> and <command-args> tags, at its line's time. It is
//     written when the next main-thread user or assistant line shows it
//     reached the model; when that line is its output in the CLI
//     (<local-command-stdout>: /clear, /model, /cost) it is none. One last
//     in the input is written at the end.
//   - A subagent whose messages the session file copies as progress lines
//     (data.type agent_progress, 2.1.x) has its entries built from them,
//     under parentToolUseID, each message once by uuid, when its own file
//     is not read; when it is, the copies are left out.
//   - The model: the first named by the header (the first main-thread
//     answer's, two passes), the 2.1.x model attachment or an answer; an
//     api-request line's params.model only when none of these has named
//     it by the time init is written (a request may be a side query's).
//     None: unknown.
//   - "[Request interrupted by user…]" is a warning; when nothing follows
//     it, the dialog ends in error, reason interrupted.
//   - No result line exists: the ending is success when the last
//     main-thread assistant message ended its turn (stop_reason end_turn,
//     or none with no tool call in it: 1.0.x and 2.0.x wrote most lines
//     before the stop reason was known) and no main-thread call is open;
//     an API error message last is an error; anything else is incomplete.
package claudesession

import (
	"hash/maphash"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/claude"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Agent is the init.data.agent value for this format.
const Agent = "claude-code"

// The line types of the stream Open makes (see the package comment).
const (
	typeStart    = "claude-session-start"
	typeSubagent = "claude-session-subagent"
)

// Format is Claude Code's session files.
func Format() adapter.Format {
	return adapter.Format{
		Name:   "claude-session",
		Title:  "a Claude Code session file (~/.claude/projects)",
		Agent:  Agent,
		Detect: Detect,
		New:    func(w *dialog.Writer) adapter.Adapter { return New(w) },
		Inputs: Inputs,

		ClaimedInputs: ClaimedInputs,
	}
}

// Detect says whether a line is of a Claude Code session file: its
// messages link to their parent (parentUuid) and name the session in
// camelCase (sessionId); summaries name a leaf; queue operations and file
// history snapshots are its own types; and the two line types of the
// stream Open makes are this package's.
func Detect(ev adapter.Event) adapter.Claim {
	typ := ev.Get("type")
	switch {
	case ev.Get("parentUuid").Exists():
		return adapter.Yes
	case typ.Is("summary") && ev.Get("leafUuid").Exists():
		return adapter.Yes
	case typ.Is("file-history-snapshot") || typ.Is("queue-operation") && ev.Get("sessionId").Exists():
		return adapter.Yes
	case ev.Get("sessionId").Exists() && ev.Get("uuid").Exists():
		return adapter.Yes
	case typ.Is(typeSubagent) && ev.Get("line").IsObject(), typ.Is(typeStart), typ.Is(typeUnreadable):
		return adapter.Yes
	}
	return adapter.No
}

// task is an open Task/Agent call of the main thread, for tying an inline
// sidechain (1.0.x, no agentId) to it by its prompt.
type task struct {
	id     string
	prompt uint64
	bound  bool
}

// lastMessage is the main thread's last assistant message.
type lastMessage struct {
	key     string
	stop    string
	toolUse bool
	apiErr  string // the text of a synthetic API error message
}

// held is a prompt kept until init can name the model.
type held struct {
	lit    []byte
	ts     time.Time
	images []dialog.Image // copied
}

// Adapter holds the state of one session.
type Adapter struct {
	w *dialog.Writer

	lineTS time.Time
	hasTS  bool

	model, cwd   string
	requestModel string // the model of the first API request, if no answer names one
	started      bool   // the stream's header named the model
	metaDone     bool
	waiting      []held
	// promptImages are the base64 images of the user's turn being read,
	// borrowed from its line.
	promptImages []dialog.Image
	prompted     bool
	body         bool

	seen       map[uuidKey]struct{}
	msgs       map[string]*claude.MessageState
	blocks     *claude.Blocks     // content blocks and tool calls, every call remembered
	answer     answerLine         // the assistant line being converted
	sidechains map[uuidKey]string // inline sidechain line -> its Task call ("" untied)
	tasks      []*task
	command    *claude.Command // a slash command typed, until the next line says if it reached the model

	mainSeen bool // a main-thread message was seen
	lone     bool // the stream is a subagent's own file

	turns    int
	openMain int
	// lost are main-thread calls open at an unreadable line of the
	// session file (holeAfter); lostLine is that line.
	lost        []string
	lostLine    int64
	last        lastMessage
	interrupted bool
	durMS       int64
	hasDur      bool
	warnings    int

	seed maphash.Seed // for prompt hashes
	lit  claude.Parts
}

// New returns an Adapter writing to w.
func New(w *dialog.Writer) *Adapter {
	w.SetAgent(Agent)
	a := &Adapter{
		w:          w,
		seen:       make(map[uuidKey]struct{}),
		msgs:       make(map[string]*claude.MessageState),
		sidechains: make(map[uuidKey]string),
		seed:       maphash.MakeSeed(),
	}
	// Every call is kept: the ending is judged by the main thread's open
	// calls, and a progress line is read only for a call of this
	// conversation.
	a.blocks = claude.NewBlocks(w, hook{a}, 0, &a.lit)
	return a
}

// line holds the top-level fields of one line that the adapter reads.
type line struct {
	typ, subtype, uuid, parentUUID, sidechain         jsonraw.Value
	isMeta, compactSummary, transcriptOnly            jsonraw.Value
	message, toolUseResult, timestamp, cwd, errv      jsonraw.Value
	apiError, content, compactMeta, durationMS, model jsonraw.Value
	inner, toolUseID                                  jsonraw.Value
	data, parentToolUseID, attachment, params         jsonraw.Value
	leftOut                                           jsonraw.Value // the second pass's mark of a line left out
	compaction                                        jsonraw.Value // a subagent envelope's: the line is a compaction request's
}

func readLine(v jsonraw.Value) line {
	var l line
	for m := v.Members(); m.Next(); {
		switch string(m.Key) {
		case "type":
			l.typ = m.Value
		case "subtype":
			l.subtype = m.Value
		case "uuid":
			l.uuid = m.Value
		case "parentUuid":
			l.parentUUID = m.Value
		case "isSidechain":
			l.sidechain = m.Value
		case "isMeta":
			l.isMeta = m.Value
		case "isCompactSummary":
			l.compactSummary = m.Value
		case "isVisibleInTranscriptOnly":
			l.transcriptOnly = m.Value
		case "message":
			l.message = m.Value
		case "toolUseResult":
			l.toolUseResult = m.Value
		case "timestamp":
			l.timestamp = m.Value
		case "cwd":
			l.cwd = m.Value
		case "error":
			l.errv = m.Value
		case "isApiErrorMessage":
			l.apiError = m.Value
		case "content":
			l.content = m.Value
		case "compactMetadata":
			l.compactMeta = m.Value
		case "durationMs":
			l.durationMS = m.Value
		case "model":
			l.model = m.Value
		case "line":
			l.inner = m.Value
		case "toolUseId":
			l.toolUseID = m.Value
		case "data":
			l.data = m.Value
		case "parentToolUseID":
			l.parentToolUseID = m.Value
		case "attachment":
			l.attachment = m.Value
		case keyLeftOut:
			l.leftOut = m.Value
		case "compaction":
			l.compaction = m.Value
		case "params":
			l.params = m.Value
		}
	}
	return l
}

// Event handles one line.
func (a *Adapter) Event(ev adapter.Event) error {
	l := readLine(ev.Value)
	if why, ok := l.leftOut.Int(); ok {
		a.w.Skip("", leftOut(why).skipReason())
		return nil
	}
	switch string(l.typ.Body()) {
	case typeUnreadable:
		return a.unreadable(ev.Value)
	case typeStart:
		if a.model == "" {
			a.model = l.model.Str()
		}
		if a.cwd == "" {
			a.cwd = l.cwd.Str()
		}
		// A header without a model (a subagent's file read alone: the
		// first pass takes the model from main-thread lines only) says
		// nothing init could not wait for.
		a.started = a.model != ""
		return nil
	case typeSubagent:
		if !l.inner.IsObject() {
			return errNoLine
		}
		if l.compaction.IsTrue() {
			return a.compactionLine(readLine(l.inner))
		}
		return a.line(readLine(l.inner), l.toolUseID.Str(), true)
	}
	return a.line(l, "", false)
}

// compactionLine reads a line of a compaction's own summary request: its
// answer's usage counts in the totals (the session spent it), once per
// message.id as any answer's; nothing of it is an entry, as the
// compact_boundary line says the compaction happened.
func (a *Adapter) compactionLine(l line) error {
	if l.typ.Is("assistant") && l.message.IsObject() {
		msg := claude.ParseMessage(l.message)
		if u, ok := claude.ParseUsage(msg.Usage); ok && !msg.Model.Is("<synthetic>") {
			a.lookup(string(claude.MessageKey(msg.ID, l.uuid))).Usage.MaxOf(u)
			return nil
		}
	}
	a.w.Skip("", SkipCompaction)
	return nil
}

// otherLine handles the lines of a session file that are not the
// conversation's own (user, assistant, system): the subagent messages
// copied as progress, and the lines naming the model.
func (a *Adapter) otherLine(l line, typ string, wrapped bool) error {
	switch typ {
	case "progress":
		if wrapped {
			a.w.Skip("", SkipProgress) // OpenSession passes a subagent file's own lines only
			return nil
		}
		return a.progress(l)
	case "attachment":
		// 2.1.x: the model's identity, written before the first prompt.
		if att := l.attachment; !wrapped && a.model == "" && att.Get("type").Is("model") {
			a.model = att.Get("identity").Get("modelId").Str()
		}
	case "api-request":
		// 2.1.x: the model each API request asked for. Kept only for
		// when no answer and no attachment names the model: a request
		// may be a side query's.
		if !wrapped && a.requestModel == "" {
			a.requestModel = l.params.Get("model").Str()
		}
	}
	// Summaries, snapshots, queue operations, other progress and request
	// logs: nothing of the conversation, and their times are not its
	// times.
	a.w.Skip("", dialog.SkipNoContent)
	return nil
}

// progress handles a progress line of the session file. One of
// data.type "agent_progress" (2.1.x) copies one message of a subagent
// (data.message, with its own uuid) and names the subagent's call
// (parentToolUseID): the only record of the subagent when a session is
// copied without its subagents folder. When the subagent's own file is in
// the stream, the stream holds no copies of its messages (OpenSession
// leaves them out), so each message comes once.
func (a *Adapter) progress(l line) error {
	if !l.data.Get("type").Is("agent_progress") {
		a.w.Skip("", SkipProgress) // hook and bash progress: nothing of the conversation
		return nil
	}
	call := l.parentToolUseID.Str()
	msg := l.data.Get("message")
	if call == "" || !msg.IsObject() {
		a.w.Skip("", dialog.SkipEmpty)
		return nil
	}
	if !a.blocks.Known(call) {
		a.w.Skip("", SkipNoCall) // a call not in this conversation (a rewound branch)
		return nil
	}
	return a.line(readLine(msg), call, true)
}

// line handles one line of the session; a line of a subagent's file comes
// with its call's id (wrapped).
func (a *Adapter) line(l line, parent string, wrapped bool) error {
	typ := string(l.typ.Body())
	switch typ {
	case "user", "assistant", "system":
	default:
		return a.otherLine(l, typ, wrapped)
	}
	if t, ok := adapter.Time(l.timestamp); ok {
		a.w.SourceTime(t)
		a.lineTS, a.hasTS = t, true
	}
	if k, ok := keyOf(l.uuid); ok {
		if _, dup := a.seen[k]; dup {
			a.w.Skip("", dialog.SkipDuplicate)
			return nil
		}
		a.seen[k] = struct{}{}
	}
	if a.cwd == "" {
		a.cwd = l.cwd.Str()
	}
	conversational := typ == "user" || typ == "assistant"
	if !wrapped && l.sidechain.IsTrue() {
		if conversational && !a.mainSeen {
			a.lone = true // a subagent's own file, read alone
		}
		if !a.lone {
			p, ok := a.sidechainParent(l)
			if !ok {
				a.w.Skip("", SkipNoCall) // a sidechain tied to no call in this conversation
				return nil
			}
			parent = p
		}
	} else if conversational && !wrapped {
		a.mainSeen = true
	}
	if wrapped && parent == "" {
		a.w.Skip("", SkipNoCall)
		return nil
	}
	if parent == "" {
		a.commandFate(l, typ)
	}
	switch typ {
	case "assistant":
		return a.assistant(l, parent)
	case "user":
		return a.user(l, parent)
	case "system":
		a.system(l, parent)
	}
	return nil
}

// sidechainParent ties an inline sidechain line to its Task call: a root
// (no parentUuid) by its prompt, any other line through its parent.
func (a *Adapter) sidechainParent(l line) (string, bool) {
	k, hasKey := keyOf(l.uuid)
	if l.parentUUID.IsNull() {
		id := a.bindTask(promptHash(a.seed, l.message))
		if hasKey {
			a.sidechains[k] = id
		}
		return id, id != ""
	}
	pk, ok := keyOf(l.parentUUID)
	if !ok {
		return "", false
	}
	id, ok := a.sidechains[pk]
	if !ok {
		return "", false
	}
	if hasKey {
		a.sidechains[k] = id
	}
	return id, id != ""
}

// bindTask finds the open Task call a sidechain with this prompt runs
// for: the first unbound one with the same prompt, else the first unbound
// one (parallel calls are tied in order).
func (a *Adapter) bindTask(prompt uint64) string {
	var first *task
	for _, t := range a.tasks {
		if t.bound {
			continue
		}
		if t.prompt == prompt {
			t.bound = true
			return t.id
		}
		if first == nil {
			first = t
		}
	}
	if first == nil {
		return ""
	}
	first.bound = true
	return first.id
}

// promptHash hashes the text of a sidechain root's prompt (or of a Task
// call's args.prompt): the literal's body as written, since both come
// from the same serializer.
func promptHash(seed maphash.Seed, message jsonraw.Value) uint64 {
	c := message
	if message.IsObject() {
		c = message.Get("content")
	}
	return maphash.Bytes(seed, claude.UserText(c).Body())
}

// ensureMeta gives init what the file says, once, and writes the prompts
// that waited for it.
func (a *Adapter) ensureMeta() {
	if a.metaDone {
		return
	}
	a.metaDone = true
	if len(a.waiting) > 0 && !a.waiting[0].ts.IsZero() {
		a.w.SourceTime(a.waiting[0].ts)
	}
	model := a.model
	if model == "" {
		model = a.requestModel
	}
	a.w.Meta(dialog.Meta{Model: model, CWD: a.cwd, Agent: Agent})
	waiting := a.waiting
	a.waiting = nil
	for _, h := range waiting {
		if !h.ts.IsZero() {
			a.w.SourceTime(h.ts)
		}
		v, _ := jsonraw.Parse(h.lit)
		a.writePrompt(dialog.Lit(v.Lit()), h.images)
	}
	if a.hasTS {
		a.w.SourceTime(a.lineTS)
	}
}

// entry is called before an entry other than a prompt is written.
func (a *Adapter) entry() {
	a.ensureMeta()
	a.body = true
}

// notice writes a warning the converter words itself.
func (a *Adapter) notice(text, parent string) {
	a.entry()
	a.warnings++
	a.w.Message(dialog.Message{Content: dialog.Plain(dialog.WarningPrefix + text), Parent: parent})
}

// Finish writes what waited for a line that never came: a slash command
// last in the input (nothing says it stayed in the CLI, so it is the
// user's turn), and prompts held for a model no line named (init then
// says the model is unknown).
func (a *Adapter) Finish() {
	a.settleCommand(true)
	if len(a.waiting) > 0 {
		a.ensureMeta()
	}
}

// Summary returns what the complete entry should say.
func (a *Adapter) Summary() dialog.Summary {
	s := dialog.Summary{Turns: a.turns, Warnings: a.warnings, DurationMS: a.durMS, HasDuration: a.hasDur}
	var u claude.Usage
	for _, m := range a.msgs {
		u.Add(m.Usage)
	}
	s.Tokens = u.Tokens()
	switch {
	case a.openMain > 0:
		// a call of the main thread never returned: incomplete
	case a.interrupted:
		s.Status, s.Reason, s.Message = dialog.StatusError, ReasonInterrupted, "interrupted by the user"
	case a.last.key == "":
		// no answer since the last prompt: incomplete
	case a.last.apiErr != "":
		s.Status, s.Reason, s.Message = dialog.StatusError, ReasonAPIError, a.last.apiErr
	case a.last.stop == "end_turn" || a.last.stop == "stop_sequence" || a.last.stop == "" && !a.last.toolUse:
		s.Status = dialog.StatusSuccess
	case a.last.stop == "max_tokens" || a.last.stop == "refusal" || a.last.stop == "model_context_window_exceeded":
		s.Status, s.Reason = dialog.StatusError, a.last.stop
		s.Message = "the last answer stopped: " + a.last.stop
	}
	return s
}

// The reasons the adapter gives dialog.Writer.Skip, beside the common
// ones and claude's.
const (
	SkipNoCall  = "subagent line tied to no call"                     // a sidechain whose Task call is not in the file
	SkipCLIText = "Claude Code's own text (command, hook, reminder)"  // user text Claude Code wrote in the user's place
	SkipMeta    = "meta user line (compact summary, transcript only)" // isMeta, isCompactSummary, transcript-only lines
	// SkipProgress: progress lines that are no copy of a subagent's
	// message (hook and bash progress), and the copies in a subagent's own
	// file: its messages are read from the file itself.
	SkipProgress = "progress line, not read"
	// SkipOffChain: a line of the session file that is not on the
	// conversation the first pass found (a branch the user rewound).
	SkipOffChain = "off the conversation's chain (rewound)"
	// SkipCompaction: a compaction's own summary request; its answer's
	// tokens are counted, its text is no entry.
	SkipCompaction = "compaction request (tokens counted)"
)

// Reasons written as complete.reason.
const (
	ReasonInterrupted = "interrupted" // the user interrupted the last turn
	ReasonAPIError    = "api_error"   // the last answer is Claude Code's API error message
)

// compactNotice words a compact_boundary: trigger and the tokens before.
func compactNotice(meta jsonraw.Value) string {
	pre, hasPre := meta.Get("preTokens").Int()
	return claude.CompactNotice(meta.Get("trigger").Str(), pre, hasPre)
}
