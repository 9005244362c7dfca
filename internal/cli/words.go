package cli

// How the command words things: counts, paths, errors; and whether a
// person is watching.

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WasWere is "1 input line was" or "3 input lines were".
func WasWere(n int, word string) string {
	if n == 1 {
		return Plural(n, word) + " was"
	}
	return Plural(n, word) + " were"
}

// UnwrapPath drops the path of an *os.PathError, for messages that name it already.
func UnwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// DisplayPath names an output path: "-" is stdout.
func DisplayPath(p string) string {
	if p == "-" {
		return "stdout"
	}
	return QuoteName(p)
}

// QuoteName is a file name as a message shows it: as it is when every
// character of it shows as itself, else quoted with Go's escapes, so that
// a name holding escape sequences, control characters, bidi controls or
// bytes that are not UTF-8 cannot write to the terminal (a name such as
// x\x1b]52;c;…\a.jsonl set the clipboard) nor hide what it is. A quoted
// name is shown as it is: quoting twice changes nothing.
func QuoteName(p string) string {
	for _, c := range p {
		if c == utf8.RuneError || c != ' ' && !unicode.IsPrint(c) {
			return strconv.Quote(p)
		}
	}
	return p
}

// TerminalSafe is a message with what must not reach a terminal escaped:
// control characters but newline and tab, DEL, C1 controls, format
// characters (bidi controls, zero-width ones) and bytes that are not
// UTF-8, each as its Go escape. Every diagnostic passes through it, names
// that reach a message unquoted included.
func TerminalSafe(msg string) string {
	clean := true
	for _, c := range msg {
		if unsafeRune(c) {
			clean = false
			break
		}
	}
	if clean {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		c, n := utf8.DecodeRuneInString(msg[i:])
		switch {
		case c == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, msg[i])
		case c < 0x80 && unsafeRune(c):
			fmt.Fprintf(&b, `\x%02x`, c)
		case unsafeRune(c):
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteString(msg[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafeRune reports whether TerminalSafe escapes c.
func unsafeRune(c rune) bool {
	switch {
	case c == '\n', c == '\t':
		return false
	case c < 0x20, c == 0x7f, c >= 0x80 && c <= 0x9f, c == utf8.RuneError:
		return true
	}
	return c >= 0x80 && unicode.Is(unicode.Cf, c)
}

// FirstOf returns the first value that is not empty.
func FirstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// Plural is "1 entry", "2 entries", "3 files".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if w, ok := strings.CutSuffix(word, "y"); ok {
		return strconv.Itoa(n) + " " + w + "ies"
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// IsTerminal reports whether a stream is a terminal: a character device
// other than /dev/null (which scripts redirect to and from).
func IsTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(st, null)
}
