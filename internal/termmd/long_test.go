package termmd_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/termmd"
)

// A long unbroken word costs its length, not its length times its lines:
// the bytes measured to cut it into lines grow with the word, four times
// the word about four times the bytes (each cut measured the whole rest of
// the word: 256 KiB took 6 s, 1 MiB 117 s).
func TestLongWordIsLinear(t *testing.T) {
	for name, src := range map[string]func(n int) string{
		"paragraph":  func(n int) string { return strings.Repeat("x", n) },
		"code block": func(n int) string { return "```\n" + strings.Repeat("é", n/2) + "\n```" },
	} {
		t.Run(name, func(t *testing.T) {
			r := termmd.New(false)
			small, a := r.RenderMeasured(src(64<<10), 80)
			large, b := r.RenderMeasured(src(256<<10), 80)
			require.NotEmpty(t, small)
			assert.Greater(t, len(large), 3*len(small), "the lines are all drawn")
			assert.Less(t, a, 8*(64<<10), "64 KiB measured in %d bytes", a)
			assert.Less(t, b, 5*a, "64 KiB: %d bytes measured, 256 KiB: %d", a, b)
			assert.Equal(t, strings.ReplaceAll(src(256<<10), "```\n", "")[:100], strings.TrimSpace(strings.Join(large, ""))[:100])
		})
	}
}
