package codex

import (
	"strconv"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// The pipeline has validated every object before the adapter sees it, so
// these helpers walk raw JSON without checking it again and without
// decoding strings: gjson decodes every string it hits, which for a
// command's output would mean unescaping megabytes only to escape them
// again on the way out. They never index out of range on bad input.

// view returns b as a string without copying. The string is only valid
// while b is unchanged: for obj, during the Event call.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// fieldIter walks the members of a JSON object.
type fieldIter struct {
	s   string
	i   int
	key string // the key's body, escapes left as they are
	val string // the value's raw text
}

// fields starts walking obj; next reports members until there are none.
func fields(obj string) fieldIter {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return fieldIter{s: obj, i: len(obj)}
	}
	return fieldIter{s: obj, i: i + 1}
}

func (it *fieldIter) next() bool {
	return it.nextKey() && it.value()
}

// nextKey reads the next key and leaves the iterator at its value, which
// the caller reads with value or walks itself and then skips with skipTo.
// After the object's closing brace, it.i is just past it.
func (it *fieldIter) nextKey() bool {
	s := it.s
	i := skipSpace(s, it.i)
	if i < len(s) && s[i] == ',' {
		i = skipSpace(s, i+1)
	}
	if i < len(s) && s[i] == '}' {
		it.i = i + 1
		return false
	}
	if i >= len(s) || s[i] != '"' {
		it.i = len(s)
		return false
	}
	end := skipString(s, i)
	it.key = s[i+1 : max(end-1, i+1)]
	i = skipSpace(s, end)
	if i >= len(s) || s[i] != ':' {
		it.i = len(s)
		return false
	}
	it.i = skipSpace(s, i+1)
	return true
}

// value reads the value at the iterator.
func (it *fieldIter) value() bool {
	end := skipValue(it.s, it.i)
	if end <= it.i {
		it.i = len(it.s)
		return false
	}
	it.val = it.s[it.i:end]
	it.i = end
	return true
}

// rest is the input from the current value on.
func (it *fieldIter) rest() string { return it.s[it.i:] }

// skip moves past n bytes of rest, a value the caller has walked.
func (it *fieldIter) skip(n int) { it.i += n }

// elemIter walks the elements of a JSON array.
type elemIter struct {
	s   string
	i   int
	val string
}

func elems(arr string) elemIter {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return elemIter{s: arr, i: len(arr)}
	}
	return elemIter{s: arr, i: i + 1}
}

func (it *elemIter) next() bool {
	s := it.s
	i := skipSpace(s, it.i)
	if i < len(s) && s[i] == ',' {
		i = skipSpace(s, i+1)
	}
	if i >= len(s) || s[i] == ']' {
		it.i = len(s)
		return false
	}
	end := skipValue(s, i)
	if end <= i {
		it.i = len(s)
		return false
	}
	it.val = s[i:end]
	it.i = end
	return true
}

// get returns the raw value of the first member named key of obj, or "".
// The first, not the last: a web_search item carries "id" twice (§7.4).
func get(obj, key string) string {
	for it := fields(obj); it.next(); {
		if it.key == key {
			return it.val
		}
	}
	return ""
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string literal starting at i.
func skipString(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(s)
}

// skipValue returns the index just past the JSON value starting at i.
func skipValue(s string, i int) int {
	if i >= len(s) {
		return i
	}
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
	j := i
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
		j++
	}
	return j
}

// isString reports whether raw is a JSON string literal.
func isString(raw string) bool { return len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' }

// isObject reports whether raw is a JSON object.
func isObject(raw string) bool { return raw != "" && raw[0] == '{' }

// isNull reports whether raw is absent or JSON null.
func isNull(raw string) bool { return raw == "" || raw == "null" }

// str returns the decoded value of a string literal, "" for anything else.
// It copies nothing unless the literal holds escapes; the result may alias
// the input.
func str(raw string) string {
	if !isString(raw) {
		return ""
	}
	body := raw[1 : len(raw)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return body
	}
	return gjson.Parse(raw).Str
}

// inner returns the body of a string literal (escapes kept), "" otherwise.
func inner(raw string) string {
	if !isString(raw) {
		return ""
	}
	return raw[1 : len(raw)-1]
}

// integer returns the value of a JSON number (a float is truncated), and
// whether raw was a number.
func integer(raw string) (int64, bool) {
	if raw == "" || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return 0, false
	}
	return int64(f), true
}
