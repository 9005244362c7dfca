// Package dialogread reads a dialog.jsonl for people to look at: each line
// becomes an Entry, a tool's start and result are merged into one Node, and
// a subagent's entries are nested under the call that started it
// (parent_tool_id). It is lenient where the validator is strict: a line that
// is not a JSON object is counted and skipped, unknown types and fields are
// kept as they are, so that a broken or growing dialog can still be shown.
package dialogread

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Tokens are a token count with its breakdown (see the README's extra fields).
type Tokens struct {
	In         int64 `json:"in"`
	Out        int64 `json:"out"`
	CacheRead  int64 `json:"cache_read,omitempty"`
	CacheWrite int64 `json:"cache_write,omitempty"`
	Reasoning  int64 `json:"reasoning,omitempty"`
}

// Init is the init entry's data.
type Init struct {
	Task  string `json:"task"`
	CWD   string `json:"cwd"`
	Model string `json:"model"`
	Agent string `json:"agent"`
	// Clock is where the dialog's times come from: "source", "arrival"
	// or "conversion" (the converter's clock, reading saved input with no
	// timestamps); "" in dialogs written before it was said.
	Clock string `json:"clock,omitempty"`
}

// ClockConversion is Init.Clock of a dialog whose times are the
// converter's own: they say nothing of when the run happened or how long
// its steps took.
const ClockConversion = "conversion"

// TimesUnknown reports whether the init's times are the conversion's,
// not the run's (Clock is ClockConversion).
func (in *Init) TimesUnknown() bool { return in != nil && in.Clock == ClockConversion }

// Entry is one line of a dialog, with the fields of every entry type; those
// a type does not have stay zero.
type Entry struct {
	Line int // 1-based line number in the file
	Seq  int64
	TS   string
	Time time.Time // TS parsed; zero when it does not parse
	Type string

	Role    string
	Content string
	Tokens  *Tokens

	ToolID string
	Name   string
	Status string
	Args   json.RawMessage // the args value as written (redacted), nil when absent
	Result string
	Error  string
	Parent string // parent_tool_id

	// toolKey and parentKey are tool_id and parent_tool_id as written, when
	// redaction changed the text shown in ToolID and Parent: entries link
	// by these.
	toolKey, parentKey string

	Init *Init

	Turns       int64
	DurationMS  int64
	TotalTokens *Tokens
	Message     string
	Reason      string
	CostUSD     *float64
	Warnings    int64
}

// ToolKey is the tool_id as written, which links a result to its call
// (ToolID is the text shown, masked by a Redactor).
func (e *Entry) ToolKey() string {
	if e.toolKey != "" {
		return e.toolKey
	}
	return e.ToolID
}

// ParentKey is the parent_tool_id as written (Parent is the text shown).
func (e *Entry) ParentKey() string {
	if e.parentKey != "" {
		return e.parentKey
	}
	return e.Parent
}

// rawEntry is an entry as JSON; strings are decoded, args are kept raw.
type rawEntry struct {
	Seq          *json.Number    `json:"seq"`
	TS           string          `json:"ts"`
	Type         string          `json:"type"`
	Role         string          `json:"role"`
	Content      string          `json:"content"`
	Tokens       *Tokens         `json:"tokens"`
	ToolID       string          `json:"tool_id"`
	Name         string          `json:"name"`
	Status       string          `json:"status"`
	Args         json.RawMessage `json:"args"`
	Result       string          `json:"result"`
	Error        string          `json:"error"`
	ParentToolID string          `json:"parent_tool_id"`
	Data         *Init           `json:"data"`
	Turns        int64           `json:"turns"`
	DurationMS   int64           `json:"duration_ms"`
	TotalTokens  *Tokens         `json:"total_tokens"`
	Message      string          `json:"message"`
	Reason       string          `json:"reason"`
	CostUSD      *float64        `json:"cost_usd"`
	Warnings     int64           `json:"warnings"`
}

// ErrNotObject is the parse error of a line that is not a JSON object.
var ErrNotObject = errors.New("not a JSON object")

// ParseLine reads one dialog line. The Redactor masks every string of it
// (nil masks nothing).
func ParseLine(line []byte, red *Redactor) (Entry, error) {
	line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\ufeff")))
	if len(line) == 0 || line[0] != '{' {
		return Entry{}, ErrNotObject
	}
	var r rawEntry
	if err := json.Unmarshal(line, &r); err != nil {
		// A field of an unexpected type (e.g. content that is not a
		// string) fails the typed decode; the entry is still shown, with
		// what a generic decode gives.
		var generic map[string]any
		if json.Unmarshal(line, &generic) != nil {
			return Entry{}, err
		}
		r = looseEntry(generic)
	}
	e := Entry{
		TS: r.TS, Type: r.Type, Role: r.Role, Content: r.Content, Tokens: r.Tokens,
		ToolID: r.ToolID, Name: r.Name, Status: r.Status, Result: r.Result, Error: r.Error,
		Parent: r.ParentToolID, Init: r.Data, Turns: r.Turns, DurationMS: r.DurationMS,
		TotalTokens: r.TotalTokens, Message: r.Message, Reason: r.Reason, CostUSD: r.CostUSD,
		Warnings: r.Warnings, Seq: -1,
	}
	if r.Seq != nil {
		if n, err := r.Seq.Int64(); err == nil {
			e.Seq = n
		}
	}
	if len(r.Args) > 0 && !bytes.Equal(r.Args, []byte("null")) {
		e.Args = r.Args
	}
	if t, err := time.Parse(time.RFC3339Nano, r.TS); err == nil {
		e.Time = t
	}
	if red != nil {
		red.entry(&e)
	}
	return e, nil
}

// looseEntry takes the fields of the right types from a generic decode.
func looseEntry(m map[string]any) rawEntry {
	str := func(k string) string { s, _ := m[k].(string); return s }
	num := func(k string) int64 { f, _ := m[k].(float64); return int64(f) }
	r := rawEntry{
		TS: str("ts"), Type: str("type"), Role: str("role"), Content: str("content"),
		ToolID: str("tool_id"), Name: str("name"), Status: str("status"), Result: str("result"),
		Error: str("error"), ParentToolID: str("parent_tool_id"), Message: str("message"),
		Reason: str("reason"), Turns: num("turns"), DurationMS: num("duration_ms"), Warnings: num("warnings"),
	}
	if f, ok := m["seq"].(float64); ok && f == float64(int64(f)) {
		n := json.Number(strconv.FormatInt(int64(f), 10))
		r.Seq = &n
	}
	if a, ok := m["args"]; ok {
		r.Args, _ = json.Marshal(a)
	}
	// Strings of another type (content as an array, say) are shown as JSON.
	for _, k := range []string{"content", "result", "error"} {
		if v, ok := m[k]; ok {
			if _, isStr := v.(string); !isStr && v != nil {
				b, _ := json.Marshal(v)
				switch k {
				case "content":
					r.Content = string(b)
				case "result":
					r.Result = string(b)
				case "error":
					r.Error = string(b)
				}
			}
		}
	}
	return r
}

// Dialog is a whole dialog read for display.
type Dialog struct {
	// Count is the number of entries read.
	Count  int
	Nodes  []*Node // top-level nodes, in the order their first entry appears
	Init   *Entry
	Prompt *Entry
	// Complete is the first complete entry (the web UI's choice too).
	Complete *Entry
	// Skipped counts lines that were not JSON objects.
	Skipped int
	// LeftOut says what ReadLimited did not keep.
	LeftOut LeftOut

	tools map[string]*Node // open or closed tool nodes by tool_id
}

// Node is what a viewer shows as one block: an entry, or a tool call merged
// with its result, with the subagent's nodes under it.
type Node struct {
	Entry    *Entry // the tool start (or the only entry)
	Result   *Entry // the tool result; nil while the call runs
	Children []*Node
	Parent   *Node
	Depth    int
}

// Seqs are the seq of the node's entry and of its result, if any.
func (n *Node) Seqs() []int64 {
	if n.Result != nil && n.Result != n.Entry {
		return []int64{n.Entry.Seq, n.Result.Seq}
	}
	return []int64{n.Entry.Seq}
}

// Status is the node's tool status: the result's, else the start's.
func (n *Node) Status() string {
	if n.Result != nil {
		return n.Result.Status
	}
	return n.Entry.Status
}

// Duration is the time from the call to its result, 0 when unknown.
func (n *Node) Duration() time.Duration {
	if n.Result == nil || n.Entry.Time.IsZero() || n.Result.Time.IsZero() {
		return 0
	}
	return n.Result.Time.Sub(n.Entry.Time)
}

// IsTool reports whether the node is a tool call.
func (n *Node) IsTool() bool { return n.Entry.Type == "tool" }

// Add adds one entry and returns the node it belongs to, and whether that
// node is new (false: the entry is a tool result merged into its call).
func (d *Dialog) Add(e Entry) (*Node, bool) {
	if d.tools == nil {
		d.tools = map[string]*Node{}
	}
	d.Count++
	cp := new(Entry)
	*cp = e
	switch cp.Type {
	case "init":
		if d.Init == nil {
			d.Init = cp
		}
	case "prompt":
		if d.Prompt == nil {
			d.Prompt = cp
		}
	case "complete":
		if d.Complete == nil {
			d.Complete = cp
		}
	case "tool":
		if cp.Status != "running" && cp.ToolKey() != "" {
			if n, ok := d.tools[cp.ToolKey()]; ok && n.Result == nil {
				n.Result = cp
				return n, false
			}
		}
	}
	n := &Node{Entry: cp}
	if cp.Type == "tool" {
		if cp.Status != "running" {
			n.Result = cp // a result with no call: shown as a call of its own
		}
		if cp.ToolKey() != "" {
			if _, seen := d.tools[cp.ToolKey()]; !seen {
				d.tools[cp.ToolKey()] = n
			}
		}
	}
	if p, ok := d.tools[cp.ParentKey()]; ok && cp.ParentKey() != "" && p != n {
		n.Parent, n.Depth = p, p.Depth+1
		p.Children = append(p.Children, n)
	} else {
		d.Nodes = append(d.Nodes, n)
	}
	return n, true
}

// Read reads a whole dialog. Lines that are not JSON objects are counted in
// Skipped; only a read error fails.
func Read(r io.Reader, red *Redactor) (*Dialog, error) {
	return ReadLimited(r, red, Limits{})
}

// Limits bound what a Dialog holds, so that showing a dialog of any size
// (a 90 KB .zst expands to 1 GiB) takes bounded memory. Zero is no limit.
type Limits struct {
	// MaxBytes bounds the lines of the entries kept. The first entry that
	// would pass it, and every entry after, is left out (the dialog shown
	// is a prefix), except that the complete entry is kept, and a kept
	// call's result is merged with its text cut to LeftOutText.
	MaxBytes int64
	// MaxLine is the longest line read; a longer one is read to its end
	// without being kept, and counted.
	MaxLine int
}

// DefaultMaxBytes bounds what view and export hold, and the line they
// read: the SSEBench web UI reads no dialog over 32 MiB, so every dialog
// it can show is shown whole.
const DefaultMaxBytes = 32 << 20

// DefaultLimits are view's and export's.
func DefaultLimits() Limits { return Limits{MaxBytes: DefaultMaxBytes, MaxLine: DefaultMaxBytes} }

// LeftOutText is how much of a result's text is kept when the result is
// merged into a kept call after MaxBytes.
const LeftOutText = 2 << 10

// LeftOut says what a Dialog read with Limits does not hold.
type LeftOut struct {
	Entries   int   // entries read and left out
	Bytes     int64 // their lines' bytes
	FirstLine int   // the line of the first entry left out, 0 if none
	LongLines int   // lines longer than MaxLine, not read
	LongBytes int64 // their bytes
	// CutResults counts results merged into kept calls with their text cut.
	CutResults int
	// Limits are the limits the dialog was read with.
	Limits Limits
}

// Banner says in one sentence what was left out, for a viewer to show
// before the dialog; "" when nothing was.
func (l LeftOut) Banner() string {
	if !l.Any() {
		return ""
	}
	var parts []string
	if l.Entries > 0 {
		parts = append(parts, fmt.Sprintf("%d entries (%s) from line %d on are left out, past the cap of %s",
			l.Entries, FormatSize(l.Bytes), l.FirstLine, FormatSize(l.Limits.MaxBytes)))
	}
	if l.CutResults > 0 {
		parts = append(parts, fmt.Sprintf("text cut to %s: %s after the cap, merged into their calls",
			FormatSize(LeftOutText), counted(l.CutResults, "tool result", "tool results")))
	}
	if l.LongLines > 0 {
		parts = append(parts, fmt.Sprintf("not read: %s over %s (%s in all)",
			counted(l.LongLines, "line", "lines"), FormatSize(int64(l.Limits.MaxLine)), FormatSize(l.LongBytes)))
	}
	return "incomplete view: " + strings.Join(parts, "; ")
}

// counted is "1 line" or "3 lines".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Any reports whether anything was left out.
func (l LeftOut) Any() bool { return l.Entries > 0 || l.LongLines > 0 || l.CutResults > 0 }

// Banner says in one sentence what the dialog read does not show: what
// its limits left out, and the lines skipped as no entry; "" when nothing.
func (d *Dialog) Banner() string {
	msg := d.LeftOut.Banner()
	if d.Skipped == 0 {
		return msg
	}
	skipped := fmt.Sprintf("%d lines that are not JSON objects (or nest too deep to read) are skipped", d.Skipped)
	if d.Skipped == 1 {
		skipped = "1 line that is not a JSON object (or nests too deep to read) is skipped"
	}
	if msg == "" {
		return "incomplete view: " + skipped
	}
	return msg + "; " + skipped
}

// ReadLimited reads a dialog, holding no more than lim allows; what it
// leaves out is counted in the Dialog's LeftOut.
func ReadLimited(r io.Reader, red *Redactor, lim Limits) (*Dialog, error) {
	d := &Dialog{}
	d.LeftOut.Limits = lim
	var kept int64
	lines := 0
	err := eachLineCapped(r, lim.MaxLine, func(line []byte, long int64) error {
		lines++
		size := int64(len(line)) + 1
		if long == 0 && d.LeftOut.Entries > 0 && !bytes.Contains(line, []byte(`"complete"`)) && !bytes.Contains(line, []byte(`"tool"`)) {
			// Past the cap only the ending and tool results are kept: any
			// other line is only told apart from one that is no entry,
			// without decoding it.
			if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '{' && json.Valid(t) {
				d.Count++
				d.LeftOut.Entries++
				d.LeftOut.Bytes += size
			} else if len(t) > 0 {
				d.Skipped++
			}
			return nil
		}
		e, ok := d.ReadLine(line, long, red)
		if !ok {
			return nil
		}
		e.Line = lines
		if lim.MaxBytes > 0 && (d.LeftOut.Entries > 0 || kept+size > lim.MaxBytes) {
			d.leaveOut(e, size)
			return nil
		}
		kept += size
		d.Add(e)
		return nil
	})
	return d, err
}

// ReadLine parses a line of the dialog d for a reader that goes on past
// what it cannot show: a line not read because it is long bytes over
// MaxLine, or one that is no entry, is counted in d (LeftOut.LongLines
// and LongBytes, Skipped; a blank line nowhere) and ok is false.
func (d *Dialog) ReadLine(line []byte, long int64, red *Redactor) (e Entry, ok bool) {
	if long > 0 {
		d.LeftOut.LongLines++
		d.LeftOut.LongBytes += long
		return Entry{}, false
	}
	e, err := ParseLine(line, red)
	if err != nil {
		if len(bytes.TrimSpace(line)) > 0 {
			d.Skipped++
		}
		return Entry{}, false
	}
	return e, true
}

// leaveOut counts an entry past the cap; the complete entry is kept, and a
// kept call's result merged with its text cut.
func (d *Dialog) leaveOut(e Entry, size int64) {
	switch {
	case e.Type == "complete" && d.Complete == nil:
		e.Message = cutText(e.Message)
		d.Add(e)
		return
	case e.Type == "tool" && e.Status != "running" && e.ToolKey() != "":
		if n, ok := d.tools[e.ToolKey()]; ok && n.Result == nil {
			r, er := cutText(e.Result), cutText(e.Error)
			if r != e.Result || er != e.Error || len(e.Args) > LeftOutText {
				d.LeftOut.CutResults++
			}
			e.Result, e.Error = r, er
			if len(e.Args) > LeftOutText {
				e.Args = nil
			}
			d.Add(e)
			return
		}
	}
	d.Count++
	d.LeftOut.Entries++
	d.LeftOut.Bytes += size
	if d.LeftOut.FirstLine == 0 {
		d.LeftOut.FirstLine = e.Line
	}
}

// cutText is s cut to LeftOutText bytes, with a mark saying so.
func cutText(s string) string {
	if len(s) <= LeftOutText {
		return s
	}
	return cutBytes(s, LeftOutText) + fmt.Sprintf("… [cut: %d bytes in all; this page holds no more]", len(s))
}

// EachLine calls fn with every line of r (without its newline), whatever its
// length, until fn returns an error; the slice is valid only during the call.
func EachLine(r io.Reader, fn func([]byte) error) error {
	return eachLineCapped(r, 0, func(line []byte, _ int64) error { return fn(line) })
}

// EachLineCapped is EachLine for lines of at most maxLine bytes (0: any):
// a longer line is read to its end without being kept, and fn gets an
// empty line and its length as long.
func EachLineCapped(r io.Reader, maxLine int, fn func(line []byte, long int64) error) error {
	return eachLineCapped(r, maxLine, fn)
}

// eachLineCapped is EachLine for lines of at most maxLine bytes (0: any):
// a longer line is read to its end without being kept, and fn gets an
// empty line and its length as long.
func eachLineCapped(r io.Reader, maxLine int, fn func(line []byte, long int64) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	var long int64
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case long > 0:
			long += int64(len(chunk))
		case maxLine > 0 && len(buf)+len(bytes.TrimRight(chunk, "\r\n")) > maxLine:
			long = int64(len(buf) + len(chunk))
			buf = buf[:0]
		case errors.Is(err, bufio.ErrBufferFull) || len(buf) > 0:
			buf = append(buf, chunk...)
			chunk = buf
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if long > 0 {
			if ferr := fn(nil, long); ferr != nil {
				return ferr
			}
			long = 0
		} else if len(chunk) > 0 {
			if ferr := fn(bytes.TrimRight(chunk, "\r\n"), 0); ferr != nil {
				return ferr
			}
		}
		buf = buf[:0]
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// IsDialog reports whether the first line of a file is a dialog's init
// entry: a JSON object with "seq" 0 and "type" "init". Anything else is an
// input for the converter.
func IsDialog(firstLine []byte) bool {
	var head struct {
		Seq  *json.Number `json:"seq"`
		Type string       `json:"type"`
	}
	line := bytes.TrimSpace(bytes.TrimPrefix(firstLine, []byte("\ufeff")))
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &head) != nil {
		return false
	}
	return head.Seq != nil && head.Seq.String() == "0" && head.Type == "init"
}

// Redactor masks every match of its patterns in every string of an entry
// that is data: contents, results, errors, names, init data, the keys and
// string values inside args, and tool ids as shown. The protocol's own
// fields are never rewritten, so that a pattern cannot change what an entry
// is: type, tool and complete status and role when they hold one of the
// protocol's values, and ts when it is a timestamp (a value outside the
// protocol's is data, and masked). Tool ids link a result to its call and a
// subagent's entries to theirs by their value as written; only the text
// shown is masked.
type Redactor struct {
	res  []*regexp.Regexp
	Mask string
}

// DefaultMask replaces each match.
const DefaultMask = "[REDACTED]"

// NewRedactor compiles the patterns (Go regexp syntax); none gives nil, which
// masks nothing. A pattern that can match the empty string is refused: it
// would put a mask between every two characters, or nowhere useful, and
// either way not mean what was asked.
func NewRedactor(patterns []string) (*Redactor, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	r := &Redactor{Mask: DefaultMask}
	for _, p := range patterns {
		parsed, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			return nil, err
		}
		if matchesEmpty(parsed.Simplify()) {
			return nil, fmt.Errorf("%q can match the empty string; give a pattern that matches at least one character", p)
		}
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, err
		}
		r.res = append(r.res, re)
	}
	return r, nil
}

// matchesEmpty reports whether re can match the empty string somewhere in
// some text. It errs towards yes: an assertion (^, $, \b, \B) is taken to
// hold, since some text has a place where it does.
func matchesEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCapture, syntax.OpPlus:
		return matchesEmpty(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || matchesEmpty(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !matchesEmpty(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if matchesEmpty(sub) {
				return true
			}
		}
		return false
	}
	return false // OpNoMatch, OpCharClass, OpAnyChar, OpAnyCharNotNL
}

// String masks s: every byte that a match of any pattern covers in s is
// under a mask; overlapping matches of different patterns
// share one mask. Each pattern is matched against s as given, so that no
// pattern can match into another's mask, nor fail to match because another
// masked part of its text first.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	if len(r.res) == 1 {
		return r.res[0].ReplaceAllLiteralString(s, r.Mask)
	}
	var spans [][]int
	for _, re := range r.res {
		spans = append(spans, re.FindAllStringIndex(s, -1)...)
	}
	if len(spans) == 0 {
		return s
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	var b strings.Builder
	b.Grow(len(s))
	done := 0 // s[:done] is written or masked
	for i := 0; i < len(spans); {
		start, end := spans[i][0], spans[i][1]
		for i++; i < len(spans) && spans[i][0] < end; i++ {
			end = max(end, spans[i][1])
		}
		b.WriteString(s[done:start])
		b.WriteString(r.Mask)
		done = end
	}
	b.WriteString(s[done:])
	return b.String()
}

// isProtocolType, isProtocolStatus and isProtocolRole tell the values of
// the protocol's closed fields, which redaction leaves as they are.
func isProtocolType(s string) bool {
	switch s {
	case "init", "prompt", "message", "thinking", "tool", "complete":
		return true
	}
	return false
}

func isProtocolStatus(s string) bool {
	switch s {
	case "running", "success", "error", "timeout":
		return true
	}
	return false
}

func isProtocolRole(s string) bool { return s == "assistant" || s == "user" }

// closed masks s unless it is one of the protocol's values.
func (r *Redactor) closed(s string, protocol func(string) bool) string {
	if protocol(s) {
		return s
	}
	return r.String(s)
}

func (r *Redactor) entry(e *Entry) {
	e.Type = r.closed(e.Type, isProtocolType)
	e.Status = r.closed(e.Status, isProtocolStatus)
	e.Role = r.closed(e.Role, isProtocolRole)
	if e.Time.IsZero() {
		e.TS = r.String(e.TS)
	}
	if id := r.String(e.ToolID); id != e.ToolID {
		e.toolKey, e.ToolID = e.ToolID, id
	}
	if id := r.String(e.Parent); id != e.Parent {
		e.parentKey, e.Parent = e.Parent, id
	}
	for _, p := range []*string{&e.Content, &e.Name, &e.Result, &e.Error, &e.Message, &e.Reason} {
		*p = r.String(*p)
	}
	if e.Init != nil {
		in := *e.Init
		for _, p := range []*string{&in.Task, &in.CWD, &in.Model, &in.Agent} {
			*p = r.String(*p)
		}
		e.Init = &in
	}
	if e.Args != nil {
		var v any
		dec := json.NewDecoder(bytes.NewReader(e.Args))
		dec.UseNumber()
		if dec.Decode(&v) == nil {
			if b, err := marshalPlain(r.value(v)); err == nil {
				e.Args = b
			}
		} else {
			// Args that do not decode are shown as their text: masked as one.
			if b, err := marshalPlain(r.String(string(e.Args))); err == nil {
				e.Args = b
			}
		}
	}
}

// value masks the strings and object keys inside a decoded JSON value.
func (r *Redactor) value(v any) any { return mapStrings(v, r.String) }

// mapStrings applies f to the strings and object keys inside a decoded
// JSON value.
func mapStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = mapStrings(x[i], f)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[f(k)] = mapStrings(val, f)
		}
		return out
	}
	return v
}

// MarkInvisibleJSON is MarkInvisible over the strings and keys of a JSON
// value (escaped as \u202e or not); a value with none, or that does not
// decode, comes back as it is.
func MarkInvisibleJSON(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte(`\u`)) && firstMarked(string(raw)) < 0 {
		return raw
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return raw
	}
	changed := false
	v = mapStrings(v, func(s string) string {
		m := MarkInvisible(s)
		changed = changed || m != s
		return m
	})
	if !changed {
		return raw // kept as written, keys in their order
	}
	b, err := marshalPlain(v)
	if err != nil {
		return raw
	}
	return b
}

// marshalPlain encodes v without escaping <, > and &: the output is data,
// escaped where it is embedded.
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Summary is what a viewer says about the whole run.
type Summary struct {
	Status   string // the complete entry's status; "running" when there is none yet
	Reason   string
	Message  string
	Turns    int64
	Duration time.Duration
	Tokens   *Tokens // nil when the dialog gives none
	CostUSD  *float64
	Warnings int64
	Entries  int
	Tools    int // tool calls
	Errors   int // tool calls that ended in error
	Start    time.Time
	End      time.Time
	// TimesUnknown: the entries' times are the conversion's (see
	// Init.TimesUnknown): Start and End say nothing of the run, and
	// Duration is known only when DurationUnknown is not set (the
	// source's own figure, in the complete entry).
	TimesUnknown, DurationUnknown bool
}

// Summary sums the dialog up: the complete entry's figures when there is
// one, else what the entries so far show.
func (d *Dialog) Summary() Summary {
	var t Totals
	var walk func([]*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			t.Add(n)
			walk(n.Children)
		}
	}
	walk(d.Nodes)
	return t.Summary(d.Count, d.Init, d.Complete)
}

// Totals adds up what Summary counts one node at a time, for a reader
// that draws its nodes and lets them go. The sums do not depend on the
// order nodes are added in.
type Totals struct {
	s            Summary
	msgTokens    Tokens
	hasMsgTokens bool
	turns        int64
}

// Add counts one node, not its children: a call is counted with its
// result, so it is added once the result came (or the dialog ended).
func (t *Totals) Add(n *Node) {
	s := &t.s
	e := n.Entry
	if !e.Time.IsZero() {
		if s.Start.IsZero() || e.Time.Before(s.Start) {
			s.Start = e.Time
		}
		if e.Time.After(s.End) {
			s.End = e.Time
		}
	}
	if n.Result != nil && n.Result.Time.After(s.End) {
		s.End = n.Result.Time
	}
	switch e.Type {
	case "tool":
		s.Tools++
		if n.Status() == "error" {
			s.Errors++
		}
	case "message":
		if e.Parent == "" {
			t.turns++
		}
		if e.Tokens != nil {
			t.hasMsgTokens = true
			t.msgTokens.In += e.Tokens.In
			t.msgTokens.Out += e.Tokens.Out
		}
	}
}

// Summary is the summary of the nodes added, of a dialog of entries
// entries whose first init and complete entries are init and complete
// (nil when it has none).
func (t *Totals) Summary(entries int, init, complete *Entry) Summary {
	s := t.s
	s.Status, s.Entries = "running", entries
	s.Turns = t.turns
	if t.hasMsgTokens {
		tokens := t.msgTokens
		s.Tokens = &tokens
	}
	if !s.Start.IsZero() {
		s.Duration = s.End.Sub(s.Start)
	}
	if init != nil && init.Init.TimesUnknown() {
		s.TimesUnknown, s.DurationUnknown = true, true
		s.Duration = 0
	}
	if c := complete; c != nil {
		s.Status, s.Reason, s.Message = c.Status, c.Reason, c.Message
		s.Turns, s.Warnings, s.CostUSD = c.Turns, c.Warnings, c.CostUSD
		s.Duration = time.Duration(c.DurationMS) * time.Millisecond
		// With the conversion's clock, the writer's 0 means no figure;
		// any other is the source's own.
		s.DurationUnknown = s.TimesUnknown && c.DurationMS == 0
		if c.TotalTokens != nil {
			s.Tokens = c.TotalTokens
		}
	}
	return s
}

// ArgsSummary is a tool call's args on one line, the way people read them:
// the command, the path, the pattern or the query when the args have one,
// else key=value pairs. Newlines become spaces; the caller cuts to width.
func ArgsSummary(args json.RawMessage) string {
	if len(args) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return oneLine(string(args))
	}
	if changes, ok := m["changes"].([]any); ok && len(changes) > 0 {
		parts := make([]string, 0, len(changes))
		for _, c := range changes {
			cm, _ := c.(map[string]any)
			kind, _ := cm["kind"].(string)
			path, _ := cm["path"].(string)
			parts = append(parts, strings.TrimSpace(kind+" "+path))
		}
		return oneLine(strings.Join(parts, ", "))
	}
	for _, k := range []string{"command", "cmd", "pattern", "query", "file_path", "filePath", "path", "absolute_path", "url", "description", "prompt"} {
		if s, ok := m[k].(string); ok && s != "" {
			if k == "pattern" {
				if p, ok := m["path"].(string); ok && p != "" {
					return oneLine(s + " in " + p)
				}
			}
			return oneLine(s)
		}
		if k == "command" {
			if argv, ok := m[k].([]any); ok && len(argv) > 0 {
				parts := make([]string, 0, len(argv))
				for _, a := range argv {
					parts = append(parts, fmt.Sprint(a))
				}
				return oneLine(strings.Join(parts, " "))
			}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := m[k]
		var s string
		if str, ok := v.(string); ok {
			s = str
		} else {
			b, _ := marshalPlain(v)
			s = string(b)
		}
		if len(s) > 200 {
			s = cutBytes(s, 200) + "…"
		}
		parts = append(parts, k+"="+s)
	}
	return oneLine(strings.Join(parts, ", "))
}

// oneLine folds whitespace runs with a line break into one space.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// cutBytes cuts s to at most n bytes on a character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
