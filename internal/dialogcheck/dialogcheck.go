// Package dialogcheck checks a dialog.jsonl against the protocol's
// contract, line by line, as its consumers read it.
package dialogcheck

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Finding is one way a dialog breaks the contract. Line is 1-based; 0 means
// the file as a whole.
type Finding struct {
	Line int    `json:"line"`
	Msg  string `json:"message"`
}

func (f Finding) String() string {
	if f.Line == 0 {
		return f.Msg
	}
	return fmt.Sprintf("%d: %s", f.Line, f.Msg)
}

// isISOUTC reports whether s is a timestamp the protocol allows: ISO 8601
// in UTC, YYYY-MM-DDTHH:MM:SS, optional fractional seconds (1 to 9 digits),
// then Z or +00:00. A few comparisons, not a regexp: a package-level regexp
// would be compiled at the start of every process, conversions included.
func isISOUTC(s string) bool {
	const head = "dddd-dd-ddTdd:dd:dd" // d: a digit; anything else stands for itself
	if len(s) < len(head) {
		return false
	}
	for i := range len(head) {
		if c := s[i]; head[i] == 'd' && (c < '0' || c > '9') || head[i] != 'd' && c != head[i] {
			return false
		}
	}
	rest := s[len(head):]
	if len(rest) > 0 && rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 || n > 10 {
			return false
		}
		rest = rest[n:]
	}
	return rest == "Z" || rest == "+00:00"
}

type startedTool struct {
	name string
	line int
}

type validator struct {
	report   func(Finding)
	n        int // entries seen
	lastTS   time.Time
	haveTS   bool
	initLine int
	complete int // line of the complete entry, 0 if none
	open     map[string]startedTool
	seen     map[string]int // every tool id ever started -> line
	count    int
	shape    shapeScan
}

// MaxCheckedLine is the longest line Validate reads: the SSEBench web UI
// reads no file over 32 MiB, so a longer line is unreadable to it whatever
// it holds. Such a line is a finding and is skipped unread (its bytes are
// counted, not kept), so memory stays bounded on any input.
const MaxCheckedLine = 32 << 20

// maxCheckedDepth is the deepest nesting Validate parses: past it a line is
// a finding and is not parsed (the JSON checker recurses once per level, and
// ten million brackets exhausted the stack). Far above serde_json's 128, so
// every line the consumer could read is checked in full.
const maxCheckedDepth = 10_000

// Validate reads a dialog and reports every way it breaks the contract,
// in line order. It returns the number of findings, or an error if r fails.
func Validate(r io.Reader, report func(Finding)) (int, error) {
	return validate(r, report, MaxCheckedLine)
}

// validate is Validate with lines over lineCap bytes skipped unread.
func validate(r io.Reader, report func(Finding), lineCap int) (int, error) {
	v := &validator{report: report, open: map[string]startedTool{}, seen: map[string]int{}}
	br := bufio.NewReaderSize(r, 64<<10)
	line := 0
	var buf []byte
	for {
		b, long, err := readCappedLine(br, buf[:0], lineCap)
		buf = b[:0]
		if len(b) > 0 || long > 0 {
			line++
			ended := len(b) > 0 && b[len(b)-1] == '\n'
			if !ended {
				v.find(line, "the last line has no line ending")
			} else {
				b = b[:len(b)-1]
			}
			if long > 0 {
				// Counted as an entry, so that the lines after it are
				// checked against the seq it most likely held.
				v.n++
				v.find(line, "line of %d bytes: longer than %s, the most the SSEBench web UI reads of a whole file; not checked", long, sizeText(int64(lineCap)))
			} else {
				v.line(line, b)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return v.count, err
		}
	}
	v.end(line)
	return v.count, nil
}

// readCappedLine reads one line, with its '\n' when it has one, into buf.
// A line longer than limit is read to its end but not kept: long is then
// its length (its '\n' excluded) and the line returned holds at most the
// '\n'.
func readCappedLine(br *bufio.Reader, buf []byte, limit int) (line []byte, long int64, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case long > 0:
			long += int64(len(chunk))
		case len(buf)+len(chunk) > limit+1 || len(buf)+len(chunk) == limit+1 && chunk[len(chunk)-1] != '\n':
			long = int64(len(buf) + len(chunk))
			buf = buf[:0]
		default:
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if long > 0 && len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			long--
			buf = append(buf, '\n')
		}
		return buf, long, err
	}
}

func (v *validator) find(line int, format string, args ...any) {
	v.count++
	v.report(Finding{Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) line(ln int, b []byte) {
	if len(b) == 0 {
		v.find(ln, "blank line")
		return
	}
	if depth := bracketDepth(b, maxCheckedDepth); depth > maxCheckedDepth {
		v.n++ // counted as an entry, as a line too long is
		v.find(ln, "nested more than %d levels deep: serde_json (the SSEBench daemon) reads at most %d; not checked further", maxCheckedDepth, maxReadable)
		return
	}
	if !utf8.Valid(b) {
		v.find(ln, "invalid UTF-8")
		return
	}
	if !gjson.ValidBytes(b) {
		v.find(ln, "not valid JSON")
		return
	}
	e := gjson.ParseBytes(b)
	if !e.IsObject() {
		v.find(ln, "not a JSON object")
		return
	}
	v.n++
	depth, dup, hasDup := v.shape.scan(b)
	if depth > maxReadable {
		v.find(ln, "nested %d levels deep: serde_json (the SSEBench daemon) reads at most %d", depth, maxReadable)
	}
	if hasDup {
		v.find(ln, "duplicate key %q: readers disagree on which copy wins", dup)
	}

	if seq := e.Get("seq"); !isInt(seq) {
		v.find(ln, "seq must be an integer, got %s", describe(seq))
	} else if seq.Int() != int64(v.n-1) {
		v.find(ln, "seq %d where %d was expected", seq.Int(), v.n-1)
	}
	v.checkTS(ln, e.Get("ts"))

	typ := e.Get("type")
	if typ.Type != gjson.String {
		v.find(ln, "type must be a string, got %s", describe(typ))
		return
	}
	if v.complete != 0 {
		v.find(ln, "%s entry after complete (line %d)", typ.Str, v.complete)
	}
	if v.n == 1 && typ.Str != "init" {
		v.find(ln, "the first entry must be init, got %s", typ.Str)
	}
	switch typ.Str {
	case "init":
		if v.initLine != 0 {
			v.find(ln, "second init (first on line %d)", v.initLine)
		}
		v.initLine = ln
		data := e.Get("data")
		if !data.IsObject() {
			v.find(ln, "init.data must be an object, got %s", describe(data))
			return
		}
		for _, k := range []string{"task", "cwd", "model", "agent"} {
			v.needString(ln, data, k, "init.data.")
		}
	case "prompt":
		// The task's prompt comes right after init; a conversation's later
		// user turns are prompts too, each where it was said. Only before
		// init is a prompt out of place (the first entry's check says so).
		v.needString(ln, e, "content", "prompt.")
	case "message":
		if role := e.Get("role"); role.Type != gjson.String || role.Str != "assistant" {
			v.find(ln, `message.role must be "assistant", got %s`, describe(role))
		}
		v.needString(ln, e, "content", "message.")
		if tok := e.Get("tokens"); tok.Exists() {
			v.checkTokens(ln, tok, "message.tokens")
		}
		v.optString(ln, e, "parent_tool_id", "message.")
	case "thinking":
		v.needString(ln, e, "content", "thinking.")
		v.optString(ln, e, "parent_tool_id", "thinking.")
	case "tool":
		v.tool(ln, e)
	case "complete":
		v.completeEntry(ln, e)
	default:
		v.find(ln, "unknown entry type %q", typ.Str)
	}
}

func (v *validator) checkTS(ln int, ts gjson.Result) {
	if ts.Type != gjson.String {
		v.find(ln, "ts must be a string, got %s", describe(ts))
		return
	}
	if !isISOUTC(ts.Str) {
		v.find(ln, "ts %q is not ISO 8601 UTC", ts.Str)
		return
	}
	t, err := time.Parse(time.RFC3339Nano, ts.Str)
	if err != nil {
		v.find(ln, "ts %q is not a valid time", ts.Str)
		return
	}
	if v.haveTS && t.Before(v.lastTS) {
		v.find(ln, "ts %s is before the previous entry's %s", ts.Str, v.lastTS.Format(time.RFC3339Nano))
	}
	v.lastTS, v.haveTS = t, true
}

func (v *validator) tool(ln int, e gjson.Result) {
	id := e.Get("tool_id")
	name := e.Get("name")
	status := e.Get("status")
	ok := true
	if id.Type != gjson.String || id.Str == "" {
		v.find(ln, "tool.tool_id must be a non-empty string, got %s", describe(id))
		ok = false
	}
	if name.Type != gjson.String {
		v.find(ln, "tool.name must be a string, got %s", describe(name))
		ok = false
	}
	v.optString(ln, e, "parent_tool_id", "tool.")
	if status.Type != gjson.String {
		v.find(ln, "tool.status must be a string, got %s", describe(status))
		return
	}
	switch status.Str {
	case "running":
		if args := e.Get("args"); args.Exists() && !args.IsObject() {
			v.find(ln, "tool.args must be an object, got %s", describe(args))
		}
		if !ok {
			return
		}
		if first, dup := v.seen[id.Str]; dup {
			v.find(ln, "tool_id %q reused (first started on line %d)", id.Str, first)
			return
		}
		v.seen[id.Str] = ln
		v.open[id.Str] = startedTool{name: name.Str, line: ln}
	case "success", "error":
		v.optString(ln, e, "result", "tool.")
		v.optString(ln, e, "error", "tool.")
		if !ok {
			return
		}
		st, isOpen := v.open[id.Str]
		switch {
		case isOpen:
			if st.name != name.Str {
				v.find(ln, "tool %q result named %q, started as %q on line %d", id.Str, name.Str, st.name, st.line)
			}
			delete(v.open, id.Str)
		case v.seen[id.Str] != 0:
			v.find(ln, "tool %q ended twice (started on line %d)", id.Str, v.seen[id.Str])
		default:
			v.find(ln, "tool %q ended but never started", id.Str)
		}
	default:
		v.find(ln, "tool.status %q is not running, success or error", status.Str)
	}
}

func (v *validator) completeEntry(ln int, e gjson.Result) {
	if v.complete != 0 {
		v.find(ln, "second complete (first on line %d)", v.complete)
	}
	v.complete = ln
	switch st := e.Get("status"); {
	case st.Type != gjson.String:
		v.find(ln, "complete.status must be a string, got %s", describe(st))
	case st.Str != "success" && st.Str != "error" && st.Str != "timeout":
		v.find(ln, "complete.status %q is not success, error or timeout", st.Str)
	}
	for _, k := range []string{"turns", "duration_ms"} {
		if f := e.Get(k); !isInt(f) || f.Int() < 0 {
			v.find(ln, "complete.%s must be a non-negative integer, got %s", k, describe(f))
		}
	}
	if tok := e.Get("total_tokens"); !tok.Exists() {
		v.find(ln, "complete.total_tokens is missing")
	} else {
		v.checkTokens(ln, tok, "complete.total_tokens")
	}
	v.optString(ln, e, "message", "complete.")
	v.reportOpen("tool %q started here has no result before complete")
	clear(v.open)
}

func (v *validator) checkTokens(ln int, tok gjson.Result, what string) {
	if !tok.IsObject() {
		v.find(ln, "%s must be an object, got %s", what, describe(tok))
		return
	}
	for _, k := range []string{"in", "out"} {
		if f := tok.Get(k); !isInt(f) || f.Int() < 0 {
			v.find(ln, "%s.%s must be a non-negative integer, got %s", what, k, describe(f))
		}
	}
}

func (v *validator) end(lines int) {
	if v.n == 0 {
		v.find(0, "empty dialog: no entries")
		return
	}
	if v.complete == 0 {
		v.find(lines, "no complete entry: the dialog is unfinished")
		v.reportOpen("tool %q started here never ended")
	}
}

// reportOpen reports the tools still open, in the order they started.
func (v *validator) reportOpen(format string) {
	ids := slices.SortedFunc(maps.Keys(v.open), func(a, b string) int { return v.open[a].line - v.open[b].line })
	for _, id := range ids {
		v.find(v.open[id].line, format, id)
	}
}

func (v *validator) needString(ln int, obj gjson.Result, key, prefix string) {
	if f := obj.Get(key); f.Type != gjson.String {
		v.find(ln, "%s%s must be a string, got %s", prefix, key, describe(f))
	}
}

func (v *validator) optString(ln int, obj gjson.Result, key, prefix string) {
	if f := obj.Get(key); f.Exists() && f.Type != gjson.String {
		v.find(ln, "%s%s must be a string, got %s", prefix, key, describe(f))
	}
}

func isInt(r gjson.Result) bool {
	if r.Type != gjson.Number {
		return false
	}
	for _, c := range []byte(r.Raw) {
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

func describe(r gjson.Result) string {
	switch r.Type {
	case gjson.Null:
		if !r.Exists() {
			return "nothing"
		}
		return "null"
	case gjson.String:
		return fmt.Sprintf("string %q", r.Str)
	case gjson.JSON:
		if r.IsArray() {
			return "an array"
		}
		return "an object"
	}
	s := r.Raw
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// maxReadable is the deepest nesting serde_json reads: its limit of 128
// levels counts the one that fails.
const maxReadable = 127

// bracketDepth is how deep the brackets of b nest, strings aside, counted
// without recursion; it stops counting past limit (returning limit+1).
// b need not be valid JSON.
func bracketDepth(b []byte, limit int) int {
	depth, deepest := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > limit {
					return deepest
				}
			}
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// shapeScan finds how deep a line nests and its first duplicate key, in
// one pass over valid JSON. It is reused from line to line.
type shapeScan struct {
	frames []int      // per open container: where its keys start in keys, -1 for an array
	keys   []string   // the keys of the open objects, decoded
	big    []keySetAt // maps for objects with many keys
}

// manyKeys is the number of keys past which an object's keys go in a map.
const manyKeys = 32

type keySetAt struct {
	frame int
	set   map[string]struct{}
}

// Shape returns how deep line (valid JSON) nests, as serde_json counts,
// and its first key repeated within one object, as a reader decodes it:
// the two limits of the web UI's readers that the writer keeps by
// construction, for its tests.
func Shape(line []byte) (depth int, dup string, hasDup bool) {
	var s shapeScan
	return s.scan(line)
}

// scan returns the deepest nesting of b (valid JSON) and its first key
// repeated within one object, as a reader decodes it.
func (s *shapeScan) scan(b []byte) (depth int, dup string, hasDup bool) {
	s.frames, s.keys, s.big = s.frames[:0], s.keys[:0], s.big[:0]
	v, ok := jsonraw.Parse(b)
	if !ok {
		return 0, "", false
	}
	for tk := v.Tokens(); tk.Next(); {
		switch tk.Kind {
		case jsonraw.OpenToken:
			first := -1
			if tk.Byte == '{' {
				first = len(s.keys)
			}
			s.frames = append(s.frames, first)
			depth = max(depth, len(s.frames))
		case jsonraw.CloseToken:
			if n := len(s.frames); n > 0 {
				if first := s.frames[n-1]; first >= 0 {
					s.keys = s.keys[:first]
				}
				if k := len(s.big); k > 0 && s.big[k-1].frame == n-1 {
					s.big = s.big[:k-1]
				}
				s.frames = s.frames[:n-1]
			}
		case jsonraw.KeyToken:
			if !hasDup && len(s.frames) > 0 {
				if key := tk.Lit.String(); s.repeated(key) {
					dup, hasDup = key, true
				}
			}
		}
	}
	return depth, dup, hasDup
}

// repeated records key in the innermost object and reports whether it
// holds it already.
func (s *shapeScan) repeated(key string) bool {
	n := len(s.frames) - 1
	first := s.frames[n]
	if first < 0 {
		return false
	}
	if k := len(s.big); k > 0 && s.big[k-1].frame == n {
		if _, ok := s.big[k-1].set[key]; ok {
			return true
		}
		s.big[k-1].set[key] = struct{}{}
		return false
	}
	if slices.Contains(s.keys[first:], key) {
		return true
	}
	s.keys = append(s.keys, key)
	if len(s.keys)-first > manyKeys {
		set := make(map[string]struct{}, 2*manyKeys)
		for _, k := range s.keys[first:] {
			set[k] = struct{}{}
		}
		s.big = append(s.big, keySetAt{frame: n, set: set})
	}
	return false
}

// sizeText says a byte count the way the limits are documented.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
