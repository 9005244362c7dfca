package dialog

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string literal. Invalid UTF-8 becomes U+FFFD
// (the web UI's daemon rejects the whole file on one bad byte), and nothing is
// HTML-escaped. When limit >= 0 and s is longer than limit bytes, s is cut on a
// character boundary and a marker says how much was left out.
func appendString(dst []byte, s string, limit int) []byte {
	cut := 0
	if limit >= 0 && len(s) > limit {
		end := limit
		for end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
		cut = len(s) - end
		s = s[:end]
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	if cut > 0 {
		dst = appendCutMarker(dst, cut)
	}
	return append(dst, '"')
}

// appendCutMarker appends the visible note that ends a cut string (inside the literal).
func appendCutMarker(dst []byte, cut int) []byte {
	dst = append(dst, ` … [`...)
	dst = strconv.AppendInt(dst, int64(cut), 10)
	return append(dst, ` more bytes cut]`...)
}

// appendRawString appends a JSON string literal taken verbatim from the input
// (quotes included, already checked to be valid JSON). It is copied as it stands
// when that is safe: valid UTF-8, no lone surrogate escapes, and within limit.
// Otherwise it is decoded, cut and escaped again.
func appendRawString(dst []byte, lit string, limit int) []byte {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return appendString(dst, lit, limit)
	}
	body := lit[1 : len(lit)-1]
	if (limit < 0 || len(body) <= limit) && safeLiteral(body) {
		return append(dst, lit...)
	}
	return appendString(dst, unescape(body), limit)
}

// safeLiteral reports whether the body of a valid JSON string literal can be
// copied unchanged into our output.
func safeLiteral(b string) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == '\\' {
				if i+1 < len(b) && b[i+1] == 'u' {
					r, n := readEscapedRune(b[i:])
					if n == 0 || r == utf8.RuneError {
						return false
					}
					i += n
					continue
				}
				i += 2
				continue
			}
			if c < 0x20 {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(b[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		i += size
	}
	return true
}

// readEscapedRune reads a \uXXXX escape (or a surrogate pair of two) at the
// start of s. A lone surrogate gives utf8.RuneError. n is 0 when s holds no
// complete escape.
func readEscapedRune(s string) (r rune, n int) {
	r1, ok := hex4(s)
	if !ok {
		return 0, 0
	}
	if !utf16.IsSurrogate(r1) {
		return r1, 6
	}
	if r1 < 0xdc00 {
		if r2, ok := hex4(s[6:]); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
			return utf16.DecodeRune(r1, r2), 12
		}
	}
	return utf8.RuneError, 6
}

func hex4(s string) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[2:6]) {
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

// unescape decodes the body of a JSON string literal. Lone surrogates become
// U+FFFD; invalid UTF-8 is left for appendString to replace.
func unescape(b string) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			i++
			continue
		}
		switch b[i+1] {
		case 'u':
			r, n := readEscapedRune(b[i:])
			if n == 0 {
				out = append(out, b[i:]...)
				return string(out)
			}
			out = utf8.AppendRune(out, r)
			i += n
			continue
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default: // '"', '\\', '/'
			out = append(out, b[i+1])
		}
		i += 2
	}
	return string(out)
}

// appendRawValue appends a valid JSON value from the input in compact form,
// every string in it passed through appendRawString with limit. It walks the
// bytes without recursion, so nesting depth costs nothing.
func appendRawValue(dst []byte, raw string, limit int) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
		case '"':
			j := i + 1
			for j < len(raw) {
				if raw[j] == '\\' {
					j += 2
					continue
				}
				if raw[j] == '"' {
					break
				}
				j++
			}
			if j >= len(raw) {
				j = len(raw) - 1
			}
			dst = appendRawString(dst, raw[i:j+1], limit)
			i = j + 1
		default:
			dst = append(dst, c)
			i++
		}
	}
	return dst
}
