package adaptertest

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
)

// Put writes data to path, making its folders: a session file laid out
// for a format's Inputs to find.
func Put(t testing.TB, path string, data []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// Append appends s to the file at path, making the file if there is none:
// a file that grows while it is read.
func Append(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// Names are the inputs' names, in order.
func Names(ins []adapter.Input) []string {
	var s []string
	for _, in := range ins {
		s = append(s, in.Name)
	}
	return s
}

// Opened is the stream an input opens, read whole; closing it must not fail.
func Opened(t testing.TB, in adapter.Input) []byte {
	t.Helper()
	r, err := in.Open()
	require.NoError(t, err)
	defer func() { require.NoError(t, r.Close()) }()
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return b
}
