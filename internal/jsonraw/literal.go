package jsonraw

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// replacement is U+FFFD in UTF-8: what invalid bytes and lone surrogates become.
const replacement = "\ufffd"

// AppendEscaped appends s as the body of a JSON string literal (no quotes):
// '"' and '\' escaped, control characters as \n, \r, \t or \u00XX, the line
// separators U+2028, U+2029 and U+0085 as \u escapes, each byte that is not
// UTF-8 as U+FFFD (a dialog's reader rejects a whole file on one bad byte),
// and nothing else: HTML characters stay as they are.
func AppendEscaped(dst []byte, s string) []byte {
	start := 0 // s[start:i] is to be copied as it stands
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscapedASCII(dst, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, replacement...)
		case r == '\u2028' || r == '\u2029' || r == '\u0085':
			dst = append(dst, s[start:i]...)
			dst = appendUnitEscape(dst, r)
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// appendEscapedASCII appends the escape of an ASCII byte that a JSON string
// cannot hold as it stands: a control character, '"' or '\'.
func appendEscapedASCII(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return appendUnitEscape(dst, rune(c))
}

// appendUnitEscape appends \uXXXX for a character of the Basic Multilingual Plane.
func appendUnitEscape(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// Cuts take two limits: limit, on the bytes of text kept (decoded: what
// a reader sees), and outLimit, on the bytes the kept part takes as it is
// written (escapes and all: what a file budget counts). A limit < 0 is
// none. A cut falls on a character boundary; a byte that is not UTF-8 is a
// character of its own. cut is how many bytes of text were left out, and
// byOut whether outLimit, not limit, set the cut.

// AppendString appends plain text s as the body of a JSON string literal,
// escaped as AppendEscaped does, cut to the limits.
func AppendString(dst []byte, s string, limit, outLimit int) (out []byte, cut int, byOut bool) {
	switch {
	case (limit < 0 || len(s) <= limit) && (outLimit < 0 || len(s) <= outLimit/maxEscapedWidth):
		// Within both limits however it is escaped: no need to measure.
		return AppendEscaped(dst, s), 0, false
	case outLimit < 0:
		end := cutPoint(s, limit)
		return AppendEscaped(dst, s[:end]), len(s) - end, false
	}
	end, byOut := stringCut(s, noLimit(limit), outLimit)
	return AppendEscaped(dst, s[:end]), len(s) - end, byOut
}

// stringCut returns where to cut s so that the kept part is at most limit
// bytes and, escaped, at most outLimit bytes.
func stringCut(s string, limit, outLimit int) (end int, byOut bool) {
	w := 0 // bytes written
	for i := 0; i < len(s); {
		c := s[i]
		size, width := 1, 1 // bytes of s, bytes written
		switch {
		case c < utf8.RuneSelf:
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				width = 2
			case c < 0x20:
				width = 6
			}
		default:
			r, k := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && k == 1:
				width = len(replacement)
			case r == '\u2028' || r == '\u2029' || r == '\u0085':
				size, width = k, 6
			default:
				size, width = k, k
			}
		}
		if i+size > limit || w+width > outLimit {
			return i, i+size <= limit
		}
		i, w = i+size, w+width
	}
	return len(s), false
}

// maxEscapedWidth is the most bytes AppendEscaped writes for one byte of
// text: a control character is \u00XX.
const maxEscapedWidth = 6

// noLimit turns a limit < 0 (none) into one nothing reaches.
func noLimit(limit int) int {
	if limit < 0 {
		return math.MaxInt
	}
	return limit
}

// cutPoint returns where to cut s (longer than limit) so that no character is
// split: limit, or the start of the character that straddles it. A byte
// that is not UTF-8 is a character of its own, as in AppendLiteral, so the
// search looks back at most utf8.UTFMax-1 bytes and never empties a string
// of invalid bytes.
func cutPoint(s string, limit int) int {
	for i := limit; i >= 0 && i > limit-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if (r != utf8.RuneError || size > 1) && i+size > limit {
				return i
			}
			return limit
		}
	}
	return limit
}

// AppendLiteral appends the body of the literal l (no quotes), cut to the
// limits. A clean literal is copied as it stands (within the limits: all
// of it); any other is repaired on the way — invalid UTF-8 and lone
// surrogate escapes become U+FFFD, raw line separators are escaped, every
// other escape is kept as written.
func AppendLiteral(dst []byte, l Literal, limit, outLimit int) (out []byte, cut int, byOut bool) {
	body := l.Body()
	if !l.Clean() {
		return appendRepaired(dst, body, noLimit(limit), noLimit(outLimit))
	}
	if (limit < 0 || len(body) <= limit) && (outLimit < 0 || len(body) <= outLimit) {
		return append(dst, body...), 0, false // the escaped form is never shorter than the text
	}
	end, kept, byOut := cleanCut(body, noLimit(limit), noLimit(outLimit))
	return append(dst, body[:end]...), decodedLen(l) - kept, byOut
}

// cleanCut returns where to cut the body of a clean literal, which is
// written as it stands, and the decoded length of what it keeps. In a clean
// body only escapes decode to something of another length, so it jumps from
// backslash to backslash.
func cleanCut(b []byte, limit, outLimit int) (end, kept int, byOut bool) {
	n, i := 0, 0 // decoded bytes kept, bytes of b read (and written)
	for i < len(b) {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			j = len(b) - i
		}
		if n+j > limit || i+j > outLimit { // the cut falls in this run: on a character boundary
			back := func(end int) int {
				for end > i && !utf8.RuneStart(b[end]) {
					end--
				}
				return end
			}
			byText, byOutLimit := i+j, i+j // where each limit cuts in this run (i+j: not here)
			if n+j > limit {
				byText = back(i + limit - n)
			}
			if i+j > outLimit {
				byOutLimit = back(outLimit)
			}
			end := min(byText, byOutLimit)
			return end, n + end - i, byOutLimit < byText
		}
		n, i = n+j, i+j
		if i+1 >= len(b) {
			break
		}
		size, width := 2, 1
		if b[i+1] == 'u' {
			r, k := readEscapedRune(b[i:])
			if k == 0 {
				break
			}
			size, width = k, utf8.RuneLen(r)
		}
		if n+width > limit || i+size > outLimit {
			return i, n, n+width <= limit
		}
		n, i = n+width, i+size
	}
	return i, n, false
}

// appendRepaired copies the body of a literal that was not checked clean,
// repairing it (see AppendLiteral) and cutting it to the limits, which are
// applied to the text as repaired.
func appendRepaired(dst, b []byte, limit, outLimit int) ([]byte, int, bool) {
	start := len(dst)
	n := 0 // decoded bytes kept
	var esc [6]byte
	for i := 0; i < len(b); {
		if k := min(plainRun(b[i:]), limit-n, outLimit-(len(dst)-start)); k > 0 {
			dst = append(dst, b[i:i+k]...)
			n += k
			i += k
			continue
		}
		c := b[i]
		size, width := 1, 1 // bytes of b, bytes of decoded text
		var out []byte      // what to write instead of b[i:i+size], when not nil
		switch {
		case c == '\\' && i+1 < len(b) && b[i+1] == 'u':
			r, k := readEscapedRune(b[i:])
			switch {
			case k == 0: // not an escape after all: keep the backslash's meaning
				size, out = 1, []byte(`\\`)
			case r == utf8.RuneError && k == 6 && !isReplacementEscape(b[i:]):
				size, width, out = 6, 3, []byte(replacement)
			default:
				size, width = k, utf8.RuneLen(r)
			}
		case c == '\\' && i+1 < len(b):
			size = 2
		case c == '\\':
			out = []byte(`\\`)
		case c < 0x20 || c == '"':
			out = appendEscapedASCII(esc[:0], c)
		case c >= utf8.RuneSelf:
			if k := utf8Seq(b[i:]); k > 0 {
				size, width = k, k
				if isLineSeparator(b[i:]) {
					r, _ := utf8.DecodeRune(b[i:])
					out = appendUnitEscape(esc[:0], r)
				}
			} else {
				out = []byte(replacement)
			}
		}
		written := size
		if out != nil {
			written = len(out)
		}
		if n+width > limit || len(dst)-start+written > outLimit {
			return dst, DecodedLen(b[i:]), n+width <= limit
		}
		if out != nil {
			dst = append(dst, out...)
		} else {
			dst = append(dst, b[i:i+size]...)
		}
		n += width
		i += size
	}
	return dst, 0, false
}

// isReplacementEscape reports whether b starts with the escape \ufffd
// itself, which readEscapedRune also reads as utf8.RuneError.
func isReplacementEscape(b []byte) bool {
	r, ok := escapedUnit(b)
	return ok && r == utf8.RuneError
}

// plainRun returns the length of the run at the start of b that stands for
// itself in a JSON string: printable ASCII other than '"' and '\'. It tests
// eight bytes at a time, in bounds by the loop's test as plainRun8's
// words are; most of a tool's output is such runs.
func plainRun(b []byte) int {
	i := 0
	for ; i <= len(b)-8; i += 8 {
		if m := specialBytes(binary.LittleEndian.Uint64(b[i : i+8])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			break
		}
	}
	return i
}

// specialBytes flags the bytes of x (eight, little-endian) that do not
// stand for themselves in a JSON string: below 0x20, '"', '\' and all of
// 0x80 and up. The lowest flag is exact (the flags above it may not be):
// each subtraction borrows only from a byte it flags. A byte with its high
// bit set is flagged by x itself, which also covers the high bits the
// subtractions set for such bytes.
func specialBytes(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	return (x | (x - ones*0x20) | ((x ^ ones*'"') - ones) | ((x ^ ones*'\\') - ones)) & highs
}

// escapedUnit reads the \uXXXX escape at the start of b and returns the
// UTF-16 code unit it stands for; ok is false when b does not start with one.
func escapedUnit(b []byte) (r rune, ok bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	for _, c := range b[2:6] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// readEscapedRune reads a \uXXXX escape (or a surrogate pair of two) at the
// start of b. A lone surrogate gives utf8.RuneError. n is 0 when b holds no
// complete escape.
func readEscapedRune(b []byte) (r rune, n int) {
	r1, ok := escapedUnit(b)
	if !ok {
		return 0, 0
	}
	if !utf16.IsSurrogate(r1) {
		return r1, 6
	}
	if r1 < 0xdc00 {
		if r2, ok := escapedUnit(b[6:]); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
			return utf16.DecodeRune(r1, r2), 12
		}
	}
	return utf8.RuneError, 6
}

// AppendUnescaped decodes the body of a JSON string literal onto dst. Lone
// surrogates become U+FFFD; invalid UTF-8 is kept as it is.
func AppendUnescaped(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			return append(dst, b[i:]...)
		}
		dst = append(dst, b[i:i+j]...)
		i += j
		if i+1 >= len(b) {
			return append(dst, '\\')
		}
		switch b[i+1] {
		case 'u':
			r, n := readEscapedRune(b[i:])
			if n == 0 {
				return append(dst, b[i:]...)
			}
			dst = utf8.AppendRune(dst, r)
			i += n
			continue
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		default: // '"', '\\', '/'
			dst = append(dst, b[i+1])
		}
		i += 2
	}
	return dst
}

// EndsWithNewline reports whether the body of a literal (as written,
// escapes kept) ends with an escaped newline: an odd run of backslashes
// before the final n.
func EndsWithNewline(body []byte) bool {
	if !bytes.HasSuffix(body, []byte(`\n`)) {
		return false
	}
	n := 0
	for i := len(body) - 2; i >= 0 && body[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// DecodedLen is len(AppendUnescaped(nil, b)), counted without decoding.
func DecodedLen(b []byte) int {
	n := 0
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			return n + len(b) - i
		}
		n += j
		i += j
		if i+1 >= len(b) {
			return n + 1
		}
		if b[i+1] != 'u' {
			n++
			i += 2
			continue
		}
		r, k := readEscapedRune(b[i:])
		if k == 0 {
			return n + len(b) - i
		}
		n += utf8.RuneLen(r)
		i += k
	}
	return n
}

// AppendQuoted appends s as a whole JSON string literal, quotes included.
func AppendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = AppendEscaped(dst, s)
	return append(dst, '"')
}
