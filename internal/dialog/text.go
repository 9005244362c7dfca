package dialog

// Text is a string for the dialog, held either as plain text or as a JSON
// string literal exactly as it stands in the input (quotes included). A raw
// literal is copied into the output without decoding when that is safe,
// which saves decoding and re-encoding every string passed through.
type Text struct {
	s   string
	raw bool
}

// Plain is text held as a Go string.
func Plain(s string) Text { return Text{s: s} }

// RawString is a JSON string literal from valid input, quotes included (for
// example gjson's Result.Raw of a string). Anything else is treated as plain text.
func RawString(lit string) Text {
	if len(lit) >= 2 && lit[0] == '"' && lit[len(lit)-1] == '"' {
		return Text{s: lit, raw: true}
	}
	return Text{s: lit}
}

// IsEmpty reports whether the text has no characters.
func (t Text) IsEmpty() bool {
	if t.raw {
		return len(t.s) <= 2
	}
	return t.s == ""
}

// String returns the decoded text.
func (t Text) String() string {
	if t.raw {
		return unescape(t.s[1 : len(t.s)-1])
	}
	return t.s
}

func (t Text) appendTo(dst []byte, limit int, trusted bool) []byte {
	if t.raw {
		return appendRawString(dst, t.s, limit, trusted)
	}
	return appendString(dst, t.s, limit)
}
