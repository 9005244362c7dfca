//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A legal input name of 246 bytes converts in a batch: its dialog's name
// (253 bytes) fits, and so does the temporary file's (it was the dialog's
// name and more, over the 255-byte limit).
func TestBatchLongName(t *testing.T) {
	dir := t.TempDir()
	raw := readFile(t, textOnlyRun)
	long := strings.Repeat("a", 240) + ".jsonl"
	require.Len(t, long, 246)
	require.NoError(t, os.WriteFile(filepath.Join(dir, long), raw, 0o644))
	out := filepath.Join(dir, "out")
	code, stderr := batchRun(t, "--out-dir", out, filepath.Join(dir, long))
	require.Equal(t, 0, code, stderr)
	dialogs := readDialogs(t, out)
	require.Contains(t, dialogs, strings.Repeat("a", 240)+".dialog.jsonl")
	assert.Len(t, dialogs, 1, "no temporary file left")
}

// Temporary dialogs that a killed batch left are removed by the next batch
// into the folder, and said so; those of a batch that still runs, and
// other files, are not.
func TestBatchRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	require.NoError(t, os.MkdirAll(out, 0o755))
	gone := exec.Command("true")
	require.NoError(t, gone.Run())
	dead := strconv.Itoa(gone.Process.Pid)
	live := strconv.Itoa(os.Getppid())
	stale := []string{convert.BatchTempPrefix + dead + "-abc.tmp", convert.BatchTempPrefix + dead + "-9z.tmp"}
	kept := []string{convert.BatchTempPrefix + live + "-abc.tmp", convert.BatchTempPrefix + dead + "-abc.txt", ".other-" + dead + "-abc.tmp", "notes.dialog.jsonl"}
	for _, n := range append(append([]string{}, stale...), kept...) {
		require.NoError(t, os.WriteFile(filepath.Join(out, n), []byte("{}\n"), 0o644))
	}
	code, stderr := batchRun(t, "--out-dir", out, textOnlyRun)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "sse-dialog-convert: removed 2 temporary files left in "+out+" by a batch that was killed\n")
	for _, n := range stale {
		assert.NoFileExists(t, filepath.Join(out, n))
	}
	for _, n := range kept {
		assert.FileExists(t, filepath.Join(out, n))
	}
}

// A file that fails leaves no dialog under its final name: one of no known
// format gave an init and an error ending there, which passed for its
// dialog.
func TestBatchFailedFileLeavesNoDialog(t *testing.T) {
	dir := t.TempDir()
	unknown := filepath.Join(dir, "unknown.jsonl")
	require.NoError(t, os.WriteFile(unknown, []byte(`{"kind":"nothing we read"}`+"\n"), 0o644))
	out := filepath.Join(dir, "out")
	code, stderr := batchRun(t, "--out-dir", out, unknown, textOnlyRun)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "no events of a format it reads")
	assert.Contains(t, stderr, "2 files: 1 converted, 1 failed")
	dialogs := readDialogs(t, out)
	assert.NotContains(t, dialogs, "unknown.dialog.jsonl")
	assert.Contains(t, dialogs, "text-only.in.dialog.jsonl")
	assert.Len(t, dialogs, 1)
}
