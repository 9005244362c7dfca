//go:build unix

package main

// A stop (a signal, or the context run is given, cancelled with the
// signal as its cause) in-process: the dialog ends at once, whatever the
// input is doing.

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStopDoesNotWaitForTheInput: stopped while the input has more to
// give but gives nothing, the conversion closes the open call and ends the
// dialog with timeout/signal at once, exit 128+N, nothing on stderr; it
// does not wait for the read, which never returns here.
func TestStopDoesNotWaitForTheInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d.jsonl")
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, stop := stopWith(syscall.SIGHUP)
	r := program{args: []string{"-o", out}, stdin: pr, ctx: ctx}.start(t)
	for _, s := range binRuns["claude"][:3] {
		_, err := io.WriteString(pw, s.line+"\n")
		require.NoError(t, err)
	}
	es := binWaitEntries(t, out, 3)
	require.Equal(t, "tool:running", binKind(es[2]))
	stop()
	res := r.wait(t)
	assert.Equal(t, 128+int(syscall.SIGHUP), res.code)
	assert.Empty(t, res.stderr)
	binValidFile(t, out)
	es = binEntries(t, out)
	require.Len(t, es, 5)
	assert.Equal(t, "tool:error", binKind(es[3]), "the open call is closed")
	assert.Equal(t, "complete:timeout", binKind(es[4]))
	assert.Equal(t, "signal", es[4].Reason)
	assert.Equal(t, "stopped by SIGHUP", es[4].Message)
}

// TestStopWhileAnInputOpens: a FILE that blocks when opened (a FIFO with
// no writer) is opened before the dialog exists; a stop then ends the
// wait and leaves no dialog.
func TestStopWhileAnInputOpens(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	out := filepath.Join(dir, "d.jsonl")
	ctx, stop := stopWith(syscall.SIGINT)
	r := program{args: []string{fifo, "-o", out}, ctx: ctx}.start(t)
	stop()
	res := r.wait(t)
	assert.Equal(t, 128+int(syscall.SIGINT), res.code)
	assert.Empty(t, res.stderr)
	assert.NoFileExists(t, out)
	// Let the open that still waits end.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	require.NoError(t, err)
	require.NoError(t, w.Close())
}

// TestStopRun: run passes the stop on to the agent's group and waits for
// it; the dialog ends with timeout/signal, exit 128+N, nothing left.
func TestStopRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pid")
	out := filepath.Join(dir, "dialog.jsonl")
	ctx, stop := stopWith(syscall.SIGTERM)
	r := program{args: []string{"run", "-o", out, "--no-transcript", "--grace", "500ms", "--timeout", agentLimit,
		"--", "env", "PIDFILE=" + pidfile, agentFile(t, "sleeper.sh")}, ctx: ctx}.start(t)
	require.Eventually(t, func() bool { _, err := os.Stat(pidfile); return err == nil }, safety, 10*time.Millisecond, "the agent did not start")
	stop()
	res := r.wait(t)
	assert.Equal(t, 128+int(syscall.SIGTERM), res.code, res.stderr)
	es := binEntries(t, out)
	binValidFile(t, out)
	last := es[len(es)-1]
	assert.Equal(t, "complete:timeout", binKind(last))
	assert.Equal(t, "signal", last.Reason)
	requireNoLeftovers(t, pidfile)
}
