package view

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
)

// Clean's byte scan lets through only what the expression would not
// change: every byte value alone, and C1 controls, clean alike either way.
func TestCleanSkipsTheExpressionOnlyWhenItWouldChangeNothing(t *testing.T) {
	controlRe := regexp.MustCompile(controlPattern)
	for c := range 256 {
		for _, s := range []string{"a" + string(rune(c)) + "b", "a" + string([]byte{byte(c)}) + "b"} {
			want := dialogread.MarkInvisible(strings.ReplaceAll(controlRe.ReplaceAllString(s, ""), "\t", "    "))
			if strings.Contains(s, "\r") {
				continue // Clean's own carriage-return rule comes first
			}
			assert.Equal(t, want, Clean(s), "%q", s)
		}
	}
}
