package dialogread

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MarkInvisible shows the characters that change how text around them is
// drawn or hide in it as marks such as ⟨U+202E⟩, instead of applying
// them: bidirectional controls (which reorder what follows: "Trojan
// Source") and invisible characters (zero-width space, word joiner, byte
// order mark, invisible operators, fillers, soft hyphen, and tag
// characters outside a flag). Joiners and variation selectors, which emoji
// and scripts need, are left alone. Text without any comes back as it is.
func MarkInvisible(s string) string {
	i := firstMarked(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	var flag bool
	for _, c := range s[i:] {
		if marked(c, &flag) {
			fmt.Fprintf(&b, "⟨U+%04X⟩", c)
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// firstMarked is the index of the first character MarkInvisible marks, -1
// when none; ASCII is skipped a byte at a time.
func firstMarked(s string) int {
	var flag bool
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			flag = false
			i++
			continue
		}
		c, n := utf8.DecodeRuneInString(s[i:])
		if marked(c, &flag) {
			return i
		}
		i += n
	}
	return -1
}

// marked reports whether c is marked; flag says whether c is in a flag's
// tag sequence (after U+1F3F4 and tags), and is kept up to date.
func marked(c rune, flag *bool) bool {
	inFlag := *flag
	*flag = c == 0x1F3F4 || inFlag && c >= 0xE0000 && c <= 0xE007F
	switch {
	case c == 0x061C, c == 0x200E, c == 0x200F, c >= 0x202A && c <= 0x202E, c >= 0x2066 && c <= 0x2069: // bidi
		return true
	case c == 0x200B, c >= 0x2060 && c <= 0x2064, c == 0xFEFF, c == 0x180E, c == 0x00AD,
		c == 0x115F, c == 0x1160, c == 0x3164, c == 0xFFA0: // invisible
		return true
	case c >= 0xE0000 && c <= 0xE007F: // tags: a flag is U+1F3F4 then tags
		return !inFlag
	}
	return false
}
