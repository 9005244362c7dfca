//go:build unix

package atif

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFIFONotOpened: a FIFO beside a trajectory is refused, not opened
// (opening it would wait for a writer for ever).
func TestFIFONotOpened(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "result.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	_, err := readDocument(fifo)
	require.Error(t, err)
	ok, err := sniff(fifo)
	require.Error(t, err)
	assert.False(t, ok)
}
