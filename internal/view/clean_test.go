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

// An image the dialog carries is a placeholder in a terminal: its base64
// is never printed, whether in a result, a prompt or a message.
func TestHideImages(t *testing.T) {
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAAEElEQVR4nGL6z8AACAAA//8DCQECWLbVUAAAAABJRU5ErkJggg=="
	for in, want := range map[string]string{
		"shot:\n\n![image/png 73 bytes](data:image/png;base64," + png + ")":        "shot:\n\n[image image/png 73 bytes]",
		"![](data:image/gif;base64,R0lGODlh) and ![b](data:image/png;base64,AAAA)": "[image data] and [image b]",
		"a ](data: that is no image":                "a ](data: that is no image",
		"![x](data:image/png;base64,AA AA)":         "![x](data:image/png;base64,AA AA)",
		"![see [this]](data:image/png;base64,AAAA)": "![see [this]](data:image/png;base64,AAAA)",
	} {
		assert.Equal(t, want, hideImages(in), in)
	}
}
