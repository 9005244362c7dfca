package codex

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// litBuf builds a JSON string literal from pieces: bodies of literals from
// the input (copied as they stand, escapes and all) and plain Go text
// (escaped here). The literal is then handed to the writer as a
// dialog.RawString, so input text is never decoded and re-encoded. The
// buffer is reused; a finished literal is valid until the next reset.
type litBuf struct{ b []byte }

func (l *litBuf) reset() { l.b = append(l.b[:0], '"') }

// raw appends the body of the string literal lit (nothing if lit is not one).
func (l *litBuf) raw(lit string) { l.b = append(l.b, inner(lit)...) }

// plain appends s, escaped.
func (l *litBuf) plain(s string) { l.b = appendEscaped(l.b, s) }

// int appends n in decimal.
func (l *litBuf) int(n int64) { l.b = strconv.AppendInt(l.b, n, 10) }

// len returns the length of the body so far.
func (l *litBuf) len() int { return len(l.b) - 1 }

// text closes the literal and returns it. It aliases the buffer.
func (l *litBuf) text() dialog.Text {
	l.b = append(l.b, '"')
	return dialog.RawString(view(l.b))
}

// endsWithNewline reports whether the body of a literal ends with an
// escaped newline (an odd run of backslashes before the final n).
func endsWithNewline(body string) bool {
	if !strings.HasSuffix(body, `\n`) {
		return false
	}
	n := 0
	for i := len(body) - 2; i >= 0 && body[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// appendEscaped appends s as the body of a JSON string: quotes, backslashes
// and control characters escaped, invalid UTF-8 replaced by U+FFFD.
func appendEscaped(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
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
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// appendQuoted appends s as a JSON string literal.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendEscaped(dst, s)
	return append(dst, '"')
}

// shellQuote quotes one argument as Python's shlex.quote does: words of
// safe characters stay bare, anything else goes in single quotes.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("@%+=:,./-_", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// shellJoin joins argv into one shell command line, as Codex itself does
// for the current format's command string.
func shellJoin(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shellQuote(a))
	}
	return b.String()
}
