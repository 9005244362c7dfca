package dialog

import (
	"bytes"

	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// maxNesting is how deep an entry may nest. serde_json, the SSEBench
// daemon's parser, reads at most 127 levels (128 is its limit); the margin
// leaves room for what a consumer wraps around an entry.
const maxNesting = 100

// appendArgs appends a tool call's args: v, a value from the input, whose
// outermost bracket lies at nesting level depth of the entry (the entry
// itself being level 1). It is written in compact form, with
//   - every string value cut by c; object keys never are (two long keys
//     cut alike would become one);
//   - every container that would lie deeper than maxNesting written as a
//     string holding its JSON text, cut like a value: the keys above it
//     stay, and every consumer can parse the entry;
//   - of the members of one object that share a key, only the last, which
//     is the one JSON.parse and serde_json keep (validate flags duplicates,
//     since readers disagree on which copy wins).
//
// The common case, no duplicate key, takes one pass that copies as it
// goes, without recursion. A duplicate found on the way starts the value
// again on a slower path that reads each object's members first.
func (w *Writer) appendArgs(dst []byte, v jsonraw.Value, depth int, c *cutter) []byte {
	if v.IsString() { // a command line: no walk needed
		return c.appendText(dst, Lit(v.Lit()))
	}
	start, used := len(dst), c.used
	if out, ok := w.appendArgsOnce(dst, v, depth, c); ok {
		return out
	}
	c.used = used
	return appendArgsDedup(dst[:start], v, depth, c)
}

// appendArgsOnce is appendArgs' one pass; ok is false when an object holds
// a key twice, and the caller starts again.
func (w *Writer) appendArgsOnce(dst []byte, v jsonraw.Value, depth int, c *cutter) (out []byte, ok bool) {
	keys := &w.keys
	keys.reset()
	level := depth - 1 // the level of the container the walk is in
	for tk := v.Tokens(); tk.Next(); {
		switch tk.Kind {
		case jsonraw.KeyToken:
			k := len(dst)
			dst = Lit(tk.Lit).appendTo(dst, -1, -1)
			if keys.repeated(dst, k) {
				return dst, false
			}
			dst = append(dst, ':')
		case jsonraw.StringToken:
			dst = c.appendText(dst, Lit(tk.Lit))
		case jsonraw.OpenToken:
			if level+1 > maxNesting {
				dst = c.appendText(dst, Plain(string(tk.Container().Bytes())))
				continue
			}
			level++
			keys.open(tk.Byte == '{')
			dst = append(dst, tk.Byte)
		case jsonraw.CloseToken:
			level--
			keys.close()
			dst = append(dst, tk.Byte)
		default:
			dst = append(dst, tk.Raw...)
		}
	}
	return dst, true
}

// appendArgsDedup writes one value of args at nesting level level, keeping
// the last member of each key. Containers past maxNesting become strings,
// so it recurses at most maxNesting levels.
func appendArgsDedup(dst []byte, v jsonraw.Value, level int, c *cutter) []byte {
	switch v.Kind() {
	case jsonraw.Absent:
		return dst
	case jsonraw.String:
		return c.appendText(dst, Lit(v.Lit()))
	case jsonraw.Object, jsonraw.Array:
		if level > maxNesting {
			return c.appendText(dst, Plain(string(v.Bytes())))
		}
	default:
		return append(dst, v.Bytes()...)
	}
	if v.IsArray() {
		dst = append(dst, '[')
		n := 0
		for e := v.Elements(); e.Next(); n++ {
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = appendArgsDedup(dst, e.Value, level+1, c)
		}
		return append(dst, ']')
	}
	type member struct {
		key   jsonraw.Literal
		value jsonraw.Value
		name  string // the key as a reader decodes it
	}
	var ms []member
	last := map[string]int{}
	for m := v.Members(); m.Next(); {
		k := m.KeyLit()
		name := Lit(k).String()
		if !k.Clean() {
			name = validUTF8(name) // as written: a byte that is not UTF-8 is U+FFFD
		}
		last[name] = len(ms)
		ms = append(ms, member{k, m.Value, name})
	}
	dst = append(dst, '{')
	n := 0
	for i, m := range ms {
		if last[m.name] != i {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = Lit(m.key).appendTo(dst, -1, -1)
		dst = append(dst, ':')
		dst = appendArgsDedup(dst, m.value, level+1, c)
	}
	return append(dst, '}')
}

// keySet remembers, during appendArgsOnce, the keys written so far of each
// object open in the walk, to notice a key written twice. Keys are spans
// of the output or, when written with escapes, of decoded; an object of
// many keys gets a map. It is reused from call to call.
type keySet struct {
	frames  []keyFrame
	keys    []keySpan
	decoded []byte
}

type keyFrame struct {
	first int                 // its keys are keys[first:]
	big   map[string]struct{} // all of them, once there are many
}

type keySpan struct {
	start, end int
	decoded    bool // a span of keySet.decoded, not of the output
}

// manyKeys is the number of keys past which an object's keys go in a map.
const manyKeys = 32

func (s *keySet) reset() {
	s.frames, s.keys, s.decoded = s.frames[:0], s.keys[:0], s.decoded[:0]
}

func (s *keySet) open(object bool) {
	first := -1 // an array has no keys
	if object {
		first = len(s.keys)
	}
	s.frames = append(s.frames, keyFrame{first: first})
}

func (s *keySet) close() {
	if len(s.frames) == 0 {
		return
	}
	if f := s.frames[len(s.frames)-1]; f.first >= 0 {
		s.keys = s.keys[:f.first]
	}
	s.frames = s.frames[:len(s.frames)-1]
}

// repeated records the key literal written at out[at:] in the innermost
// open object, and reports whether that object had it already.
func (s *keySet) repeated(out []byte, at int) bool {
	if len(s.frames) == 0 || s.frames[len(s.frames)-1].first < 0 {
		return false
	}
	f := &s.frames[len(s.frames)-1]
	body := out[at+1 : len(out)-1]
	k := keySpan{start: at + 1, end: len(out) - 1}
	if bytes.IndexByte(body, '\\') >= 0 {
		k = keySpan{start: len(s.decoded), decoded: true}
		s.decoded = jsonraw.AppendUnescaped(s.decoded, body)
		k.end = len(s.decoded)
		body = s.decoded[k.start:]
	}
	if f.big != nil {
		if _, dup := f.big[string(body)]; dup {
			return true
		}
		f.big[string(body)] = struct{}{}
		return false
	}
	for _, p := range s.keys[f.first:] {
		if bytes.Equal(s.text(out, p), body) {
			return true
		}
	}
	s.keys = append(s.keys, k)
	if len(s.keys)-f.first > manyKeys {
		f.big = make(map[string]struct{}, 2*manyKeys)
		for _, p := range s.keys[f.first:] {
			f.big[string(s.text(out, p))] = struct{}{}
		}
	}
	return false
}

func (s *keySet) text(out []byte, k keySpan) []byte {
	if k.decoded {
		return s.decoded[k.start:k.end]
	}
	return out[k.start:k.end]
}
