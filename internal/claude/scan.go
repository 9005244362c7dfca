package claude

import (
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// The adapter reads each event with the small scanner below instead of
// gjson.Get: gjson decodes every string it meets on the way (a 60 KB tool
// result with one escape costs a 60 KB copy), while the scanner only slices
// the raw text. The pipeline has checked each object with gjson.ValidBytes,
// so the scanner may assume valid JSON; on anything else it stops early and
// returns empty values, never panics.

// view returns b as a string without copying. The string is valid only while
// b is unchanged: the adapter uses it for obj, which the pipeline keeps
// unchanged during the Event call, and clones every string it keeps longer.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// members iterates over the members of a JSON object held as raw text.
type members struct {
	s string
	i int
}

// objectMembers starts an iteration over raw, which should be an object;
// anything else has no members.
func objectMembers(raw string) members {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return members{}
	}
	return members{s: raw, i: i + 1}
}

// next returns the next member: its key as it stands between the quotes
// (keys with escapes are not decoded) and its raw value.
func (m *members) next() (key, val string, ok bool) {
	s := m.s
	i := skipSpace(s, m.i)
	if i < len(s) && s[i] == ',' {
		i = skipSpace(s, i+1)
	}
	if i >= len(s) || s[i] != '"' {
		m.i = len(s)
		return "", "", false
	}
	end := skipString(s, i)
	key = s[i+1 : max(end-1, i+1)]
	i = skipSpace(s, end)
	if i >= len(s) || s[i] != ':' {
		m.i = len(s)
		return "", "", false
	}
	i = skipSpace(s, i+1)
	if i >= len(s) {
		m.i = len(s)
		return "", "", false
	}
	end = skipValue(s, i)
	m.i = end
	return key, s[i:end], true
}

// elements iterates over the elements of a JSON array held as raw text.
type elements struct {
	s string
	i int
}

// arrayElements starts an iteration over raw, which should be an array;
// anything else has no elements.
func arrayElements(raw string) elements {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return elements{}
	}
	return elements{s: raw, i: i + 1}
}

// next returns the next element's raw value.
func (e *elements) next() (val string, ok bool) {
	s := e.s
	i := skipSpace(s, e.i)
	if i < len(s) && s[i] == ',' {
		i = skipSpace(s, i+1)
	}
	if i >= len(s) || s[i] == ']' {
		e.i = len(s)
		return "", false
	}
	end := skipValue(s, i)
	e.i = end
	return s[i:end], true
}

// get returns the raw value of the first member key of the object raw, or "".
func get(raw, key string) string {
	m := objectMembers(raw)
	for k, v, ok := m.next(); ok; k, v, ok = m.next() {
		if k == key {
			return v
		}
	}
	return ""
}

func skipSpace(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string literal that starts at
// s[i] (a quote). It jumps from quote to quote, so long strings cost little.
func skipString(s string, i int) int {
	j := i + 1
	for {
		q := strings.IndexByte(s[j:], '"')
		if q < 0 {
			return len(s)
		}
		j += q
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for k := j - 1; k > i && s[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// skipValue returns the index just past the JSON value that starts at s[i].
func skipValue(s string, i int) int {
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				j = skipString(s, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(s)
	}
	for j := i; j < len(s); j++ {
		switch s[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
	}
	return len(s)
}

// isString reports whether raw is a JSON string literal.
func isString(raw string) bool {
	return len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"'
}

// body returns what stands between the quotes of a string literal, still
// escaped; "" for anything that is not a string.
func body(raw string) string {
	if !isString(raw) {
		return ""
	}
	return raw[1 : len(raw)-1]
}

// str decodes a string literal; anything else gives "". Only strings with
// escapes are copied.
func str(raw string) string {
	b := body(raw)
	if strings.IndexByte(b, '\\') < 0 {
		return b
	}
	return gjson.Parse(raw).Str
}

// num returns a JSON number as an int64; anything else gives 0.
func num(raw string) int64 {
	if raw == "" || raw[0] == '"' || raw[0] == 'n' || raw[0] == 't' || raw[0] == 'f' {
		return 0
	}
	return gjson.Parse(raw).Int()
}

// float returns a JSON number as a float64, and whether raw was a number.
func float(raw string) (float64, bool) {
	if raw == "" || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return 0, false
	}
	return gjson.Parse(raw).Float(), true
}

// isNumber reports whether raw is a JSON number.
func isNumber(raw string) bool {
	_, ok := float(raw)
	return ok
}
