package codex

import (
	"strconv"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// litBuf builds a JSON string literal from pieces: bodies of literals from
// the input (copied as they stand, escapes and all) and plain Go text
// (escaped here). The literal is then handed to the writer as a
// dialog.RawString, so input text is never decoded and re-encoded. The
// buffer is reused; a finished literal is valid until the next reset.
type litBuf struct{ b []byte }

func (l *litBuf) reset() { l.b = append(l.b[:0], '"') }

// raw appends the body of the string literal lit (nothing if lit is not one).
func (l *litBuf) raw(lit string) { l.b = append(l.b, jsonraw.Body(lit)...) }

// plain appends s, escaped.
func (l *litBuf) plain(s string) { l.b = jsonraw.AppendEscaped(l.b, s) }

// int appends n in decimal.
func (l *litBuf) int(n int64) { l.b = strconv.AppendInt(l.b, n, 10) }

// len returns the length of the body so far.
func (l *litBuf) len() int { return len(l.b) - 1 }

// text closes the literal and returns it. It aliases the buffer.
func (l *litBuf) text() dialog.Text {
	l.b = append(l.b, '"')
	return dialog.RawString(jsonraw.View(l.b))
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

// appendQuoted appends s as a JSON string literal.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = jsonraw.AppendEscaped(dst, s)
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
