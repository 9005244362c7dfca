package jsonraw

// TokenKind is what a token of a value is.
type TokenKind uint8

// The kinds of tokens.
const (
	StringToken TokenKind = iota // a string value: Lit
	KeyToken                     // an object key: Lit (the ':' after it is not a token)
	OpenToken                    // '{' or '[': Byte
	CloseToken                   // '}' or ']': Byte
	OtherToken                   // a number, true, false, null, or a ',': Raw
)

// TokenIter walks the tokens of a value in order, skipping white space,
// without recursion (nesting depth costs nothing):
//
//	for tk := v.Tokens(); tk.Next(); {
//		switch tk.Kind { … }
//	}
type TokenIter struct {
	Kind TokenKind
	Lit  Literal // StringToken, KeyToken
	Byte byte    // OpenToken, CloseToken
	Raw  []byte  // OtherToken
	v    Value
	i    int
	w    walker
}

// Tokens starts a walk over the tokens of v.
func (v Value) Tokens() *TokenIter { return &TokenIter{v: v} }

// Next moves to the next token and reports whether there is one.
func (t *TokenIter) Next() bool {
	if !t.w.resolved {
		t.w = walkOf(t.v.o, t.v.b)
	}
	b := t.v.b
	for t.i < len(b) {
		switch c := b[t.i]; c {
		case ' ', '\t', '\n', '\r', ':':
			t.i++
		case '"':
			end := t.w.str(b, t.i)
			t.Lit = Literal{b: b[t.i:end], o: t.v.o}
			t.Kind = StringToken
			if isKey(b[end:]) {
				t.Kind = KeyToken
			}
			t.i = end
			return true
		case '{', '[':
			t.Kind, t.Byte = OpenToken, c
			t.i++
			return true
		case '}', ']':
			t.Kind, t.Byte = CloseToken, c
			t.i++
			return true
		case ',':
			t.Kind, t.Raw = OtherToken, b[t.i:t.i+1]
			t.i++
			return true
		default:
			end := t.w.value(b, t.i)
			if end <= t.i {
				end = t.i + 1
			}
			t.Kind, t.Raw = OtherToken, b[t.i:end]
			t.i = end
			return true
		}
	}
	return false
}

// Container returns, just after an OpenToken, the whole container it opens,
// and moves past it: its tokens are not walked.
func (t *TokenIter) Container() Value {
	start := t.i - 1
	end := t.w.value(t.v.b, start)
	t.i = end
	return Value{b: t.v.b[start:end], o: t.v.o}
}

// isKey reports whether a string followed by after is an object key.
func isKey(after []byte) bool {
	i := skipSpace(after, 0)
	return i < len(after) && after[i] == ':'
}

// AppendCompact appends v without the white space between its tokens,
// strings as they stand.
func AppendCompact(dst []byte, v Value) []byte {
	for t := v.Tokens(); t.Next(); {
		switch t.Kind {
		case KeyToken:
			dst = append(dst, t.Lit.b...)
			dst = append(dst, ':')
		case StringToken:
			dst = append(dst, t.Lit.b...)
		case OpenToken, CloseToken:
			dst = append(dst, t.Byte)
		default:
			dst = append(dst, t.Raw...)
		}
	}
	return dst
}
