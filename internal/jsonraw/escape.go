package jsonraw

import "unicode/utf8"

// AppendEscaped appends s as the body of a JSON string literal (no quotes):
// '"' and '\' escaped, control characters as \n, \r, \t or \u00XX, each
// byte that is not UTF-8 as U+FFFD (the web UI's daemon rejects a whole file
// on one bad byte), and nothing else, not even HTML characters or U+2028,
// which are valid in JSON as they stand.
func AppendEscaped(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0 // s[start:i] is to be copied as it stands
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
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
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
	return append(dst, s[start:]...)
}
