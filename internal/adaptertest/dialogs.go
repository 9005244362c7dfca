package adaptertest

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
)

// ReadDialog reads the dialog file at path as view and export do, strings
// masked by red (nil: none).
func ReadDialog(t testing.TB, path string, red *dialogread.Redactor) *dialogread.Dialog {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	d, err := dialogread.Read(f, red)
	require.NoError(t, err)
	return d
}

// ManyMessages is a dialog of an init entry and n assistant messages that
// each say content: one to read past a cap.
func ManyMessages(n int, content string) string {
	var b strings.Builder
	b.WriteString(`{"seq":0,"ts":"2026-01-01T00:00:00Z","type":"init","data":{"task":"t","cwd":"/","model":"m","agent":"a"}}` + "\n")
	for i := 1; i <= n; i++ {
		b.WriteString(`{"seq":` + strconv.Itoa(i) + `,"ts":"2026-01-01T00:00:01Z","type":"message","role":"assistant","content":"` + content + `"}` + "\n")
	}
	return b.String()
}
