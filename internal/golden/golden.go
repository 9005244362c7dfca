// Package golden compares test output with files under testdata, and
// rewrites them when the tests run with -update.
//
// Only test binaries that link this package know -update: `make golden`
// passes it to those alone (go test ./... -update would stop at the first
// package without it).
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
	require.NoError(t, err, "missing golden file; write it with: %s", UpdateCommand())
	assert.Equal(t, string(want), string(got), "output differs from %s; if the change is right, run: %s, and read the diff", path, UpdateCommand())
}

// UpdateCommand is the command that rewrites the goldens of the package
// under test, run from the module's root: go test runs a package's tests
// in its folder, so the folder's path below go.mod names the package.
func UpdateCommand() string {
	wd, err := os.Getwd()
	if err != nil {
		return "make golden"
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil {
				return "make golden"
			}
			return "make golden (or: go test ./" + filepath.ToSlash(rel) + " -update)"
		}
		if filepath.Dir(dir) == dir {
			return "make golden"
		}
	}
}
