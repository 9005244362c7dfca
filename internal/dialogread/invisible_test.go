package dialogread_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
)

func TestMarkInvisible(t *testing.T) {
	for in, want := range map[string]string{
		"plain ascii":                          "plain ascii",
		"abc\u202Edcb":                         "abc⟨U+202E⟩dcb",
		"x\u2066y\u2069z":                      "x⟨U+2066⟩y⟨U+2069⟩z",
		"a\u200Bb\uFEFFc\u00ADd":               "a⟨U+200B⟩b⟨U+FEFF⟩c⟨U+00AD⟩d",
		"é\u200Fü":                             "é⟨U+200F⟩ü",
		"family 👨\u200D👩\u200D👧 ok":            "family 👨\u200D👩\u200D👧 ok", // joiners are emoji
		"flag 🏴\U000E0067\U000E0062\U000E007F": "flag 🏴\U000E0067\U000E0062\U000E007F",
		"hidden \U000E0041\U000E0042":          "hidden ⟨U+E0041⟩⟨U+E0042⟩",
	} {
		assert.Equal(t, want, dialogread.MarkInvisible(in), "%q", in)
	}
}
