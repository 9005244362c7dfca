// Package golden compares test output with files under testdata, and
// rewrites them when the tests run with -update.
//
// go test ./... -update passes -update to every test binary, so every
// package with tests imports this one (blank, if it has no goldens).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Check compares got with the file at path, or writes got there with -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run: go test ./... -update")
	assert.Equal(t, string(want), string(got), "output differs from %s; if the change is right, run: go test ./... -update and read the diff", path)
}
