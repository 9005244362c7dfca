package adaptertest

import (
	"os"
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
