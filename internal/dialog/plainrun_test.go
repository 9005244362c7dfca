package dialog

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// plainRunSlow is plainRun's definition, one byte at a time.
func plainRunSlow(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '\\' {
			return i
		}
	}
	return len(s)
}

func TestPlainRun(t *testing.T) {
	for _, s := range []string{
		"", "a", "abcdefgh", "abcdefghi", "abcdefg\\", "abcdefgh\\n", "\x1f2345678", "1234567\x7f9",
		"1234567\x80", "12345678\x00", "é", "aaaaaaaaaaaaaaaa\x1faaaa", " !\"#$%&'()*+,-./0123456789:;<=>?@[]^_`{|}~",
	} {
		assert.Equal(t, plainRunSlow(s), plainRun(s), "%q", s)
	}
}

func FuzzPlainRun(f *testing.F) {
	f.Add("hello, world\\n and more text")
	f.Add("\x00\x1f\x20\x5b\x5c\x5d\x7f\x80\xff")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := plainRun(s), plainRunSlow(s); got != want {
			t.Fatalf("plainRun(%q) = %d, want %d", s, got, want)
		}
		// rawCut keeps the text that decoding and cutting keep.
		lit := string(appendString(nil, s, -1))
		body := lit[1 : len(lit)-1]
		for _, limit := range []int{0, 1, 7, 8, 9, 31} {
			end, ok := rawCut(body, limit)
			if !ok {
				continue
			}
			if trusted := rawCutTrusted(body, limit); trusted != end {
				t.Fatalf("rawCutTrusted(%q, %d) = %d, rawCut says %d", body, limit, trusted, end)
			}
			decoded := unescape(body)
			want := decoded
			if len(decoded) > limit {
				want = decoded[:cutPoint(decoded, limit)]
			}
			if got := unescape(body[:end]); got != want {
				t.Fatalf("rawCut(%q, %d) keeps %q, want %q", body, limit, got, want)
			}
		}
	})
}
