package jsonraw

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendEscaped(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{`say "hi" \ bye`, `say \"hi\" \\ bye`},
		{"a\nb\rc\td", `a\nb\rc\td`},
		{"\x00\x01\b\f\x1f\x7f", `\u0000\u0001\u0008\u000c\u001f` + "\x7f"},
		{"<a href='x'>&amp;</a>", "<a href='x'>&amp;</a>"},   // no HTML escaping
		{"é 日本 🙂", "é 日本 🙂"},                                 // valid UTF-8 as it stands
		{"a\u2028b\u2029c\u0085d", `a\u2028b\u2029c\u0085d`}, // but line separators are escaped
		{"a\xffb", "a\ufffdb"},
		{"\xe6\x97", "\ufffd\ufffd"},           // a cut character: one U+FFFD a byte
		{"\xed\xa0\x80", "\ufffd\ufffd\ufffd"}, // a surrogate is not UTF-8
		{"x\xc0\"", `x` + "\ufffd" + `\"`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(AppendEscaped(nil, tt.in)), "%q", tt.in)
	}
	assert.Equal(t, `keep:a\"`, string(AppendEscaped([]byte("keep:"), `a"`)), "appends to dst")
}

// FuzzAppendEscaped checks the contract on any string: the body makes a
// valid literal that decodes to s with each byte that is not UTF-8 turned
// into U+FFFD (what encoding/json decodes its own encoding of s to), holds
// no control character, and leaves text that needs no escape unchanged.
func FuzzAppendEscaped(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c\n", "\x00\x1f<>&", "\xff\xfe", "日本\xe6\x97", "\u2028\u2029"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		body := AppendEscaped(nil, s)
		require.True(t, utf8.Valid(body), "%q", body)
		for _, c := range body {
			require.GreaterOrEqual(t, c, byte(0x20), "control byte in %q", body)
		}
		var got string
		require.NoError(t, json.Unmarshal(append(append([]byte{'"'}, body...), '"'), &got), "%q", body)
		enc, err := json.Marshal(s)
		require.NoError(t, err)
		var want string
		require.NoError(t, json.Unmarshal(enc, &want))
		require.Equal(t, want, got)
		require.NotContains(t, string(body), "\u2028")
		require.NotContains(t, string(body), "\u2029")
		require.NotContains(t, string(body), "\u0085")
		if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
			return r < 0x20 || r == '"' || r == '\\' || r == '\u2028' || r == '\u2029' || r == '\u0085'
		}) {
			require.Equal(t, s, string(body))
		}
	})
}

// marker stands for the note a caller appends where a string was cut.
func marker(n int) string { return "<cut " + strconv.Itoa(n) + ">" }

// decodeBody decodes a literal body we wrote (plus the marker of a cut),
// failing the test when it is not valid JSON or not valid UTF-8.
func decodeBody(t testing.TB, body []byte, cut int) string {
	t.Helper()
	require.True(t, utf8.Valid(body), "output is not valid UTF-8: %q", body)
	var s string
	require.NoError(t, json.Unmarshal(append(append([]byte{'"'}, body...), '"'), &s), "not a JSON string body: %q", body)
	if cut > 0 {
		s += marker(cut)
	}
	return s
}

func TestAppendStringCut(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  string // decoded, with the marker
	}{
		{"shorter than the cap", "abc", 5, "abc"},
		{"exactly the cap", "abcde", 5, "abcde"},
		{"ascii", "abcdefgh", 5, "abcde" + marker(3)},
		{"cap 0", "abc", 0, marker(3)},
		{"no cap", strings.Repeat("a", 100000), -1, strings.Repeat("a", 100000)},
		// é is 2 bytes, € 3, 😀 4: a cut inside one backs up to its start.
		{"inside a 2-byte char", "aé", 2, "a" + marker(2)},
		{"after a 2-byte char", "aéb", 3, "aé" + marker(1)},
		{"inside a 3-byte char (1)", "a€", 2, "a" + marker(3)},
		{"inside a 3-byte char (2)", "a€", 3, "a" + marker(3)},
		{"inside a 4-byte char, first byte", "ab😀c", 3, "ab" + marker(5)},
		{"inside a 4-byte char, last byte", "ab😀c", 5, "ab" + marker(5)},
		{"4-byte char kept whole", "ab😀c", 6, "ab😀" + marker(1)},
		{"first char straddling", "€abc", 2, marker(6)},
		{"first char straddling (U+FFFD)", "\ufffd", 1, marker(3)},
		// An invalid byte is a character of one byte.
		{"run of continuation bytes", strings.Repeat("\x80", 10), 4, strings.Repeat("\ufffd", 4) + marker(6)},
		{"invalid then valid", "\xff\xffé", 3, "\ufffd\ufffd" + marker(2)},
		{"stray byte after the cut", "ab\x80", 2, "ab" + marker(1)},
		{"controls count as one byte", "\n\n\n\n", 2, "\n\n" + marker(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, cut, _ := AppendString(nil, tt.in, tt.limit, -1)
			assert.Equal(t, tt.want, decodeBody(t, b, cut))
		})
	}
}

// literal checks lit (quotes included) and returns it as the Checker
// judges it.
func literal(t testing.TB, lit string) Literal {
	t.Helper()
	var c Checker
	v, verdict := c.Value([]byte(lit), 10)
	require.Less(t, verdict, Invalid, "fixture must be a valid literal: %s", lit)
	return v.Lit()
}

func TestAppendLiteralCopiesCleanLiterals(t *testing.T) {
	for _, lit := range []string{
		`""`,
		`"plain"`,
		`"esc\n\t\"\\\/ and \u00e9 and \u20ac"`,
		`"pair \ud83d\ude00"`,
		`"raw é 中 😀"`,
		`"escaped separator \u2028"`,
	} {
		l := literal(t, lit)
		require.True(t, l.Clean(), lit)
		got, cut, _ := AppendLiteral(nil, l, 1000, -1)
		assert.Equal(t, lit[1:len(lit)-1], string(got), "a clean literal is copied as it stands")
		assert.Zero(t, cut)
	}
}

func TestAppendLiteralRepairs(t *testing.T) {
	tests := []struct{ name, lit, want, body string }{
		{"lone high surrogate", `"a\ud800b"`, "a\ufffdb", "a\ufffdb"},
		{"lone low surrogate", `"\udc00"`, "\ufffd", "\ufffd"},
		{"reversed pair", `"\udc00\ud800"`, "\ufffd\ufffd", "\ufffd\ufffd"},
		{"high surrogate at the end", `"x\ud83d"`, "x\ufffd", "x\ufffd"},
		{"high surrogate then escape", `"\ud83d\n"`, "\ufffd\n", "\ufffd\\n"},
		{"invalid UTF-8 byte", "\"a\xffb\"", "a\ufffdb", "a\ufffdb"},
		{"escapes kept as written", "\"\\u0041\xff\"", "A\ufffd", "\\u0041\ufffd"},
		{"raw line separators escaped", "\"a\u2028b\u2029c\u0085\"", "a\u2028b\u2029c\u0085", `a\u2028b\u2029c\u0085`},
		{"U+FFFD escape is no surrogate", `"\ufffd\ud800"`, "\ufffd\ufffd", "\\ufffd\ufffd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := literal(t, tt.lit)
			require.False(t, l.Clean(), "fixture must need repair")
			for _, limit := range []int{-1, 1000} {
				got, cut, _ := AppendLiteral(nil, l, limit, -1)
				assert.Equal(t, tt.body, string(got))
				assert.Equal(t, tt.want, decodeBody(t, got, cut))
			}
		})
	}
}

// A literal over the cap is cut on what it says, not on its escaped form:
// escapes that straddle the cut are dropped whole, and the count is of the
// decoded bytes left out.
func TestAppendLiteralCut(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	const limit = 10
	tests := []struct{ name, body, want string }{
		{"escaped form long, text short: no cut", `\n\n\n\n\n\n\n\n`, "\n\n\n\n\n\n\n\n"},
		{"\\u escapes shorter than the cap", `\u00e9\u00e9\u00e9\u00e9\u00e9`, "ééééé"},
		{"two-char escape at the cut", a(9) + `\n\n`, a(9) + "\n" + marker(1)},
		{"\\u escape straddles (é, 2 bytes)", a(9) + `\u00e9b`, a(9) + marker(3)},
		{"\\u escape ends at the cut", a(8) + `\u00e9b`, a(8) + "é" + marker(1)},
		{"surrogate pair straddles (😀, 4 bytes)", a(8) + `\ud83d\ude00`, a(8) + marker(4)},
		{"lone surrogate straddles (U+FFFD, 3 bytes)", a(9) + `\ud800zz`, a(9) + marker(5)},
		{"raw multi-byte straddles", a(9) + "€€", a(9) + marker(6)},
		{"long tail counted", a(10) + strings.Repeat(`\u00e9`, 1000), a(10) + marker(2000)},
		{"invalid byte in the tail counts one", a(12) + "\xff", a(10) + marker(3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := literal(t, `"`+tt.body+`"`)
			got, cut, _ := AppendLiteral(nil, l, limit, -1)
			assert.Equal(t, tt.want, decodeBody(t, got, cut))
			// The literal path says what the plain path says of the decoded text.
			plain, pcut, _ := AppendString(nil, l.String(), limit, -1)
			assert.Equal(t, decodeBody(t, plain, pcut), decodeBody(t, got, cut))
		})
	}
}

func TestDecodedLen(t *testing.T) {
	for _, b := range []string{``, `abc`, `\n\"\\\/`, `\u00e9\u20ac\ud83d\ude00`, `\ud800`, `\udc00\ud800x`, "\xff\xfe", `é`} {
		assert.Equal(t, len(AppendUnescaped(nil, []byte(b))), DecodedLen([]byte(b)), "%q", b)
	}
}

func TestBuilder(t *testing.T) {
	var b Builder
	b.Reset()
	b.Lit(literal(t, `"a\n\u00e9"`))
	b.Text(" <\"plain\">\n")
	b.Int(-42)
	l := b.Literal()
	assert.Equal(t, `"a\n\u00e9 <\"plain\">\n-42"`, string(l.Bytes()))
	assert.True(t, l.Clean())
	assert.Equal(t, "a\né <\"plain\">\n-42", l.String())

	b.Reset()
	b.Lit(literal(t, "\"bad \xff\""))
	assert.False(t, b.Literal().Clean(), "a dirty piece makes the literal dirty")
	b.Reset()
	assert.True(t, b.Literal().Clean(), "Reset forgets it")
	assert.True(t, b.Literal().IsEmpty())
}

// FuzzLiteral checks AppendLiteral on any valid literal, clean or dirty, and
// cap: valid JSON and UTF-8 out, no raw line separator, the same text as
// AppendString gives for the decoded text, and a cut that keeps at most the
// cap, splits no character, and counts what it left out.
func FuzzLiteral(f *testing.F) {
	for _, s := range []string{`abc`, `a\u00e9b`, `\ud800`, `\ud83d\ude00xyz`, "\xff\xfe", `\n\t\"`, `€€€€`, "a\u2028b"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, body string, limit int) {
		lit := `"` + body + `"`
		var c Checker
		v, verdict := c.Value([]byte(lit), 10)
		if verdict >= Invalid {
			return
		}
		l := v.Lit()
		limit = limit%64 - 1 // -1 (no cap) to 62
		out, cut, _ := AppendLiteral(nil, l, limit, -1)
		got := decodeBody(t, out, cut)
		for _, sep := range []string{"\u2028", "\u2029", "\u0085"} {
			require.NotContains(t, string(out), sep)
		}
		dec := l.String()
		plain, pcut, _ := AppendString(nil, dec, limit, -1)
		require.Equal(t, decodeBody(t, plain, pcut), got)
		require.Equal(t, len(dec), DecodedLen(l.Body()))
		if limit < 0 || len(dec) <= limit {
			require.Zero(t, cut)
			require.Equal(t, replaceInvalid(dec), got)
			return
		}
		kept := len(dec) - cut
		require.LessOrEqual(t, kept, limit)
		require.Greater(t, kept, limit-utf8.UTFMax)
		require.Equal(t, replaceInvalid(dec[:kept])+marker(cut), got)
		if utf8.ValidString(dec) {
			require.True(t, utf8.ValidString(dec[:kept]), "cut inside a character")
		}
	})
}

// replaceInvalid is the text with each byte that is not UTF-8 as U+FFFD.
func replaceInvalid(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r) // range yields U+FFFD for each invalid byte
	}
	return b.String()
}

func TestValueBuilder(t *testing.T) {
	in, ok := Parse([]byte(`{"cmd":"ls \"-l\"","n":[1,2],"k\u00e9y":"v"}`))
	require.True(t, ok)
	var b ValueBuilder
	b.Reset()
	b.BeginObject()
	b.Key("command")
	b.Value(in.Get("cmd"))
	b.Key("list")
	b.BeginArray()
	b.String("a<\"b\">")
	b.Value(in.Get("n"))
	b.BeginObject()
	for m := in.Members(); m.Next(); {
		if string(m.Key) == "k\\u00e9y" {
			b.KeyLit(m.KeyLit())
			b.Lit(m.Value.Lit())
		}
	}
	b.EndObject()
	b.EndArray()
	b.EndObject()
	v := b.Result()
	assert.Equal(t, `{"command":"ls \"-l\"","list":["a<\"b\">",[1,2],{"k\u00e9y":"v"}]}`, string(v.Bytes()))
	assert.True(t, json.Valid(v.Bytes()))
	assert.True(t, v.Clean())

	b.Reset()
	b.BeginArray()
	b.EndArray()
	assert.Equal(t, `[]`, string(b.Result().Bytes()), "Reset starts afresh")
}

// FuzzLiteralOutLimit checks the second limit, on the bytes written: the
// kept part takes at most outLimit bytes as written and limit decoded
// bytes, is the start of the whole (a clean literal's body as it stands;
// the escaped text for AppendString), and is the longest such part: one
// more piece would break the limit byOut names.
func FuzzLiteralOutLimit(f *testing.F) {
	for _, s := range []string{`abc`, `a\u00e9b\n\n`, `\ud83d\ude00xy`, "€€€", `\"\"\"`, "日本語テキスト"} {
		f.Add(s, 5, 7)
	}
	f.Fuzz(func(t *testing.T, body string, limit, outLimit int) {
		lit := `"` + body + `"`
		var c Checker
		v, verdict := c.Value([]byte(lit), 10)
		if verdict != Clean {
			return // a repaired literal is checked by FuzzLiteral
		}
		l := v.Lit()
		limit, outLimit = limit%40-1, outLimit%40-1 // -1 (none) to 38
		check := func(name string, whole, out []byte, cut int, byOut bool) {
			t.Helper()
			require.True(t, bytes.HasPrefix(whole, out), "%s: %q is not the start of %q", name, out, whole)
			kept := len(decodeBody(t, out, 0))
			require.Equal(t, len(decodeBody(t, whole, 0))-kept, cut, "%s: cut", name)
			if outLimit >= 0 {
				require.LessOrEqual(t, len(out), outLimit, "%s: written", name)
			}
			if limit >= 0 {
				require.LessOrEqual(t, kept, limit, "%s: kept", name)
			}
			if cut == 0 {
				require.False(t, byOut, name)
				return
			}
			size := nextPiece(whole[len(out):])
			width := len(decodeBody(t, whole[len(out):len(out)+size], 0))
			overText := limit >= 0 && kept+width > limit
			overOut := outLimit >= 0 && len(out)+size > outLimit
			require.True(t, overText || overOut, "%s: %q could keep one more piece", name, whole)
			require.Equal(t, !overText, byOut, "%s: byOut", name)
		}
		out, cut, byOut := AppendLiteral(nil, l, limit, outLimit)
		check("literal", l.Body(), out, cut, byOut)
		dec := l.String()
		out, cut, byOut = AppendString(nil, dec, limit, outLimit)
		check("string", AppendEscaped(nil, dec), out, cut, byOut)
	})
}

// nextPiece is the length of the first character of a literal's body as
// written: an escape (a surrogate pair is one), or a UTF-8 sequence.
func nextPiece(b []byte) int {
	if b[0] == '\\' {
		if b[1] != 'u' {
			return 2
		}
		if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			var s string
			if json.Unmarshal([]byte(`"`+string(b[:12])+`"`), &s) == nil && utf8.RuneCountInString(s) == 1 {
				return 12
			}
		}
		return 6
	}
	_, size := utf8.DecodeRune(b)
	return size
}

// plainRunSlow is plainRun's definition, one byte at a time.
func plainRunSlow(b []byte) int {
	for i, c := range b {
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return i
		}
	}
	return len(b)
}

// plainRun tests eight bytes at a time: every kind of byte that ends a
// run, at every place in a word and past the last whole word.
func TestPlainRun(t *testing.T) {
	for _, s := range []string{
		"", "a", "abcdefgh", "abcdefghi", "abcdefg\\", "abcdefgh\\n", "\x1f2345678", "1234567\x7f9",
		"1234567\x80", "12345678\x00", "é", "\xff", "aaaaaaaaaaaaaaaa\x1faaaa", "abc\"defghijk",
		" !#$%&'()*+,-./0123456789:;<=>?@[]^_`{|}~",
	} {
		assert.Equal(t, plainRunSlow([]byte(s)), plainRun([]byte(s)), "%q", s)
	}
}

// specialBytes' lowest flag is exact for every pair of byte values at
// every pair of places in a word, the other bytes plain.
func TestSpecialBytes(t *testing.T) {
	special := func(c byte) bool { return c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' }
	for v1 := range 256 {
		for v2 := range 256 {
			for p1 := range 8 {
				for p2 := p1 + 1; p2 < 8; p2++ {
					w := []byte("aaaaaaaa")
					w[p1], w[p2] = byte(v1), byte(v2)
					want := 8
					if special(byte(v1)) {
						want = p1
					} else if special(byte(v2)) {
						want = p2
					}
					m := specialBytes(binary.LittleEndian.Uint64(w))
					got := 8
					if m != 0 {
						got = bits.TrailingZeros64(m) >> 3
					}
					if got != want {
						t.Fatalf("%q: first special byte at %d, want %d", w, got, want)
					}
				}
			}
		}
	}
}

// DecodedLen agrees with decoding on any bytes, well-formed or not.
func FuzzDecodedLen(f *testing.F) {
	for _, s := range []string{`a\nb\\c\"`, `\u00e9\ud83d\ude00`, `x\\u0041`, `tail\`, `\\\\\n`, `\q\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := DecodedLen(b), len(AppendUnescaped(nil, b)); got != want {
			t.Fatalf("DecodedLen(%q) = %d, decoding gives %d", b, got, want)
		}
	})
}

func TestEndsWithNewline(t *testing.T) {
	for body, want := range map[string]bool{
		``: false, `n`: false, `\n`: true, `a\n`: true, `a\\n`: false, `a\\\n`: true, `a\\\\n`: false, `\nx`: false,
	} {
		assert.Equal(t, want, EndsWithNewline([]byte(body)), "%q", body)
	}
}

// TestBuilderLines: Line starts a new line only after something; Empty
// tells whether anything is written.
func TestBuilderLines(t *testing.T) {
	var b Builder
	b.Reset()
	require.True(t, b.Empty())
	b.Line()
	require.True(t, b.Empty(), "no newline before the first line")
	b.Text("a")
	b.Line()
	b.Text("b\n")
	b.Line()
	require.False(t, b.Empty())
	require.Equal(t, `"a\nb\n\n"`, string(b.Literal().Bytes()))
}

// appendStringMeasured is AppendString always measuring the cut: what
// its shortcut for text within both limits must equal.
func appendStringMeasured(dst []byte, s string, limit, outLimit int) ([]byte, int, bool) {
	if outLimit < 0 {
		if limit < 0 || len(s) <= limit {
			return AppendEscaped(dst, s), 0, false
		}
		end := cutPoint(s, limit)
		return AppendEscaped(dst, s[:end]), len(s) - end, false
	}
	end, byOut := stringCut(s, noLimit(limit), outLimit)
	return AppendEscaped(dst, s[:end]), len(s) - end, byOut
}

// AppendString skips measuring text that fits both limits however it is
// escaped: it must write what measuring would, on either side of where
// the shortcut stops, for text escaped at the widest (controls) and
// narrowest.
func FuzzAppendStringShortcut(f *testing.F) {
	for _, s := range []string{"", "abc", "\x00\x01\x02", "\xff\xfe", "\u2028\u2029\u0085", `"\`, "é€😀"} {
		f.Add(s, -1, 0)
	}
	f.Fuzz(func(t *testing.T, s string, limit, slack int) {
		limit = max(limit%(len(s)+2), -1)
		for _, outLimit := range []int{-1, maxEscapedWidth*len(s) + slack%8, maxEscapedWidth*len(s) - 1 - slack%8, len(s) + slack%8} {
			outLimit = max(outLimit, -1)
			got, gotCut, gotBy := AppendString(nil, s, limit, outLimit)
			want, wantCut, wantBy := appendStringMeasured(nil, s, limit, outLimit)
			if string(got) != string(want) || gotCut != wantCut || gotBy != wantBy {
				t.Fatalf("%q limit %d out %d: got %q %d %v, want %q %d %v", s, limit, outLimit, got, gotCut, gotBy, want, wantCut, wantBy)
			}
		}
	})
}
