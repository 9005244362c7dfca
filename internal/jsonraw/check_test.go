package jsonraw

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChecker(t *testing.T) {
	tests := []struct {
		in   string
		want Verdict
	}{
		{`{}`, Clean},
		{` [ ] `, Clean},
		{`{"a":[1,-2.5e+3,true,false,null,"x\n\"\\\/\b\f\r\t\u00e9"],"b":{}}`, Clean},
		{`"just a string"`, Clean},
		{`0`, Clean},
		{`{"s":"caf` + "\xe9" + `"}`, Dirty},
		{`{"s":"\ud800"}`, Dirty},
		{`{"s":"\udc00\ud800"}`, Dirty},
		{`{"s":"\ud83d\ude00 pair"}`, Clean},
		{`{"s":"` + "é😀" + `"}`, Clean},
		{`{"s":"a` + "\u2028" + `b"}`, Dirty}, // raw line separators need escaping
		{`{"s":"` + "\u2029" + `"}`, Dirty},
		{`{"s":"` + "\u0085" + `"}`, Dirty},
		{`{"s":"\u2028 escaped already"}`, Clean},
		{`{"s":"` + "\u2027\u202a\u0084\u0086" + `"}`, Clean}, // their neighbours are fine
		{``, Invalid},
		{`{`, Invalid},
		{`{"a"}`, Invalid},
		{`{"a":1,}`, Invalid},
		{`[1,]`, Invalid},
		{`[1 2]`, Invalid},
		{`{} {}`, Invalid},
		{`{'a':1}`, Invalid},
		{`{"a":01}`, Invalid},
		{`{"a":1.}`, Invalid},
		{`{"a":-}`, Invalid},
		{`{"a":tru}`, Invalid},
		{`{"a":"\x"}`, Invalid},
		{`{"a":"\u12"}`, Invalid},
		{"{\"a\":\"tab\there\"}", Invalid},
		{`{"a":"unterminated}`, Invalid},
		{`[}`, Invalid},
		{`{]`, Invalid},
		{strings.Repeat("[", 10) + strings.Repeat("]", 10), Clean},
		{strings.Repeat("[", 11) + strings.Repeat("]", 11), TooDeep},
		{strings.Repeat(`{"a":`, 11) + "1" + strings.Repeat("}", 11), TooDeep},
	}
	var c Checker
	for _, tt := range tests {
		assert.Equal(t, tt.want, c.Check([]byte(tt.in), 10), "%q", tt.in)
	}
}

// The checker agrees with encoding/json on validity, and its clean verdict
// with a slow reading of the same strings.
func FuzzChecker(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"d\u00e9\ud83d\ude00"}`, `[true,false,-0.5e-3]`, `{"x":"\ud800"}`, "{\"x\":\"\xff\"}", `{"a":"b"}{`, `  {} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var c Checker
		got := c.Check(b, 64)
		if got == TooDeep {
			return
		}
		if want := json.Valid(b); (got != Invalid) != want {
			t.Fatalf("check(%q) = %v, json.Valid = %v", b, got, want)
		}
		if got != Invalid {
			if want := cleanSlow(b); (got == Clean) != want {
				t.Fatalf("check(%q) = %v, clean = %v", b, got, want)
			}
		}
	})
}

// cleanSlow reports whether valid JSON b has only valid UTF-8, no lone
// surrogate escapes and no raw line separators. Outside strings valid JSON
// is ASCII, so UTF-8 validity of the whole is that of its strings.
func cleanSlow(b []byte) bool {
	if !utf8.Valid(b) || strings.ContainsAny(string(b), "\u2028\u2029\u0085") {
		return false
	}
	inStr := false
	for i := 0; i < len(b); i++ {
		switch {
		case !inStr:
			inStr = b[i] == '"'
		case b[i] == '"':
			inStr = false
		case b[i] == '\\' && b[i+1] == 'u':
			r, _ := hexSlow(b[i+2:])
			if r >= 0xd800 && r < 0xdc00 {
				r2, ok := hexAfterEscape(b[i+6:])
				if !ok || r2 < 0xdc00 || r2 >= 0xe000 {
					return false
				}
				i += 11
				continue
			}
			if r >= 0xdc00 && r < 0xe000 {
				return false
			}
			i += 5
		case b[i] == '\\':
			i++
		}
	}
	return true
}

func FuzzUTF8Seq(f *testing.F) {
	for _, s := range []string{"é", "€", "😀", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe0\x80\xaf", "\xf0\x8f\xbf\xbf", "\xc3"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] < utf8.RuneSelf {
			return
		}
		r, size := utf8.DecodeRune(b)
		want := size
		if r == utf8.RuneError && size == 1 {
			want = 0
		}
		if got := utf8Seq(b); got != want {
			t.Fatalf("utf8Seq(%q) = %d, want %d", b, got, want)
		}
	})
}

// hexSlow reads four hex digits with strconv, independently of the checker.
func hexSlow(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(n), err == nil
}

// hexAfterEscape reads a following \uXXXX escape.
func hexAfterEscape(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	return hexSlow(b[2:])
}

func TestTooDeep(t *testing.T) {
	nest := func(n int, open, close string) []byte {
		return []byte(strings.Repeat(open, n) + "1" + strings.Repeat(close, n))
	}
	tests := []struct {
		name  string
		in    []byte
		limit int
		want  bool
	}{
		{"at the limit", nest(100, "[", "]"), 100, false},
		{"one past the limit", nest(101, "[", "]"), 100, true},
		{"objects", nest(101, `{"a":`, "}"), 100, true},
		{"mixed", nest(51, `[{"a":`, "}]"), 100, true},
		{"brackets in strings do not count", []byte(`["` + strings.Repeat("[", 500) + `"]`), 100, false},
		{"escaped quotes do not end strings", []byte(`["\"` + strings.Repeat("{", 500) + `"]`), 100, false},
		{"many brackets, shallow", []byte(strings.Repeat("[]", 500)), 100, false},
		{"unclosed and deep", []byte(strings.Repeat("[", 101)), 100, true},
		{"short line", []byte("[[[["), 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Checker
			assert.Equal(t, tt.want, c.Check(tt.in, tt.limit) == TooDeep)
		})
	}
}

// TestDeepRecord: a record nested deeper than a recursive check would go
// is checked, and its index serves walks as a scan does.
func TestDeepRecord(t *testing.T) {
	const depth = 2000
	long := strings.Repeat("é", 80)
	var line strings.Builder
	for i := range depth {
		fmt.Fprintf(&line, `{"k%d":"%s","a":[`, i, long)
	}
	line.WriteString(`1`)
	for range depth {
		line.WriteString(`]}`)
	}
	b := []byte(line.String())
	var c Checker
	v, verdict := c.Value(b, 10000)
	require.Equal(t, Clean, verdict)
	require.NotEmpty(t, c.o.ix.members)
	var withIndex, without strings.Builder
	trace(&withIndex, v, 0)
	trace(&without, textOf(v.b, v.Clean()), 0)
	require.Equal(t, without.String(), withIndex.String())

	assert.Equal(t, TooDeep, c.Check(b, 2*depth-1), "too deep for the limit")
	assert.Equal(t, Clean, c.Check(b, 2*depth), "as deep as the limit")
	assert.Equal(t, Invalid, c.Check(b[:len(b)-1], 10000), "cut short")
}
