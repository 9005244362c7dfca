package jsonraw

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// Checker validates records: JSON syntax (RFC 8259, as encoding/json.Valid),
// nesting depth, and whether every string can be copied into a dialog as it
// stands. It walks the bytes once, by recursive descent (a record nested
// deeper than descentDepth, again by a loop without recursion), testing
// string contents eight bytes at a time; it is the floor of the pipeline's
// cost.
// On its way it records where each long string and container ends (and how
// long a long string is decoded), so that walks over the record's values
// (Value) jump over them instead of scanning them again.
// The zero Checker is ready to use; it reuses its memory from call to call.
// The values of a record are its until the next call.
type Checker struct {
	open []container // loop's containers open, innermost last
	// memberMax is how many members the index may record (maxMembers).
	memberMax int
	// containers is how many entries containers have, and containerMax how
	// many they may have: nested long containers would otherwise make an
	// entry every two bytes (["["…"long"…"]"]).
	containers, containerMax int
	o                        origin // the verdict and the index of the record, for its values
}

// Verdict is what Check found.
type Verdict uint8

// The verdicts of Check.
const (
	// Clean: valid JSON whose strings are all valid UTF-8, with no lone
	// surrogate escape and no raw line separator (U+2028, U+2029, U+0085,
	// which readers that split lines on them would break).
	Clean Verdict = iota
	// Dirty: valid JSON with a string that must be repaired on its way out.
	Dirty
	// Invalid: not one JSON value.
	Invalid
	// TooDeep: nested deeper than the limit given to Check.
	TooDeep
)

// Check validates b, one JSON value with optional white space around it,
// nested at most maxDepth levels.
func (c *Checker) Check(b []byte, maxDepth int) Verdict {
	ix := &c.o.ix
	ix.rec, ix.spans, ix.members = b, ix.spans[:0], ix.members[:0]
	d := descent{ix: ix, containerMax: len(b)/indexMin + 8, memberMax: maxMembers(len(b)), maxDepth: maxDepth}
	if v, ok := d.check(b); ok {
		return v
	}
	ix.spans, ix.members = ix.spans[:0], ix.members[:0]
	return c.loop(b, maxDepth)
}

// loop is Check without recursion, for records nested deeper than descent
// goes: nesting depth costs it nothing.
func (c *Checker) loop(b []byte, maxDepth int) Verdict {
	c.open = c.open[:0]
	c.containers, c.containerMax = 0, len(b)/indexMin+8
	c.memberMax = maxMembers(len(b))
	clean := true
	i := skipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return Invalid
		}
		switch b[i] {
		case '{', '[':
			open, at := b[i], i
			if len(c.open) >= maxDepth {
				return TooDeep
			}
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == open+2 { // '}' is '{'+2, ']' is '['+2
				i++
				break
			}
			c.opened(open, at)
			if open == '{' {
				var ok bool
				if i, ok = c.key(b, i, &clean); !ok {
					return Invalid
				}
			}
			continue
		case '"':
			at := i
			var ok, strClean bool
			var saved int
			if i, ok, strClean, saved = scanString(b, i); !ok {
				return Invalid
			}
			clean = clean && strClean
			c.string(at, i, saved)
		case 't':
			if !hasWord(b, i, "true") {
				return Invalid
			}
			i += 4
		case 'f':
			if !hasWord(b, i, "false") {
				return Invalid
			}
			i += 5
		case 'n':
			if !hasWord(b, i, "null") {
				return Invalid
			}
			i += 4
		default:
			var ok bool
			if i, ok = scanNumber(b, i); !ok {
				return Invalid
			}
		}
		// A value ended at i: close containers, or go on to the next member.
		for {
			if len(c.open) == 0 {
				if skipSpace(b, i) != len(b) {
					return Invalid
				}
				if clean {
					return Clean
				}
				return Dirty
			}
			cur := &c.open[len(c.open)-1]
			if cur.member >= 0 { // the value was the member's: it ends here
				c.o.ix.members[cur.member].end = uint32(i)
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return Invalid
			}
			top := cur.bracket
			if b[i] == top+2 {
				i++
				c.closed(i)
				continue
			}
			if b[i] != ',' {
				return Invalid
			}
			i = skipSpace(b, i+1)
			if top == '{' {
				var ok bool
				if i, ok = c.key(b, i, &clean); !ok {
					return Invalid
				}
			}
			break
		}
	}
}

// key reads `"name" :` at i and returns where the member's value starts.
func (c *Checker) key(b []byte, i int, clean *bool) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	at := i
	if end := shortPlain(b, i); end > 0 {
		i = end
	} else {
		var ok, strClean bool
		var saved int
		if i, ok, strClean, saved = scanString(b, i); !ok {
			return i, false
		}
		*clean = *clean && strClean
		c.string(at, i, saved)
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	i = skipSpace(b, i+1)
	c.member(at, i)
	return i, true
}

// string records the string literal b[start:end] in the index when it is
// long; saved is how many bytes shorter its escapes are decoded.
func (c *Checker) string(start, end, saved int) {
	if end-start >= indexMin {
		c.o.ix.spans = append(c.o.ix.spans, span{start: start, end: end, decoded: end - start - 2 - saved})
	}
}

// container is an open container of the record being checked.
type container struct {
	bracket byte  // '{' or '['
	span    int32 // its entry in the index's spans (-1: none)
	member  int32 // its member being read in the index's members (-1: an array, or a member not recorded)
}

// opened opens the container that starts at b[start] with bracket, and
// gives it an entry, to be ended or dropped by closed; none once
// containers have their share.
func (c *Checker) opened(bracket byte, start int) {
	k := int32(-1)
	if c.containers < c.containerMax {
		k = int32(len(c.o.ix.spans))
		c.o.ix.spans = append(c.o.ix.spans, span{start: start})
		c.containers++
	}
	c.open = append(c.open, container{bracket: bracket, span: k, member: -1})
}

// closed closes the innermost open container, which ends just before end:
// its last member is its last, and its entry is ended, or dropped when the
// container is short (a short container holds nothing long, so its entry
// is the last).
func (c *Checker) closed(end int) {
	top := c.open[len(c.open)-1]
	c.open = c.open[:len(c.open)-1]
	if top.member >= 0 {
		c.o.ix.members[top.member].next = memberLast
	}
	k := int(top.span)
	if k < 0 {
		return
	}
	sp := c.o.ix.spans
	if end-sp[k].start < indexMin && k == len(sp)-1 {
		c.o.ix.spans = sp[:k]
		c.containers--
		return
	}
	sp[k].end = end
}

// member records the member of the innermost open object whose key starts
// at key and whose value starts at val, and links it to the member before
// it; once the index holds memberMax members, the rest are not recorded
// (walks scan them).
func (c *Checker) member(key, val int) {
	top := &c.open[len(c.open)-1]
	ms := c.o.ix.members
	if len(ms) >= c.memberMax {
		top.member = -1 // the member before, if recorded, keeps next unknown
		return
	}
	k := int32(len(ms))
	if prev := top.member; prev >= 0 {
		ms[prev].next = k
	}
	c.o.ix.members = append(ms, member{key: uint32(key), val: uint32(val), next: memberUnknown})
	top.member = k
}

// shortPlain returns the index after the string literal at b[i] (a quote)
// when it closes within the eight bytes after the quote, every byte before
// the closing quote standing for itself; 0 for any other. Most keys are
// such (type, id, text): one test of eight bytes, without scanString's
// call.
func shortPlain(b []byte, i int) int {
	if len(b)-i < 9 {
		return 0
	}
	m := specialBytes(binary.LittleEndian.Uint64(b[i+1:]))
	if m == 0 {
		return 0
	}
	j := i + 1 + bits.TrailingZeros64(m)>>3
	if b[j] != '"' {
		return 0
	}
	return j + 1
}

func hasWord(b []byte, i int, w string) bool {
	return len(b)-i >= len(w) && string(b[i:i+len(w)]) == w
}

// scanNumber reads -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? at i.
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// scanString reads the string literal at i (b[i] is '"') and returns the
// index after its closing quote. clean is false when the string holds
// invalid UTF-8, a surrogate escape without its pair or a raw line
// separator: valid JSON, but not to be copied into a dialog unrepaired.
// saved is how many bytes fewer the escapes take decoded (for a clean
// string: its length as DecodedLen counts it is end-i-2-saved).
func scanString(b []byte, i int) (end int, ok, clean bool, saved int) {
	return scanStringRest(b, i+1)
}

// scanStringRest is scanString from b[i], a byte inside the string that no
// escape before it covers.
func scanStringRest(b []byte, i int) (end int, ok, clean bool, saved int) {
	clean = true
	for {
		// The run of bytes that stand for themselves, eight at a time, in
		// this loop rather than a call: the runs of real text are short
		// (a line of output, then \n), and a call each cost 14%.
		for i+8 <= len(b) {
			if m := specialBytes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			return i, false, clean, saved
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true, clean, saved
		case c == '\\':
			if i+1 >= len(b) {
				return i, false, clean, saved
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
				saved++
			case 'u':
				r, ok := escapedUnit(b[i:])
				if !ok {
					return i, false, clean, saved
				}
				i += 6
				if r >= 0xd800 && r < 0xe000 {
					// A high surrogate followed by a low one is a pair; anything else is lone.
					if r2, ok := escapedUnit(b[i:]); r < 0xdc00 && ok && r2 >= 0xdc00 && r2 < 0xe000 {
						i += 6
						saved += 12 - 4
					} else {
						clean = false
					}
				} else {
					saved += 6 - utf8.RuneLen(r)
				}
			default:
				return i, false, clean, saved
			}
		case c < 0x20:
			return i, false, clean, saved
		case c < utf8.RuneSelf:
			i++ // the last bytes, fewer than eight, one at a time
		default:
			size := utf8Seq(b[i:])
			switch {
			case size == 0:
				clean = false
				size = 1
			case c == 0xe2 && b[i+1] == 0x80 && b[i+2]&0xfe == 0xa8, c == 0xc2 && b[i+1] == 0x85:
				// U+2028 and U+2029 (E2 80 A8/A9), U+0085 (C2 85): the dialog
				// holds them escaped, as copied they would end a line for
				// some readers.
				clean = false
			}
			i += size
		}
	}
}

// utf8Seq returns the length of the valid UTF-8 sequence at the start of b
// (which starts with a byte of 0x80 or more), or 0 if there is none. It is
// utf8.DecodeRune's validity test without the decoding, inlined for speed:
// non-ASCII text (box drawing, accents, CJK) comes a character at a time.
func utf8Seq(b []byte) int {
	c := b[0]
	cont := func(i int) bool { return i < len(b) && b[i]&0xc0 == 0x80 }
	switch {
	case c >= 0xc2 && c <= 0xdf:
		if cont(1) {
			return 2
		}
	case c >= 0xe0 && c <= 0xef:
		if len(b) < 3 || !cont(1) || !cont(2) {
			return 0
		}
		if (c == 0xe0 && b[1] < 0xa0) || (c == 0xed && b[1] > 0x9f) { // overlong, surrogate
			return 0
		}
		return 3
	case c >= 0xf0 && c <= 0xf4:
		if len(b) < 4 || !cont(1) || !cont(2) || !cont(3) {
			return 0
		}
		if (c == 0xf0 && b[1] < 0x90) || (c == 0xf4 && b[1] > 0x8f) { // overlong, past U+10FFFF
			return 0
		}
		return 4
	}
	return 0
}

// isLineSeparator reports whether b starts with U+2028, U+2029 or U+0085 in
// UTF-8: characters that some readers (Python's splitlines, JavaScript
// before ES2019) take for line ends. The dialog escapes them.
func isLineSeparator(b []byte) bool {
	switch {
	case len(b) >= 3 && b[0] == 0xe2 && b[1] == 0x80:
		return b[2] == 0xa8 || b[2] == 0xa9
	case len(b) >= 2 && b[0] == 0xc2:
		return b[1] == 0x85
	}
	return false
}

// IsLineSeparator reports whether r is one of the characters beyond ASCII
// that some readers take for a line end: U+0085 (NEL), U+2028 and U+2029.
// A dialog holds them only escaped.
func IsLineSeparator(r rune) bool { return r == 0x85 || r == 0x2028 || r == 0x2029 }
