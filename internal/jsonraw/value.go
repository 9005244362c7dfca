// Package jsonraw is the converter's one JSON layer: it checks JSON text
// (Checker), reads it in place (Value, Literal, the member and element
// iterators), writes it (AppendEscaped, AppendString, AppendLiteral,
// AppendCompact, Tokens) and builds values and string literals from
// pieces (Builder, ValueBuilder).
//
// Why not encoding/json or gjson for the hot path: every input line passes
// through here, and most of its bytes are long strings (tool output) that
// only travel from the input to the dialog. Reading a value here only
// slices the text; a string is copied into the dialog still escaped, as it
// stands, when the record it came from was checked clean — never decoded and
// re-encoded. gjson decodes every string it meets; encoding/json decodes
// into Go values. gjson is used where decoding every value is the job:
// reading dialogs in dialogcheck.Validate.
//
// Ownership is in the types: a Value or a Literal is a view of the caller's
// buffer, valid only as long as that buffer is (for an adapter: during one
// Event call). Anything kept longer is converted to a Go string (Str,
// String), which copies.
package jsonraw

import (
	"bytes"
	"errors"
	"math"
	"strconv"
)

// Value is one JSON value as it stands in the input text, borrowed from it.
// Clean is the verdict of the Checker on the record it comes from, inherited
// by every value read from it: all its strings may be copied into a dialog
// as they stand. The zero Value is absent.
type Value struct {
	b []byte
	o *origin
}

// origin is what the values read from one text share: the Checker's verdict
// (or a builder's), and the Checker's index of the record. One pointer, so
// that a Value stays four words: adapters copy many.
type origin struct {
	clean bool
	ix    index
}

// Literal is a JSON string literal as it stands in the input text, quotes
// included and escapes kept, borrowed from it; clean as for Value. The zero
// Literal is absent (and empty).
type Literal struct {
	b []byte
	o *origin
}

// Kind is the type of a value.
type Kind uint8

// The kinds of JSON values; Absent is a member that is not there.
const (
	Absent Kind = iota
	Null
	False
	True
	Number
	String
	Array
	Object
)

// Value checks b, one JSON value with optional white space around it,
// nested at most maxDepth levels, and returns it as a Value when it is valid
// (Clean or Dirty). This is the only way to make a Value: every Value is
// valid JSON, or part of one, by construction.
func (c *Checker) Value(b []byte, maxDepth int) (Value, Verdict) {
	v := c.Check(b, maxDepth)
	if v > Dirty {
		return Value{}, v
	}
	c.o.clean = v == Clean
	// Checked, b has no white space around it but JSON's own.
	i, j := skipSpace(b, 0), len(b)
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return Value{b: b[i:j], o: &c.o}, v
}

// Parse checks b as Checker.Value does, with a Checker of its own and no
// depth limit but memory: for text an adapter kept from an earlier event.
func Parse(b []byte) (Value, bool) {
	var c Checker
	v, verdict := c.Value(b, math.MaxInt)
	return v, verdict <= Dirty
}

// Bytes returns the value's text, borrowed.
func (v Value) Bytes() []byte { return v.b }

// Clean reports whether the value's strings may be copied as they stand.
func (v Value) Clean() bool { return v.o.cleanText(v.b) }

// Kind returns the type of the value.
func (v Value) Kind() Kind {
	if len(v.b) == 0 {
		return Absent
	}
	switch v.b[0] {
	case '"':
		return String
	case '{':
		return Object
	case '[':
		return Array
	case 't':
		return True
	case 'f':
		return False
	case 'n':
		return Null
	}
	return Number
}

// Exists reports whether the value is there (it may be null).
func (v Value) Exists() bool { return len(v.b) > 0 }

// IsNull reports whether the value is absent or null.
func (v Value) IsNull() bool { return len(v.b) == 0 || v.b[0] == 'n' }

// IsString reports whether the value is a string.
func (v Value) IsString() bool { return len(v.b) >= 2 && v.b[0] == '"' }

// IsObject reports whether the value is an object.
func (v Value) IsObject() bool { return len(v.b) > 0 && v.b[0] == '{' }

// IsArray reports whether the value is an array.
func (v Value) IsArray() bool { return len(v.b) > 0 && v.b[0] == '[' }

// IsTrue reports whether the value is the literal true.
func (v Value) IsTrue() bool { return len(v.b) > 0 && v.b[0] == 't' }

// IsFalse reports whether the value is the literal false.
func (v Value) IsFalse() bool { return len(v.b) > 0 && v.b[0] == 'f' }

// Lit returns a string value as a Literal; anything else gives the zero
// Literal.
func (v Value) Lit() Literal {
	if !v.IsString() {
		return Literal{}
	}
	return Literal(v)
}

// Body returns what stands between the quotes of a string value, escapes
// kept, borrowed; nil for anything else. Comparing it with a Go string
// (string(v.Body()) == "x", or a switch) does not allocate; it matches only
// text written without escapes, as event types and keys are.
func (v Value) Body() []byte {
	if !v.IsString() {
		return nil
	}
	return v.b[1 : len(v.b)-1]
}

// Is reports whether the value is the string s (compared as written: an
// escaped spelling of s does not match).
func (v Value) Is(s string) bool { return v.IsString() && string(v.Body()) == s }

// Str returns the decoded text of a string value, as an owned Go string; ""
// for anything else.
func (v Value) Str() string { return v.Lit().String() }

// Int returns the value of a number, a fraction cut toward zero and a value
// beyond int64 held at its bounds, and whether the value was a number.
func (v Value) Int() (int64, bool) {
	if v.Kind() != Number {
		return 0, false
	}
	if n, ok := smallInt(v.b); ok {
		return n, true
	}
	if n, err := strconv.ParseInt(string(v.b), 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(string(v.b), 64) // ±Inf past float64's range, with ErrRange
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, false
	case f >= math.MaxInt64:
		return math.MaxInt64, true
	case f < math.MinInt64:
		return math.MinInt64, true
	}
	return int64(f), true
}

// Integer returns the value of a number written as an integer (no fraction,
// no exponent) that int64 holds, and whether it was one.
func (v Value) Integer() (int64, bool) {
	if v.Kind() != Number {
		return 0, false
	}
	if n, ok := smallInt(v.b); ok {
		return n, true
	}
	n, err := strconv.ParseInt(string(v.b), 10, 64)
	return n, err == nil
}

// smallInt reads b when it is an integer of at most 18 digits, which int64
// always holds: most numbers of an event (token counts, exit codes), read
// by a loop over the digits without strconv.ParseInt's string.
func smallInt(b []byte) (int64, bool) {
	d := b
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(d) < len(b) {
		n = -n
	}
	return n, true
}

// Float returns the value of a number, and whether the value was a number
// that a float64 holds (1e400 is not).
func (v Value) Float() (float64, bool) {
	if v.Kind() != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v.b), 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// Get returns the first member named key of an object (only top-level
// members count), or the absent Value. The first, not the last: some
// events repeat a key, and the first is the one they mean (a Codex
// web_search item carries "id" twice).
func (v Value) Get(key string) Value {
	for m := v.Members(); m.Next(); {
		if string(m.Key) == key {
			return m.Value
		}
	}
	return Value{}
}

// Pick reads the members of an object named keys[i] into *dst[i], in one
// walk: for a key repeated, the last member counts (as it does in a switch
// over each member's key); for a key absent, *dst[i] is left as it was.
// keys and dst pair by index, and must be as long; a name may stand twice
// with the same dst (two spellings of one member).
func (v Value) Pick(keys []string, dst ...*Value) {
	mustPair(len(keys), len(dst))
	for m := v.Members(); m.Next(); {
		if i := keyIndex(m.Key, keys); i >= 0 {
			*dst[i] = m.Value
		}
	}
}

// PickInts is Pick for counters: it reads each member named keys[i] into
// *dst[i] as Int does (anything but a number reads as 0), and reports
// whether any of them was there.
func (v Value) PickInts(keys []string, dst ...*int64) (found bool) {
	mustPair(len(keys), len(dst))
	for m := v.Members(); m.Next(); {
		if i := keyIndex(m.Key, keys); i >= 0 {
			*dst[i], _ = m.Value.Int()
			found = true
		}
	}
	return found
}

// keyIndex returns the index of key in keys, or -1.
func keyIndex(key []byte, keys []string) int {
	for i, k := range keys {
		if string(key) == k {
			return i
		}
	}
	return -1
}

func mustPair(keys, dst int) {
	if keys != dst {
		panic("jsonraw: Pick with a key count other than its destination count")
	}
}

// Bytes returns the literal's text, quotes included, borrowed.
func (l Literal) Bytes() []byte { return l.b }

// Body returns the literal's text between the quotes, escapes kept, borrowed.
func (l Literal) Body() []byte {
	if len(l.b) < 2 {
		return nil
	}
	return l.b[1 : len(l.b)-1]
}

// Clean reports whether the literal may be copied as it stands.
func (l Literal) Clean() bool { return l.o.cleanText(l.b) }

// IsEmpty reports whether the literal is absent or "".
func (l Literal) IsEmpty() bool { return len(l.b) <= 2 }

// String returns the decoded text, as an owned Go string: lone surrogate
// escapes become U+FFFD; invalid UTF-8 is kept as it is.
func (l Literal) String() string {
	body := l.Body()
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body)
	}
	return string(AppendUnescaped(make([]byte, 0, len(body)), body))
}

// MemberIter walks the members of an object:
//
//	for m := v.Members(); m.Next(); {
//		switch string(m.Key) { … m.Value … }
//	}
//
// It is a pointer because a variable declared in a for clause is a new copy
// on each iteration (Go 1.22 loop variables): a struct iterator would be
// copied twice per member. It stays on the caller's stack as long as the
// caller keeps no pointer to it (TestWalkAllocatesNothing).
type MemberIter struct {
	Key   []byte // the current member's key between its quotes, escapes kept
	Value Value  // the current member's value
	s     []byte
	i     int
	o     *origin
	w     walker // the index, once the first step has found s in its record
	// next is the index's entry of the next member, plus one, while the
	// walk follows the index; 0: it scans; -1: the index said the last
	// member was the object's last.
	next int
}

// KeyLit returns the current member's key as a Literal.
func (m *MemberIter) KeyLit() Literal {
	if m.Key == nil {
		return Literal{}
	}
	start := cap(m.s) - cap(m.Key) - 1 // the key's opening quote: Key is a slice of s
	return Literal{b: m.s[start : start+len(m.Key)+2], o: m.o}
}

// Members starts a walk over the members of an object; any other value
// has none.
func (v Value) Members() *MemberIter {
	return &MemberIter{s: v.b, i: start(v.b, '{'), o: v.o}
}

// Next moves to the next member and reports whether there is one. It
// reads the member from the index when the object's record has one there,
// and scans the text for it otherwise.
func (m *MemberIter) Next() bool {
	if !m.w.resolved {
		m.resolve()
	}
	if m.next > 0 && m.indexedMember() {
		return true
	}
	if m.next < 0 {
		return false
	}
	return m.scanKey() && m.scanValue()
}

// resolve finds the object's text in its record, and its first member in
// the index.
func (m *MemberIter) resolve() {
	m.w = walkOf(m.o, m.s)
	if m.w.ix == nil {
		return
	}
	if k := skipSpace(m.s, m.i); k < len(m.s) && m.s[k] == '"' {
		if e, ok := m.w.ix.firstMember(m.w.base + k); ok {
			m.next = e + 1
		}
	}
}

// indexedMember reads the next member, key and value, from the index.
// False (and the walk scans from then on) when the entry does not fit the
// text.
func (m *MemberIter) indexedMember() bool {
	e := &m.w.ix.members[m.next-1]
	base, s := m.w.base, m.s
	key, val, end := int(e.key)-base, int(e.val)-base, int(e.end)-base
	if key < m.i || end <= val || end > len(s) {
		m.next = 0
		return false
	}
	// Between the key's closing quote and the value: ':' and, rarely,
	// white space.
	q := val - 2
	if q <= key || s[q] != '"' || s[q+1] != ':' {
		for q = val - 1; q > key && s[q] != '"'; q-- {
		}
		if q <= key {
			m.next = 0
			return false
		}
	}
	m.Key = s[key+1 : q]
	m.Value = Value{b: s[val:end], o: m.o}
	m.i = end
	switch e.next {
	case memberLast:
		m.next = -1
	case memberUnknown:
		m.next = 0 // scan on
	default:
		m.next = int(e.next) + 1
	}
	return true
}

// scanKey moves to the next member's key, scanning the text.
func (m *MemberIter) scanKey() bool {
	s := m.s
	i := skipSeparator(s, m.i)
	if i < len(s) && s[i] == '}' {
		m.i = i + 1
		return false
	}
	if i >= len(s) || s[i] != '"' {
		m.i = len(s)
		return false
	}
	end := keyEnd(s, i)
	if end < 0 {
		end = m.w.str(s, i)
	}
	m.Key = s[i+1 : max(end-1, i+1)]
	i = skipSpace(s, end)
	if i >= len(s) || s[i] != ':' {
		m.i = len(s)
		return false
	}
	m.i = skipSpace(s, i+1)
	return true
}

// scanValue reads the value after the key scanKey read into Value.
func (m *MemberIter) scanValue() bool {
	end := m.w.value(m.s, m.i)
	if end <= m.i {
		m.i = len(m.s)
		return false
	}
	m.Value = Value{b: m.s[m.i:end], o: m.o}
	m.i = end
	return true
}

// ElementIter walks the elements of an array:
//
//	for e := v.Elements(); e.Next(); {
//		… e.Value …
//	}
type ElementIter struct {
	Value Value // the current element
	s     []byte
	i     int
	o     *origin
	w     walker // as in MemberIter
}

// Elements starts a walk over the elements of an array; any other value
// has none. It returns a pointer for the reason Members does.
func (v Value) Elements() *ElementIter {
	return &ElementIter{s: v.b, i: start(v.b, '['), o: v.o}
}

// Next moves to the next element and reports whether there is one.
func (e *ElementIter) Next() bool {
	if !e.w.resolved {
		e.w = walkOf(e.o, e.s)
	}
	s := e.s
	i := skipSeparator(s, e.i)
	if i >= len(s) || s[i] == ']' {
		e.i = len(s)
		return false
	}
	end := e.w.value(s, i)
	if end <= i {
		e.i = len(s)
		return false
	}
	e.Value = Value{b: s[i:end], o: e.o}
	e.i = end
	return true
}

// start returns where a walk over b begins: just past its opening bracket,
// or at its end (nothing to walk) when b does not open with it.
func start(b []byte, bracket byte) int {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != bracket {
		return len(b)
	}
	return i + 1
}

func skipSpace(s []byte, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// isSpace reports whether c is JSON's white space; most bytes are past ' ',
// and one comparison tells them.
func isSpace(c byte) bool { return c <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r') }

// skipSeparator skips the space and the comma, if any, before the next
// member or element. One loop, so that it is inlined.
func skipSeparator(s []byte, i int) int {
	comma := false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == ',' && !comma:
			comma = true
		case c != ' ' && c != '\t' && c != '\n' && c != '\r':
			return i
		}
	}
	return i
}

// skipString returns the index just past the string literal that starts at
// s[i] (a quote), or len(s) if it does not end.
func skipString(s []byte, i int) int { return walker{}.str(s, i) }

// keyEnd returns the index just past a key that starts at s[i] (a quote)
// when it ends within a few bytes and holds no escape; -1 for any other.
// Keys are short and plain: a loop over their bytes costs less than a call
// to IndexByte.
func keyEnd(s []byte, i int) int {
	for j := i + 1; j < len(s) && j <= i+24; j++ {
		switch s[j] {
		case '"':
			return j + 1
		case '\\':
			return -1
		}
	}
	return -1
}

// skipValue returns the index just past the value that starts at s[i]: i
// itself where no value starts.
func skipValue(s []byte, i int) int { return walker{}.value(s, i) }
