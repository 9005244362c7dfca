//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBatchSignal stops a batch with SIGINT while one input blocks (a FIFO
// nobody writes): the files done keep their dialogs, the summary says what
// happened, no temporary file is left, and the exit status is 128+2.
func TestBatchSignal(t *testing.T) {
	dir := t.TempDir()
	good, err := filepath.Abs(textOnlyRun)
	require.NoError(t, err)
	fifo := filepath.Join(dir, "blocked.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	out := filepath.Join(dir, "out")

	cmd := helperCmd(nil, "--out-dir", out, "--jobs", "2", "--clock", "0", good, fifo)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(followWait)
	for {
		if _, err := os.Stat(filepath.Join(out, "text-only.in.dialog.jsonl")); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the good file was not converted")
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr.String())
	assert.Equal(t, 128+2, ee.ExitCode())
	golden, err := os.ReadFile("../../testdata/claude/text-only.out.jsonl")
	require.NoError(t, err)
	want := fmt.Sprintf("2 files: 1 converted, 0 failed, 1 interrupted, 0 not started; %d entries, 0 input lines skipped; stopped by SIGINT\n", bytes.Count(golden, []byte("\n")))
	assert.True(t, strings.HasSuffix(stderr.String(), want), stderr.String())
	ents, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, ents, 1, "only the good file's dialog")
	b, err := os.ReadFile(filepath.Join(out, ents[0].Name()))
	require.NoError(t, err)
	requireValid(t, b)
}

// TestBatchSignalMidFile: a file whose conversion a stop cuts short
// leaves no dialog, not even one that says "stopped": its temporary file
// is removed and it counts as interrupted, never as converted. The stop
// does not wait for the read that blocks.
func TestBatchSignalMidFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "live.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	out := filepath.Join(dir, "out")
	lines := readFile(t, textOnlyRun)
	first, _, _ := bytes.Cut(lines, []byte("\n"))

	ctx, stop := stopWith(syscall.SIGTERM)
	r := program{args: []string{"--out-dir", out, "--clock", "0", fifo}, ctx: ctx}.start(t)
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // waits for the batch to open it
	require.NoError(t, err)
	defer w.Close()
	_, err = w.Write(append(first, '\n'))
	require.NoError(t, err)
	deadline := time.Now().Add(followWait)
	for {
		if ents, _ := os.ReadDir(out); len(ents) > 0 {
			break // the dialog is being written, to its temporary file
		}
		require.True(t, time.Now().Before(deadline), "the conversion did not begin")
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	res := r.wait(t) // the FIFO is still open: the read it waits in never ends

	assert.Equal(t, 128+15, res.code)
	assert.Equal(t, name+": 1 file: 0 converted, 0 failed, 1 interrupted, 0 not started; 0 entries, 0 input lines skipped; stopped by SIGTERM\n", res.stderr)
	ents, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Empty(t, ents, "no dialog, no temporary file")
}
