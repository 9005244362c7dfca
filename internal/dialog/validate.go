package dialog

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
// is compiled by every process at start, each conversion's included (0.5 ms).
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

// Validate reads a dialog and reports every way it breaks the contract,
// in line order. It returns the number of findings, or an error if r fails.
func Validate(r io.Reader, report func(Finding)) (int, error) {
	v := &validator{report: report, open: map[string]startedTool{}, seen: map[string]int{}}
	br := bufio.NewReaderSize(r, 64<<10)
	line := 0
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			line++
			if b[len(b)-1] != '\n' {
				v.find(line, "the last line has no line ending")
			} else {
				b = b[:len(b)-1]
			}
			v.line(line, b)
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

func (v *validator) find(line int, format string, args ...any) {
	v.count++
	v.report(Finding{Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) line(ln int, b []byte) {
	if len(b) == 0 {
		v.find(ln, "blank line")
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

// shapeScan finds how deep a line nests and its first duplicate key, in
// one pass over valid JSON. It is reused from line to line.
type shapeScan struct {
	frames []int      // per open container: where its keys start in keys, -1 for an array
	keys   []string   // the keys of the open objects, decoded
	big    []keySetAt // maps for objects with many keys
}

type keySetAt struct {
	frame int
	set   map[string]struct{}
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
