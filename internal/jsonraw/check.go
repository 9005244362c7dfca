package jsonraw

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// Checker validates records: JSON syntax (RFC 8259, as encoding/json.Valid),
// nesting depth, and whether every string can be copied into a dialog as it
// stands. It walks the bytes once, in one loop that keeps its open
// containers on a stack of its own, so that nesting depth costs nothing but
// that stack; string contents are tested eight bytes at a time. It is the
// floor of the pipeline's cost.
// On its way it records where each long string and container ends (and how
// long a long string is decoded), and where each member of an object
// starts and ends, so that walks over the record's values (Value) jump
// over them instead of scanning them again.
// The zero Checker is ready to use; it reuses its memory from call to call.
// The values of a record are its until the next call.
type Checker struct {
	open []container // the containers open around the innermost one
	// The bounds of the record being checked: how many more entries
	// containers may have in spans (nested long containers would otherwise
	// make an entry every two bytes: ["["…"long"…"]"]), how many more
	// containers may open (the depth limit), how many members the index
	// may hold (maxMembers).
	containersLeft, depthLeft, memberMax int
	dirty                                bool   // a string must be repaired on its way out
	o                                    origin // the verdict and the index of the record, for its values
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
//
// It is a state machine of three states, one label each: value (a value
// starts at i), key (a member's key starts at i) and ended (a value ended
// at i). What every token needs stays in locals, in registers: the
// innermost open container and the members of the index. What only some
// need (the stack of containers around it, the spans, the bounds) is in
// the Checker.
func (c *Checker) Check(b []byte, maxDepth int) Verdict {
	ix := &c.o.ix
	ix.rec, ix.spans, c.open = b, ix.spans[:0], c.open[:0]
	c.containersLeft, c.depthLeft, c.memberMax = len(b)/indexMin+8, maxDepth, maxMembers(len(b))
	c.dirty = false
	members := ix.members[:0]
	// The innermost open container: its bracket ('{' or '['; 0 when none
	// is open), its entry in spans and its member being read in members
	// (-1: none, an array, or a member not recorded).
	bracket, cspan, cmember := byte(0), int32(-1), int32(-1)
	var ok bool
	var end int
	i := skipSpace(b, 0)

value:
	if i >= len(b) {
		goto invalid
	}
	switch ch := b[i]; ch {
	case '{', '[':
		if c.depthLeft <= 0 {
			ix.members = members
			return TooDeep
		}
		at := i
		if i = skipSpace(b, i+1); i < len(b) && b[i] == ch+2 { // '}' is '{'+2, ']' is '['+2
			i++
			goto ended
		}
		k := c.opened(at, container{bracket: bracket, span: cspan, member: cmember})
		bracket, cspan, cmember = ch, k, -1
		if ch == '{' {
			goto key
		}
		goto value
	case '"':
		// A run of plain bytes up to the closing quote, most strings, is
		// read here; the rest by string.
		if end = plainRun8(b, i+1); end < len(b) && b[end] == '"' {
			end++
			c.long(i, end, 0)
		} else if end, ok = c.string(b, i, end); !ok {
			goto invalid
		}
		i = end
	case 't':
		if !hasWord(b, i, "true") {
			goto invalid
		}
		i += 4
	case 'f':
		if !hasWord(b, i, "false") {
			goto invalid
		}
		i += 5
	case 'n':
		if !hasWord(b, i, "null") {
			goto invalid
		}
		i += 4
	default:
		if i, ok = scanNumber(b, i); !ok {
			goto invalid
		}
	}
	goto ended

key: // `"name" :` in the innermost open object, then its value
	if i >= len(b) || b[i] != '"' {
		goto invalid
	}
	if end = plainRun8(b, i+1); end < len(b) && b[end] == '"' {
		end++
		c.long(i, end, 0)
	} else if end, ok = c.string(b, i, end); !ok {
		goto invalid
	}
	// The member, linked from the one before; once members has its share,
	// the rest are not recorded (walks scan them, and the member before
	// keeps next unknown).
	if len(members) < c.memberMax {
		k := int32(len(members))
		if cmember >= 0 {
			members[cmember].next = k
		}
		members = append(members, member{key: uint32(i), next: memberUnknown})
		cmember = k
	} else {
		cmember = -1
	}
	if i = end; i < len(b) && b[i] == ':' { // most JSON has no space about ':'
		i++
	} else if i = skipSpace(b, i); i < len(b) && b[i] == ':' {
		i++
	} else {
		goto invalid
	}
	i = skipSpace(b, i)
	if cmember >= 0 {
		members[cmember].val = uint32(i)
	}
	goto value

ended: // close containers, or go on to the next member or element
	if bracket == 0 {
		ix.members = members
		switch {
		case skipSpace(b, i) != len(b):
			return Invalid
		case c.dirty:
			return Dirty
		}
		return Clean
	}
	if cmember >= 0 { // the value was the member's: it ends here
		members[cmember].end = uint32(i)
	}
	if i = skipSpace(b, i); i >= len(b) {
		goto invalid
	}
	if b[i] == ',' {
		i = skipSpace(b, i+1)
		if bracket == '{' {
			goto key
		}
		goto value
	}
	if b[i] != bracket+2 {
		goto invalid
	}
	i++
	if cmember >= 0 { // the container's last member is its last
		members[cmember].next = memberLast
	}
	bracket, cspan, cmember = c.closed(cspan, i)
	goto ended

invalid:
	ix.members = members
	return Invalid
}

// opened opens a container at b[at], outer being the innermost open
// container until then, and returns its entry in spans, to be ended or
// dropped by closed (-1: none, once containers have their share).
func (c *Checker) opened(at int, outer container) int32 {
	c.depthLeft--
	c.open = append(c.open, outer)
	if c.containersLeft <= 0 {
		return -1
	}
	c.containersLeft--
	c.o.ix.spans = append(c.o.ix.spans, span{start: at})
	return int32(len(c.o.ix.spans) - 1)
}

// closed closes the innermost open container, which ends just before end
// and has the entry k in spans: the entry is ended, or dropped when the
// container is short (a short container holds nothing long, so its entry
// is the last). It returns the container around it, now the innermost:
// its bracket, span and member.
func (c *Checker) closed(k int32, end int) (byte, int32, int32) {
	if k >= 0 {
		sp := c.o.ix.spans
		if end-sp[k].start < indexMin && int(k) == len(sp)-1 {
			c.o.ix.spans = sp[:k]
			c.containersLeft++
		} else {
			sp[k].end = end
		}
	}
	c.depthLeft++
	outer := c.open[len(c.open)-1]
	c.open = c.open[:len(c.open)-1]
	return outer.bracket, outer.span, outer.member
}

// string reads the rest of the string literal at b[at] from b[j] on, a
// byte past its run of plain bytes, and records it when it is long.
func (c *Checker) string(b []byte, at, j int) (int, bool) {
	end, ok, clean, saved := scanStringRest(b, j)
	if !ok {
		return end, false
	}
	c.dirty = c.dirty || !clean
	c.long(at, end, saved)
	return end, true
}

// long records the string literal b[start:end] in spans when it is long;
// saved is how many bytes shorter its escapes are decoded.
func (c *Checker) long(start, end, saved int) {
	if end-start >= indexMin {
		c.o.ix.spans = append(c.o.ix.spans, span{start: start, end: end, decoded: end - start - 2 - saved})
	}
}

// container is a container of the record being checked, open around the
// innermost one.
type container struct {
	bracket byte  // '{' or '['; 0 for none (the record's top)
	span    int32 // its entry in the index's spans (-1: none)
	member  int32 // its member being read in the index's members (-1: an array, or a member not recorded)
}

// plainRun8 returns the index of the first byte from b[i] on that does
// not stand for itself in a string literal, looking eight bytes at a time;
// in the last seven bytes of b, which it leaves to its caller, it may
// return an index before such a byte. Small, so that it is inlined. The
// loop is written so that the compiler proves every word in bounds
// (i <= len(b)-8, then a slice of constant length): no bounds check and no
// slice arithmetic per word, the checker's hottest loop.
func plainRun8(b []byte, i int) int {
	for ; i <= len(b)-8; i += 8 {
		if m := specialBytes(binary.LittleEndian.Uint64(b[i : i+8])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return i
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

// scanStringRest reads the rest of a string literal from b[i], a byte
// inside it that no escape before it covers, and returns the index after
// its closing quote. clean is false when the string holds invalid UTF-8, a
// surrogate escape without its pair or a raw line separator: valid JSON,
// but not to be copied into a dialog unrepaired. saved is how many bytes
// fewer the escapes take decoded (for a clean string: its length as
// DecodedLen counts it is end-start-2-saved).
func scanStringRest(b []byte, i int) (end int, ok, clean bool, saved int) {
	clean = true
	for {
		// The run of bytes that stand for themselves, eight at a time, in
		// this loop rather than a call: the runs of real text are short
		// (a line of output, then \n), shorter than a call is worth.
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
