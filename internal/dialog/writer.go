package dialog

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// DefaultMaxText is the default cap, in bytes, on tool results, errors and the
// strings inside tool args. The web UI shows 1,000 characters of a result and
// re-reads the whole file every few seconds, so megabytes of output only slow it.
const DefaultMaxText = 16 << 10

// MinMaxMessage is the least cap, in bytes, on the text of one message,
// thinking or prompt entry: MaxText, when larger, caps them too. The panel
// renders a message as Markdown: one of 770 KB took it 48 s.
const MinMaxMessage = 64 << 10

// Options are what the caller knows before the stream starts.
type Options struct {
	// Task, Model, CWD and Agent override what the stream says (flags, env).
	Task, Model, CWD, Agent string
	// DefaultCWD is used when neither the options nor the stream give a
	// cwd, in a live stream only (not Saved).
	DefaultCWD string
	// FallbackModel is init's model when neither Model nor the stream gives
	// one (run takes it from the agent's command line).
	FallbackModel string
	// Prompt is written right after init when HasPrompt is set.
	Prompt    string
	HasPrompt bool
	// Clock gives the time for lines without a timestamp of their own.
	Clock Clock
	// PinnedClock says Clock is pinned (--clock, SOURCE_DATE_EPOCH): its
	// readings are no one's time, live or not (init.data.clock).
	PinnedClock bool
	// MaxText caps tool results, errors and args strings (bytes); < 0 turns
	// the cap off, 0 means DefaultMaxText.
	MaxText int
	// MaxBytes is the budget of the whole file (see budget.go); < 0 turns
	// it off, 0 means DefaultMaxBytes.
	MaxBytes int64
	// MaxImage caps the base64 of one image carried in the dialog (see
	// image.go); < 0 carries none (placeholders only), 0 means
	// DefaultMaxImage.
	MaxImage int
	// Saved says the input is saved transcripts, not a live stream: nobody
	// watches the dialog being written and the converter's clock says
	// nothing about the run. init is then held back until the first entry
	// after it, which gives init its time, so the source's own timestamps
	// win over the clock (Claude Code stamps its events, but not
	// system/init); entries written before the source gives any time are
	// held with it until one does (see release); and a run whose source
	// gives neither a duration nor timestamps has duration 0, not the time
	// the conversion took.
	Saved bool
	// Progress, when set, tells how much of the input has been read, 0..1
	// (a saved file of known size): the budget's pace then projects what
	// the rest needs (budget.go). It stays below 1 while entries may still
	// come (input read ahead but not yet converted). nil: unknown (a
	// stream).
	Progress func() float64
	// Warn, when set, is told of a dialog that grows past what the web UI
	// reads (ManyEntries), once.
	Warn func(msg string)
	// Skipped, when set, is told of every Skip, and Held of every Hold:
	// the pipeline that reads the records counts them (dispatch.Accounting).
	Skipped func(kind, reason string)
	Held    func()
}

// ManyEntries is the number of entries past which the writer warns: the
// SSEBench web UI reads at most MaxEntries entries of a finished run.
const ManyEntries = 190_000

// MaxEntries is the most entries a dialog has under a file budget: the
// SSEBench web UI's view of a finished run shows none past the 200,000th.
const MaxEntries = 200_000

// Message is an assistant text.
type Message struct {
	Content Text
	// Images follow the text (see image.go).
	Images []Image
	// Parent is the source id of the subagent's tool call, if any.
	Parent    string
	Tokens    Tokens
	HasTokens bool
}

// ToolCall starts a tool.
type ToolCall struct {
	ID   string // the source's id; made unique in the dialog if reused
	Name string
	// Args is the call's input: an object is written as it is (compact,
	// its strings capped); any other value is wrapped as {"input": value};
	// an absent one is left out.
	Args jsonraw.Value
	// ArgsKey, when set, wraps Args, whatever its type, as {ArgsKey: Args}:
	// an adapter whose args are one field of the event passes that field
	// as it stands, with no object built around it to be walked again.
	ArgsKey string
	Parent  string // source id of the subagent's tool call, if any
}

// ToolResult ends a tool.
type ToolResult struct {
	ID     string // the source's id, as given to ToolStart
	Output Text
	// Images follow the output's text (see image.go).
	Images  []Image
	IsError bool
	// Name is used only when no open call has ID: the result is then shown
	// as a call of its own.
	Name   string
	Parent string // used only with Name, for a result of an unknown call
}

// Ending overrides the status a Summary gives, when the run was cut short
// from outside (a signal, a timeout).
type Ending struct {
	Status  Status
	Reason  string
	Message string
}

// openTool is a call started and not yet ended. Its id in the dialog is
// id, or id#suffix for a renamed call (see idSet.unique).
type openTool struct {
	id, name, parent string
	suffix           idSuffix
	order            int
	closeCost        int64 // bytes kept in the budget for the entry that would close it
	plain            bool  // id and name are written as they stand (see appendToolHead)
}

// Writer writes a dialog that satisfies the contract whatever its callers
// do: seq from 0 by 1, ts never decreasing, init first, prompts after it,
// every tool start closed once, unique tool ids, complete once and last,
// valid UTF-8 throughout, within the file budget. Each entry is one Write;
// the first write error stops all writing and is returned by Err and Close.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	out  io.Writer
	opt  Options
	buf  []byte
	err  error
	seq  int
	meta Meta
	// inPlace is out when it lets entries be built at the end of its own
	// buffer; entry is where the entry being built starts in it.
	inPlace EntryBuffer
	entry   int

	initDone, promptDone, bodyStarted, closed, metaSeen bool
	status                                              Status // complete's, once closed

	start    time.Time
	cur      time.Time // time of the line being converted
	curClock bool      // cur is to be read from the clock, when an entry needs it
	last     time.Time // ts of the last entry written
	lastText []byte    // last as written, once an entry is
	srcSeen  bool
	firstSrc time.Time
	lastSrc  time.Time
	// holding: a saved input has given no time yet, and the entries built
	// meanwhile (init first) are kept in held, their ts unknown (heldTS at
	// each of heldAt, clock kind at clockAt), until a line gives one or
	// the bound is reached (see release).
	holding bool
	held    []byte
	heldAt  []int
	clockAt int
	// seqText is seq in decimal, counted up with it rather than formatted
	// anew for each entry.
	seqText decimal

	budget budget
	cut    cutter // the cuts of the entry being built
	keys   keySet // reused by appendArgs

	open  openCalls
	order int
	ids   idSet
	esc   []byte // scratch for measuring an escaped string
}

// NewWriter returns a Writer that writes to out.
func NewWriter(out io.Writer, opt Options) *Writer {
	if opt.Clock == nil {
		opt.Clock = SystemClock{}
	}
	if opt.MaxText == 0 {
		opt.MaxText = DefaultMaxText
	}
	if opt.MaxBytes == 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	if opt.MaxImage == 0 {
		opt.MaxImage = DefaultMaxImage
	}
	now := clockTime(opt.Clock)
	inPlace, _ := out.(EntryBuffer)
	w := &Writer{
		out:     out,
		inPlace: inPlace,
		opt:     opt,
		start:   now,
		cur:     now,
		holding: opt.Saved,
		budget:  budget{max: max(opt.MaxBytes, 0), progress: opt.Progress},
	}
	if inPlace == nil { // entries built in out need no buffer of their own
		w.buf = make([]byte, 0, 4096)
	}
	return w
}

// The range of times a ts can say: validate, and the consumers, read four
// digits of year.
var (
	minTime = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)
)

// minUnix and maxUnix are the seconds of minTime and maxTime since 1970.
const (
	minUnix = -62167219200
	maxUnix = 253402300799
)

// clockTime is the converter's clock, in UTC to the millisecond, held
// within the years a ts can say.
func clockTime(c Clock) time.Time { return clockForm(c.Now()) }

// clockForm is a reading of the clock in UTC to the millisecond, held
// within the years a ts can say. The seconds are compared first: a
// reading far past those years has no milliseconds in an int64.
func clockForm(t time.Time) time.Time {
	switch sec := t.Unix(); {
	case sec < minUnix:
		return minTime
	case sec > maxUnix:
		return maxTime
	}
	return time.UnixMilli(t.UnixMilli()).UTC()
}

// Err returns the first write error, if any.
func (w *Writer) Err() error { return w.err }

// Entries returns the number of entries written so far.
func (w *Writer) Entries() int { return w.seq }

// Closed reports whether the complete entry has been written.
func (w *Writer) Closed() bool { return w.closed }

// BeginLine starts the time of a new input line: the clock's, until the
// source has given a timestamp; after that, the source's last one. The
// clock is read only when the line writes an entry: most lines of some
// streams write none.
func (w *Writer) BeginLine() {
	if w.srcSeen {
		w.cur, w.curClock = w.lastSrc, false
		return
	}
	w.curClock = true
}

// SourceTime sets the time of the current line from the source's own
// timestamp. A time whose UTC form falls outside the years 0 to 9999
// (9999-12-31T23:59:59-23:59 is in the year 10000) has no ISO 8601 form of
// four digits and is ignored.
func (w *Writer) SourceTime(t time.Time) {
	t = t.UTC().Truncate(time.Millisecond)
	if t.Before(minTime) || t.After(maxTime) {
		return
	}
	if !w.srcSeen {
		w.srcSeen = true
		w.firstSrc = t
	}
	if t.After(w.lastSrc) {
		w.lastSrc = t
	}
	w.cur, w.curClock = t, false
}

// The bound on what a saved input's entries are held for a time (see
// release): an input that gives no time in its first lines shows the
// conversion's, as if nothing were held.
const (
	maxHeldEntries = 64
	maxHeldBytes   = 256 << 10
)

// heldTS stands for the ts of a held entry: a time has one width in the
// dialog (four digits of year, UTC), so the one known later takes its place.
const heldTS = "0000-01-01T00:00:00.000Z"

// release writes the entries held so far with t as their ts, and holds no
// more. t is the source's time of the first entry written once the source
// has given one (init's clock is then the source's), or the clock's, once
// the bound is reached or the input ends. ts never decreases: nothing is
// written before the held entries, and nothing after them is earlier
// than t.
func (w *Writer) release(t time.Time) {
	w.holding = false
	if len(w.held) == 0 {
		return
	}
	w.last = t
	w.lastText = t.AppendFormat(w.lastText[:0], tsLayout)
	held := w.held
	for _, at := range w.heldAt {
		copy(held[at:], w.lastText)
	}
	if w.srcSeen {
		// init was built saying "conversion": no time was known then.
		n := len(ClockConversion) - len(ClockSource)
		copy(held[w.clockAt:], ClockSource)
		held = append(held[:w.clockAt+len(ClockSource)], held[w.clockAt+len(ClockConversion):]...)
		w.budget.written -= int64(n)
	}
	w.held, w.heldAt = nil, nil
	// One Write per entry, as an entry not built in place is written: an
	// EntryBuffer's own buffer need not grow to take them all at once.
	for len(held) > 0 && w.err == nil {
		n := bytes.IndexByte(held, '\n') + 1
		_, w.err = w.out.Write(held[:n])
		held = held[n:]
	}
}

// Meta records what the stream says about the session and writes init now
// (unless Saved), if it is not written yet. Empty fields keep what
// SetAgent gave. Later calls change nothing.
func (w *Writer) Meta(m Meta) {
	if w.initDone || w.closed || w.metaSeen {
		return
	}
	w.metaSeen = true
	w.meta.Model, w.meta.CWD = m.Model, m.CWD
	if m.Agent != "" {
		w.meta.Agent = m.Agent
	}
	if !w.opt.Saved {
		w.ensureInit()
	}
}

// SetAgent names the agent for init, in case the stream never says more;
// it writes nothing.
func (w *Writer) SetAgent(agent string) {
	if !w.initDone {
		w.meta.Agent = agent
	}
}

// StreamPrompt writes the prompt the stream carries, with the images of
// the user's turn after its text (see image.go), unless a prompt is known
// already or the dialog has moved past the point where it belongs.
func (w *Writer) StreamPrompt(t Text, images ...Image) {
	if w.promptDone || w.bodyStarted || w.closed || w.opt.HasPrompt || t.IsEmpty() && len(images) == 0 {
		w.Skip("", SkipPromptKnown)
		return
	}
	w.prompt(t, images)
}

// UserPrompt writes a turn of the user's as a prompt entry where it stands
// in the dialog: a session file holds every turn of a conversation, and
// the protocol has one entry type for what the user says (the web UI shows
// each prompt entry in its place). The first prompt after init is the
// task's (StreamPrompt, or the Options' own); later turns come here.
// The images of the turn follow its text (see image.go). No text and no
// image is no entry.
func (w *Writer) UserPrompt(t Text, images ...Image) {
	if w.closed || t.IsEmpty() && len(images) == 0 {
		w.Skip("", SkipEmpty)
		return
	}
	w.prompt(t, images)
}

// prompt writes a prompt entry an adapter gives, unless the dialog's
// budget has no room for it.
func (w *Writer) prompt(t Text, images []Image) {
	if w.full(&w.budget.dropped.prompts) {
		return
	}
	w.ensureInit()
	w.promptDone = true
	w.writePrompt(t, images)
}

// Message writes an assistant message. Empty text is no entry (a Skip,
// as is every call the writer refuses in this way).
func (w *Writer) Message(m Message) {
	if !w.textEntry(m.Content.IsEmpty() && len(m.Images) == 0, &w.budget.dropped.messages) {
		return
	}
	b := w.begin("message")
	b = append(b, `,"role":"assistant","content":`...)
	b = w.appendContent(b, w.cutter(false), m.Content, m.Images)
	if m.HasTokens {
		b = append(b, `,"tokens":`...)
		b = appendTokens(b, m.Tokens)
	}
	b = w.appendParent(b, m.Parent)
	w.finish(b)
}

// Thinking writes a reasoning block. Empty text is no entry.
func (w *Writer) Thinking(content Text, parent string) {
	if !w.textEntry(content.IsEmpty(), &w.budget.dropped.thinking) {
		return
	}
	b := w.begin("thinking")
	b = append(b, `,"content":`...)
	b = w.cutter(false).appendText(b, content)
	b = w.appendParent(b, parent)
	w.finish(b)
}

// textEntry says whether a message or thinking entry is written, and
// starts the body if so: an empty one, or one after Close, is skipped; one
// the budget has no room for is counted in dropped.
func (w *Writer) textEntry(empty bool, dropped *int) bool {
	if empty || w.closed {
		w.Skip("", SkipEmpty)
		return false
	}
	if w.full(dropped) {
		return false
	}
	w.body()
	return true
}

// ToolStart writes the start of a tool call.
func (w *Writer) ToolStart(c ToolCall) {
	if w.closed || w.full(&w.budget.dropped.calls) {
		return
	}
	w.body()
	t := openTool{name: c.Name, parent: w.parentID(c.Parent), order: w.order}
	t.id, t.suffix = w.ids.unique(validUTF8(c.ID))
	if t.name == "" {
		t.name = "unknown"
	}
	w.order++

	b := w.begin("tool")
	head := len(b)
	b = appendToolHead(b, &t, "running")
	// The entry that would close this call as an error has the same head:
	// its size is kept in the budget until the call ends.
	t.closeCost = int64(len(b)-head) + closeReserve
	if t.parent != "" {
		w.esc = jsonraw.AppendEscaped(w.esc[:0], t.parent) // reused: a parented call is common
		t.closeCost += int64(len(`,"parent_tool_id":""`) + len(w.esc))
	}
	w.budget.reserve += t.closeCost
	w.open.push(c.ID, t)
	if c.Args.Exists() && w.budget.max > 0 && w.budget.pace(len(b)-w.entry) < int64(min(len(c.Args.Bytes()), maxLeanArgs)) {
		// Not even the args' fixed part fits the pace: left out, and said.
		b = append(b, `,"args_cut":true`...)
		w.budget.argsCut++
		w.budget.unkept += int64(len(c.Args.Bytes()))
		w.leaner()
	} else if c.Args.Exists() {
		cut := w.cutter(true)
		b = append(b, `,"args":`...)
		key := c.ArgsKey
		if key == "" && !c.Args.IsObject() {
			key = "input"
		}
		if key == "" {
			b = w.appendArgs(b, c.Args, 2, cut)
		} else {
			b = append(b, '{')
			b = appendKey(b, key) // a key is never cut
			b = append(b, ':')
			b = w.appendArgs(b, c.Args, 3, cut)
			b = append(b, '}')
		}
	}
	b = appendParentID(b, t.parent)
	w.finish(b)
}

// ToolEnd writes the result of a tool call. A result whose id matches no
// open call is shown as a call of its own, started and ended at once.
func (w *Writer) ToolEnd(r ToolResult) {
	if w.closed {
		return
	}
	w.body()
	t, ok := w.takeOpen(r.ID)
	if !ok {
		if w.full(&w.budget.dropped.results) {
			return
		}
		w.ToolStart(ToolCall{ID: r.ID, Name: r.Name, Parent: r.Parent})
		t, _ = w.takeOpen(r.ID)
	}
	w.writeResult(&t, r.Output, r.Images, r.IsError, true)
}

// Skip says that the input record being converted, or a part of it, is
// shown nowhere in the dialog, and why. kind names what was dropped in
// its format's own words ("" for the record's own kind, as the pipeline
// reads it; a part: e.g. "user/text"); reason is a fixed phrase from the
// adapter's code, never built from the input (SkipUnknown and the like),
// so that counts by reason add up. Nothing is written: the note goes to
// Options.Skipped. Skip is the adapters' one way to drop a record: a
// record that writes no entry and names no reason must have been used
// otherwise (init's facts, complete's totals, text joined later).
func (w *Writer) Skip(kind, reason string) {
	if w.opt.Skipped != nil {
		w.opt.Skipped(kind, reason)
	}
}

// Hold says that what the input record being converted carries is kept
// for an entry written later (text joined from deltas, a session's
// messages written once the file is read): it writes nothing now, and is
// not dropped. Nothing is written: the note goes to Options.Held.
func (w *Writer) Hold() {
	if w.opt.Held != nil {
		w.opt.Held()
	}
}

// The reasons most adapters give to Skip, so that a user reads one phrase
// for one cause whatever the format.
const (
	SkipUnknown   = "type not read"       // a type the adapter does not read (new, or of no use to a dialog)
	SkipEmpty     = "empty"               // nothing to show (no text, no call)
	SkipDuplicate = "duplicate"           // shown already (a repeated line or block)
	SkipNoContent = "not shown: metadata" // the format's bookkeeping, nothing of the conversation
	SkipEncrypted = "encrypted reasoning" // reasoning with nothing readable
	// SkipPromptKnown: the stream's prompt when the prompt is known already
	// (--prompt, an earlier replay) or the dialog is past it.
	SkipPromptKnown = "prompt known already"
	// SkipBudgetFull: an entry not written because the file is full (see
	// budget.go); SkipBudgetCut: args or a tool's text left out for it.
	SkipBudgetFull = "file budget full"
	SkipBudgetCut  = "left out for the file budget"
)

// OpenTools returns the number of tool calls started and not yet ended.
func (w *Writer) OpenTools() int { return w.open.n }

// Close ends the dialog: open tool calls are closed as errors, and the
// complete entry is written from s, with ending (if not nil) overriding its
// status. Close writes once; later calls only return the error state.
func (w *Writer) Close(s Summary, ending *Ending) error {
	if w.closed {
		return w.err
	}
	if w.holding && !w.srcSeen {
		w.release(clockTime(w.opt.Clock))
	}
	w.ensureInit()
	if ending != nil {
		s.Status, s.Reason = ending.Status, ending.Reason
		if ending.Message != "" {
			s.Message = ending.Message
		}
	}
	switch s.Status {
	case StatusSuccess, StatusError, StatusTimeout:
	default:
		s.Status = StatusError
		if s.Reason == "" {
			s.Reason = ReasonIncomplete
		}
		if s.Message == "" {
			s.Message = "the input ended before the agent's final event"
		}
	}
	w.closeOpenTools(s)
	w.budgetNote()

	dur := s.DurationMS
	if !s.HasDuration {
		switch {
		case w.srcSeen:
			dur = w.lastSrc.Sub(w.firstSrc).Milliseconds()
		case w.opt.Saved:
			dur = 0 // our clock measured the conversion, not the run
		default:
			dur = clockTime(w.opt.Clock).Sub(w.start).Milliseconds()
		}
	}
	dur = max(dur, 0)

	b := w.begin("complete")
	b = append(b, `,"status":"`...)
	b = append(b, s.Status...)
	b = append(b, `","turns":`...)
	b = strconv.AppendInt(b, int64(max(s.Turns, 0)), 10)
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendInt(b, dur, 10)
	b = append(b, `,"total_tokens":`...)
	b = appendTokens(b, s.Tokens)
	if s.Message != "" {
		b = append(b, `,"message":`...)
		b = w.lastCutter(len(b)-w.entry).appendText(b, Plain(s.Message))
	}
	if s.Reason != "" {
		b = append(b, `,"reason":`...)
		b = Plain(s.Reason).appendTo(b, maxReason, -1)
	}
	if s.HasCost && !math.IsNaN(s.CostUSD) { // JSON has no NaN: no figure
		b = append(b, `,"cost_usd":`...)
		b = strconv.AppendFloat(b, w.saturatedCost(s.CostUSD), 'f', -1, 64)
	}
	if s.Warnings > 0 {
		b = append(b, `,"warnings":`...)
		b = strconv.AppendInt(b, int64(s.Warnings), 10)
	}
	if s.HasReward && !math.IsInf(s.Reward, 0) && !math.IsNaN(s.Reward) {
		b = append(b, `,"reward":`...)
		b = strconv.AppendFloat(b, s.Reward, 'f', -1, 64)
	}
	w.finish(b)
	w.closed, w.status = true, s.Status
	return w.err
}

// saturatedCost is cost held within what JSON can say: a sum that
// overflowed to infinity is kept at the largest float, as token counts
// saturate, and a warning says so (dropping it would say the run cost
// nothing, or that its cost is unknown).
func (w *Writer) saturatedCost(cost float64) float64 {
	if !math.IsInf(cost, 0) {
		return cost
	}
	if w.opt.Warn != nil {
		w.opt.Warn("the cost adds up past the largest number JSON holds; cost_usd is held at that number")
	}
	return math.Copysign(math.MaxFloat64, cost)
}

// Status is the status the complete entry gave, once Close has written it.
func (w *Writer) Status() Status { return w.status }

func (w *Writer) closeOpenTools(s Summary) {
	if w.open.n == 0 {
		return
	}
	msg := "the tool call had no result when the input ended"
	switch s.Status {
	case StatusTimeout:
		msg = "the tool call had no result when the run was stopped"
	case StatusSuccess:
		msg = "the tool call had no result before the agent finished"
	}
	if s.Reason != "" && len(s.Reason) <= closeReason {
		msg += " (" + s.Reason + ")"
	}
	w.endOpen(Plain(msg))
}

// IsOpen reports whether the call the source calls id has started and not
// ended.
func (w *Writer) IsOpen(id string) bool {
	_, ok := w.open.find(id)
	return ok
}

// EndOpenTools ends every call still open, in the order they started, as
// an error saying why: for a format whose new process abandons the calls
// the last one left open (their results never come).
func (w *Writer) EndOpenTools(why Text) {
	if w.closed || w.open.n == 0 {
		return
	}
	w.body()
	w.endOpen(why)
}

// endOpen ends every open call with why, uncut (it is ours, and short).
func (w *Writer) endOpen(why Text) {
	left := w.open.takeAll()
	for i := range left {
		w.budget.reserve -= left[i].closeCost
		w.writeResult(&left[i], why, nil, true, false)
	}
}

// writeResult writes the end of call t, its images after its text (see
// image.go); cut says its text is the tool's, to be cut, rather than ours,
// paid for by the call's reserve.
func (w *Writer) writeResult(t *openTool, out Text, images []Image, isError, cut bool) {
	b := w.begin("tool")
	c := w.cutter(true)
	if !cut {
		c.maxText, c.share = -1, -1
	}
	key := `,"result":`
	if isError {
		b = appendToolHead(b, t, "error")
		key = `,"error":`
	} else {
		b = appendToolHead(b, t, "success")
	}
	switch {
	case out.IsEmpty() && len(images) == 0:
	case cut && out.len()+imagesLen(images) > maxMarkerLen && w.budget.max > 0 && w.budget.pace(len(b)-w.entry) < int64(len(key)+maxMarkerLen):
		// Not even a cut marker fits the pace: the text is left out, and
		// how much of it is said (its images' data counted in).
		b = append(b, key[:len(key)-2]...)
		b = append(b, `_cut":`...)
		b = strconv.AppendInt(b, int64(out.len()+imagesLen(images)), 10)
		w.budget.textCut++
		w.budget.unkept += int64(out.len() + imagesLen(images))
		w.leaner()
	default:
		b = append(b, key...)
		b = w.appendContent(b, c, out, images)
	}
	b = appendParentID(b, t.parent)
	w.finish(b)
}

// takeOpen removes and returns the call last started under src.
func (w *Writer) takeOpen(src string) (openTool, bool) {
	t, ok := w.open.take(src)
	if ok {
		w.budget.reserve -= t.closeCost
	}
	return t, ok
}

// appendKey appends key as a JSON string literal.
func appendKey(b []byte, key string) []byte {
	b = append(b, '"')
	b, _ = appendWord(b, key)
	return append(b, '"')
}

// appendWord appends s escaped as jsonraw.AppendEscaped does, and reports
// whether it is written as it stands. Ids, names and keys are mostly
// printable ASCII: they are copied without the escaper's work (its call and
// its checks for UTF-8 were ~150 instructions for a word).
func appendWord(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			// Escaping only ever lengthens a string.
			n := len(b)
			b = jsonraw.AppendEscaped(b, s)
			return b, len(b)-n == len(s)
		}
	}
	return append(b, s...), true
}

// validUTF8 is s with each byte that is not UTF-8 replaced by U+FFFD, as it
// is written: ids are made unique as they are written, so two ids that
// differ only in such bytes are told apart.
func validUTF8(s string) string {
	i := 0 // ids are short and ASCII, item_N: a plain loop is quickest
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) || utf8.ValidString(s[i:]) {
		return s
	}
	var b strings.Builder
	for _, r := range s { // U+FFFD for each byte that is not UTF-8
		b.WriteRune(r)
	}
	return b.String()
}

// parentID maps a subagent's source tool id to the dialog id of that call.
func (w *Writer) parentID(src string) string {
	if src == "" {
		return ""
	}
	if t, ok := w.open.find(src); ok {
		return idString(t.id, t.suffix)
	}
	return src
}

func (w *Writer) appendParent(b []byte, src string) []byte {
	return appendParentID(b, w.parentID(src))
}

func appendParentID(b []byte, id string) []byte {
	if id == "" {
		return b
	}
	b = append(b, `,"parent_tool_id":`...)
	return Plain(id).appendTo(b, -1, -1)
}

// appendToolHead appends a tool entry's id, name and status. The start of
// a call escapes its id and name, and notes whether they needed it: the
// entry that ends the call then copies them as they stand, unescaped
// again.
func appendToolHead(b []byte, t *openTool, status string) []byte {
	b = append(b, `,"tool_id":"`...)
	if t.plain {
		b = append(b, t.id...)
		b = append(b, t.suffix.bytes()...)
		b = append(b, `","name":"`...)
		b = append(b, t.name...)
	} else {
		// The suffix needs no escaping.
		var plainID, plainName bool
		b, plainID = appendWord(b, t.id)
		b = append(b, t.suffix.bytes()...)
		b = append(b, `","name":"`...)
		b, plainName = appendWord(b, t.name)
		t.plain = plainID && plainName
	}
	b = append(b, `","status":"`...)
	b = append(b, status...)
	return append(b, '"')
}

func appendTokens(b []byte, t Tokens) []byte {
	b = append(b, `{"in":`...)
	b = strconv.AppendInt(b, max(t.In, 0), 10)
	b = append(b, `,"out":`...)
	b = strconv.AppendInt(b, max(t.Out, 0), 10)
	if t.CacheRead > 0 {
		b = append(b, `,"cache_read":`...)
		b = strconv.AppendInt(b, t.CacheRead, 10)
	}
	if t.CacheWrite > 0 {
		b = append(b, `,"cache_write":`...)
		b = strconv.AppendInt(b, t.CacheWrite, 10)
	}
	if t.Reasoning > 0 {
		b = append(b, `,"reasoning":`...)
		b = strconv.AppendInt(b, t.Reasoning, 10)
	}
	return append(b, '}')
}

// body marks that the dialog has entries past init and prompt.
func (w *Writer) body() {
	w.ensureInit()
	w.bodyStarted = true
}

func (w *Writer) ensureInit() {
	if w.initDone {
		return
	}
	w.initDone = true
	b := w.begin("init")
	b = append(b, `,"data":{"task":`...)
	b = Plain(w.opt.Task).appendTo(b, -1, -1)
	b = append(b, `,"cwd":`...)
	b = Plain(cmp.Or(w.opt.CWD, w.meta.CWD, w.defaultCWD())).appendTo(b, -1, -1)
	b = append(b, `,"model":`...)
	b = Plain(cmp.Or(w.opt.Model, w.meta.Model, w.opt.FallbackModel, "unknown")).appendTo(b, -1, -1)
	b = append(b, `,"agent":`...)
	b = Plain(cmp.Or(w.opt.Agent, w.meta.Agent, "unknown")).appendTo(b, -1, -1)
	b = append(b, `,"clock":"`...)
	w.clockAt = len(b) // the kind's place in held, when init is held
	b = append(b, w.clockKind()...)
	b = append(b, `"}`...)
	w.finish(b)
	if w.opt.HasPrompt {
		w.promptDone = true
		w.writePrompt(Plain(w.opt.Prompt), nil)
	}
}

// The values of init.data.clock: where the dialog's times come from.
const (
	ClockSource     = "source"     // the input's own timestamps
	ClockArrival    = "arrival"    // the converter's clock as lines arrived, live
	ClockConversion = "conversion" // the converter's clock on saved input, or pinned: not the run's times
)

// clockKind says where the dialog's times come from, from what is known
// when init is written (it is first, before the rest of the input is
// seen): the source's, when a line so far gave a timestamp (a saved
// input's init waits for the first timed entry: release then says so);
// else the arrival of the lines, when they are read live by a clock that
// is not pinned; else the conversion's own, which says nothing about the
// run.
func (w *Writer) clockKind() string {
	switch {
	case w.srcSeen:
		return ClockSource
	case w.opt.Saved || w.opt.PinnedClock:
		return ClockConversion
	}
	return ClockArrival
}

// defaultCWD is init's cwd when neither the options nor the stream give
// one: the process's folder, a fact only of a live run; a saved input
// read offline gets "" (unknown), never the converter's folder.
func (w *Writer) defaultCWD() string {
	if w.opt.Saved {
		return ""
	}
	return w.opt.DefaultCWD
}

// writePrompt writes a prompt entry, with images after its text.
func (w *Writer) writePrompt(t Text, images []Image) {
	b := w.begin("prompt")
	b = append(b, `,"content":`...)
	b = w.appendContent(b, w.cutter(false), t, images)
	w.finish(b)
}

// begin starts an entry in the reused buffer: seq, ts and type.
func (w *Writer) begin(typ string) []byte {
	if w.holding {
		if !w.srcSeen {
			return w.beginHeld(typ)
		}
		w.release(w.cur) // the source's time (curClock is false once srcSeen)
	}
	if w.curClock {
		w.cur, w.curClock = clockTime(w.opt.Clock), false
	}
	// ts never decreases: an entry not later than the last has its ts,
	// whose text is kept (most entries share the time of the one before).
	later := w.cur.After(w.last)
	if later {
		w.last = w.cur
	}
	if later || w.lastText == nil {
		w.lastText = w.last.AppendFormat(w.lastText[:0], tsLayout)
	}
	b := w.buf[:0]
	if w.inPlace != nil {
		b = w.inPlace.Pending()
	}
	w.entry = len(b)
	b = append(b, `{"seq":`...)
	b = append(b, w.seqText.digits()...)
	b = append(b, `,"ts":"`...)
	b = append(b, w.lastText...)
	return appendType(b, typ)
}

// tsLayout is the form of every ts: UTC to the millisecond.
const tsLayout = "2006-01-02T15:04:05.000Z07:00"

// beginHeld starts an entry in held (see release), its ts unknown yet.
func (w *Writer) beginHeld(typ string) []byte {
	b := w.held
	w.entry = len(b)
	b = append(b, `{"seq":`...)
	b = append(b, w.seqText.digits()...)
	b = append(b, `,"ts":"`...)
	w.heldAt = append(w.heldAt, len(b))
	b = append(b, heldTS...)
	return appendType(b, typ)
}

func appendType(b []byte, typ string) []byte {
	b = append(b, `","type":"`...)
	b = append(b, typ...)
	return append(b, '"')
}

// finish writes the entry with one Write (or Commit), and counts it in the
// budget.
func (w *Writer) finish(b []byte) {
	b = append(b, '}', '\n')
	w.seq++
	w.seqText.inc()
	w.budget.written += int64(len(b) - w.entry)
	w.budget.entries = w.seq
	w.budget.text += w.cut.used
	w.cut.used = 0
	switch {
	case w.holding:
		w.held = b
		if len(w.heldAt) >= maxHeldEntries || len(b) >= maxHeldBytes {
			w.release(clockTime(w.opt.Clock))
		}
	case w.err != nil:
	case w.inPlace != nil:
		w.err = w.inPlace.Commit(b)
	default:
		w.buf = b
		if _, err := w.out.Write(b); err != nil {
			w.err = err
		}
	}
	// Once the entry is out: nothing may use out while an entry is built
	// in it.
	if w.seq == ManyEntries+1 && w.opt.Warn != nil {
		if w.budget.max > 0 {
			w.opt.Warn("the dialog has more than 190,000 entries: SSEBench's view of a finished run shows none past the 200,000th, so no new entry is written once that many would be reached (one message before complete counts those left out; --max-bytes 0 writes them all)")
		} else {
			w.opt.Warn("the dialog has more than 190,000 entries: SSEBench's view of a finished run shows none past the 200,000th (complete included)")
		}
	}
}

// EntryBuffer is an io.Writer of whole entries that lets the Writer build
// each entry at the end of the entries it holds, saving a copy of each (a
// sink.Sink). Pending returns them; Commit takes them back with one more
// entry appended, as Write would take that entry. Between the two, the
// Writer calls nobody: nothing else can write to it meanwhile.
type EntryBuffer interface {
	io.Writer
	Pending() []byte
	Commit(entries []byte) error
}

// maxReason caps complete.reason, a word or two that adapters may take
// from the input; closeReason is the longest reason quoted in the error of
// a call closed at the end.
const (
	maxReason   = 100
	closeReason = 32
)

// cutter starts the cuts of the entry being built: a tool's text (capped
// by MaxText) or the agent's words (capped by MaxText or MinMaxMessage,
// the larger), and both by the file budget.
func (w *Writer) cutter(tool bool) *cutter {
	w.cut = cutter{b: &w.budget, maxText: -1, share: shareLater, message: !tool, entry: w.entry}
	switch {
	case tool:
		w.cut.maxText = w.opt.MaxText
	case w.opt.MaxText >= 0:
		w.cut.maxText = max(w.opt.MaxText, MinMaxMessage)
	}
	return &w.cut
}

// maxLeanArgs is the size of args past which args are left out rather
// than cut when the pace leaves an entry less than that.
const maxLeanArgs = 256

// full reports whether the file is full (see budget.go), and counts the
// entry it will not write in n.
func (w *Writer) full(n *int) bool {
	if !w.budget.full(w.open.n) {
		return false
	}
	if w.budget.dropped.total() == 0 && w.opt.Warn != nil {
		w.opt.Warn(fmt.Sprintf("the dialog reached its budget (%s, %d entries): no new entry is written; calls already started still end, and one message before complete says how many entries were left out", sizeText(w.budget.max), w.seq))
	}
	*n++
	w.Skip("", SkipBudgetFull)
	return true
}

// leaner warns, the first time, that the budget leaves args or tool text out.
func (w *Writer) leaner() {
	w.Skip("", SkipBudgetCut)
	if w.budget.argsCut+w.budget.textCut == 1 && w.opt.Warn != nil {
		w.opt.Warn(fmt.Sprintf("the dialog is filling its budget (%s) with many entries: from entry %d on, tool args and output that do not fit are left out (args_cut, result_cut, error_cut)", sizeText(w.budget.max), w.seq))
	}
}

// budgetNote writes, before complete, the message that says what the
// budget cut and left out, if anything; its text is ours and short, paid
// for by the complete reserve. A dialog over its budget says so too.
func (w *Writer) budgetNote() {
	b := &w.budget
	over := b.max > 0 && b.written+completeReserve > b.max
	if b.argsCut+b.textCut+b.imagesCut+b.dropped.total() == 0 && !over {
		return
	}
	var parts []string
	if b.argsCut > 0 {
		parts = append(parts, fmt.Sprintf("%d tool calls without their args (args_cut)", b.argsCut))
	}
	if b.textCut > 0 {
		parts = append(parts, fmt.Sprintf("%d tool results without their text (result_cut, error_cut)", b.textCut))
	}
	if b.imagesCut > 0 {
		parts = append(parts, fmt.Sprintf("%d images as placeholders", b.imagesCut))
	}
	d := b.dropped
	if d.total() > 0 {
		parts = append(parts, fmt.Sprintf("%d entries left out at the end: %d tool calls, %d results, %d messages, %d thinking, %d prompts", d.total(), d.calls, d.results, d.messages, d.thinking, d.prompts))
	}
	text := WarningPrefix + "the dialog was kept under its budget of " + sizeText(b.max) + ": " + strings.Join(parts, "; ")
	if over {
		text = WarningPrefix + fmt.Sprintf("the dialog is over its budget of %s: its entries' ids, names and keys alone outgrew it", sizeText(b.max))
		if len(parts) > 0 {
			text += "; " + strings.Join(parts, "; ")
		}
		if w.opt.Warn != nil {
			w.opt.Warn(fmt.Sprintf("the dialog is %d bytes, over its budget of %s", b.written, sizeText(b.max)))
		}
	}
	e := w.begin("message")
	e = append(e, `,"role":"assistant","content":`...)
	e = Plain(text).appendTo(e, -1, -1)
	w.finish(e)
}

// lastCutter starts the cuts of the complete entry, n bytes so far: its
// message is capped by MaxText and may take what is left of the budget
// but for maxCompleteTail, the most its fields after the message take.
func (w *Writer) lastCutter(n int) *cutter {
	w.cut = cutter{b: &w.budget, maxText: w.opt.MaxText, share: -1, entry: w.entry}
	if w.budget.max > 0 {
		w.cut.share = max(0, w.budget.max-w.budget.written-int64(n)-maxCompleteTail)
		w.cut.final = true
	}
	return &w.cut
}

// decimal is a count from 0 held as its decimal digits, counted up in place.
// The zero decimal is 0.
type decimal struct{ text []byte }

func (d *decimal) digits() []byte {
	if d.text == nil {
		d.text = []byte{'0'}
	}
	return d.text
}

// inc adds one: the last digit that is not a 9 goes up, the 9s after it
// become 0s, and all 9s become a 1 and as many 0s.
func (d *decimal) inc() {
	t := d.digits()
	for i := len(t) - 1; i >= 0; i-- {
		if t[i] != '9' {
			t[i]++
			return
		}
		t[i] = '0'
	}
	d.text = append([]byte{'1'}, t...)
}
