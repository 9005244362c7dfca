package dialogread

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// An image the dialog carries is a placeholder where no picture is drawn:
// its base64 is never printed, whether in a result, a prompt or a message.
func TestHideImages(t *testing.T) {
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAAEElEQVR4nGL6z8AACAAA//8DCQECWLbVUAAAAABJRU5ErkJggg=="
	for in, want := range map[string]string{
		"shot:\n\n![image/png 73 bytes](data:image/png;base64," + png + ")":        "shot:\n\n[image image/png 73 bytes]",
		"![](data:image/gif;base64,R0lGODlh) and ![b](data:image/png;base64,AAAA)": "[image data] and [image b]",
		"a ](data: that is no image":                "a ](data: that is no image",
		"![x](data:image/png;base64,AA AA)":         "![x](data:image/png;base64,AA AA)",
		"![see [this]](data:image/png;base64,AAAA)": "![see [this]](data:image/png;base64,AAAA)",
	} {
		assert.Equal(t, want, HideImages(in), in)
	}
}
