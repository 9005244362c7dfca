package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FILEs of different agents given together are refused (cases of
// TestCLI); with --out-dir each is a dialog of its own.
func TestFilesOfDifferentFormatsInABatch(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	require.NoError(t, os.WriteFile(a, []byte(claudeRun), 0o644))
	outDir := filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(b, []byte(codexLines), 0o644))
	code, _, stderr := runCLI(t, "", a, b, "--out-dir", outDir)
	assert.Equal(t, 0, code, stderr)
	assert.Len(t, readDialogs(t, outDir), 2)
}
