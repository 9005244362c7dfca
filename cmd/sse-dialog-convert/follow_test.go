package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
)

// followWait is generous: these tests check behaviour, never speed.
const followWait = 20 * time.Second

// followLines are the lines of a small Claude run: init, one message, result.
func followLines(t *testing.T) []string {
	t.Helper()
	raw := readFile(t, textOnlyRun)
	lines := strings.SplitAfter(string(raw), "\n")
	require.Len(t, lines, 4) // three lines and the empty rest
	return lines[:3]
}

// entries returns the complete lines of the dialog at path so far.
func entries(path string) []string {
	b, _ := os.ReadFile(path)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return strings.Split(string(b[:i]), "\n")
	}
	return nil
}

// waitEntries waits until the dialog has n entries and returns them.
func waitEntries(t *testing.T, path string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(followWait)
	for time.Now().Before(deadline) {
		if e := entries(path); len(e) >= n {
			return e
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the dialog did not reach %d entries: %q", n, entries(path))
	return nil
}

// startFollow starts --follow in the background.
func startFollow(t *testing.T, args ...string) *cliRun {
	t.Helper()
	return program{args: append([]string{"--follow", "--clock", "1767225600", "--cwd", "/src"}, args...)}.start(t)
}

func lastEntry(t *testing.T, out string) gjson.Result {
	t.Helper()
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	requireValid(t, b)
	e := entries(out)
	return gjson.Parse(e[len(e)-1])
}

func TestFollowWritesEntriesAsLinesArrive(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "transcript.jsonl"), filepath.Join(dir, "dialog.jsonl")
	lines := followLines(t)
	adaptertest.Append(t, in, lines[0])
	r := startFollow(t, in, "-o", out, "--idle-timeout", "1m")

	e := waitEntries(t, out, 1)
	assert.Equal(t, "init", gjson.Get(e[0], "type").Str)

	// Half a line waits for its newline; then its entry comes at once.
	half := len(lines[1]) / 2
	adaptertest.Append(t, in, lines[1][:half])
	time.Sleep(300 * time.Millisecond)
	assert.Len(t, entries(out), 1, "half a line was converted")
	adaptertest.Append(t, in, lines[1][half:])
	e = waitEntries(t, out, 2)
	assert.Equal(t, "message", gjson.Get(e[1], "type").Str)

	// The final event ends the run without waiting for the idle timeout.
	adaptertest.Append(t, in, lines[2])
	res := r.wait(t)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Empty(t, res.stderr)
	last := lastEntry(t, out)
	assert.Equal(t, "complete", last.Get("type").Str)
	assert.Equal(t, "success", last.Get("status").Str)

	// The same input converted in one go gives the same dialog (the
	// clock pinned, its times are the conversion's either way).
	code, whole, _ := runCLI(t, "", "-o", "-", "--clock", "1767225600", "--cwd", "/src", in)
	require.Equal(t, 0, code)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, whole, string(got))
}

func TestFollowIdleTimeoutEndsIncomplete(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "d.jsonl")
	lines := followLines(t)
	adaptertest.Append(t, in, lines[0]+lines[1]+`{"type":"assistant","cut mid-wri`)
	r := startFollow(t, in, "-o", out, "--idle-timeout", "300ms")
	require.Equal(t, 0, r.wait(t).code)
	assert.Contains(t, r.stderr.String(), in+": no new data for 300ms; the dialog ends here")
	// The cut last line is read at the end, and skipped as broken.
	assert.Contains(t, r.stderr.String(), in+":3: skipped: not valid JSON")
	last := lastEntry(t, out)
	assert.Equal(t, "error", last.Get("status").Str)
	assert.Equal(t, "incomplete", last.Get("reason").Str)
}

func TestFollowWaitsForTheFile(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "later.jsonl"), filepath.Join(dir, "d.jsonl")
	r := startFollow(t, in, "-o", out)
	require.Eventually(t, func() bool { return r.stderr.String() != "" }, followWait, 5*time.Millisecond)
	adaptertest.Append(t, in, strings.Join(followLines(t), ""))
	require.Equal(t, 0, r.wait(t).code, r.stderr.String())
	assert.Equal(t, "sse-dialog-convert: waiting for "+in+" to appear\n", r.stderr.String())
	assert.Equal(t, "success", lastEntry(t, out).Get("status").Str)

	// A file that never comes: an error after the idle timeout.
	r = startFollow(t, filepath.Join(dir, "never.jsonl"), "-o", out, "--idle-timeout", "200ms")
	assert.Equal(t, 1, r.wait(t).code)
	assert.Contains(t, r.stderr.String(), "never.jsonl did not appear within 200ms")
	assert.Equal(t, "incomplete", lastEntry(t, out).Get("reason").Str)
}

func TestFollowStopsWhenTruncated(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "d.jsonl")
	lines := followLines(t)
	adaptertest.Append(t, in, lines[0]+lines[1])
	r := startFollow(t, in, "-o", out, "--idle-timeout", "1m")
	waitEntries(t, out, 2)
	require.NoError(t, os.Truncate(in, 0)) // the writer started over
	require.Equal(t, 0, r.wait(t).code)
	assert.Contains(t, r.stderr.String(), in+" was truncated while followed; the dialog ends here")
	assert.Equal(t, "incomplete", lastEntry(t, out).Get("reason").Str)
}

func TestFollowRefusesGzip(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "t.jsonl.gz"), filepath.Join(dir, "d.jsonl")
	require.NoError(t, os.WriteFile(in, adaptertest.Gzip(t, []byte(strings.Join(followLines(t), ""))), 0o644))
	r := startFollow(t, in, "-o", out)
	assert.Equal(t, 1, r.wait(t).code)
	assert.Contains(t, r.stderr.String(), "cannot follow "+in+": it is gzip-compressed")
}

// The refusal comes before the output is created: a dialog already there
// is left as it was; view --follow refuses alike.
func TestFollowRefusesGzipBeforeTheOutput(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "t.jsonl.gz"), filepath.Join(dir, "d.jsonl")
	require.NoError(t, os.WriteFile(in, adaptertest.Gzip(t, []byte(strings.Join(followLines(t), ""))), 0o644))
	require.NoError(t, os.WriteFile(out, []byte("keep\n"), 0o644))
	r := startFollow(t, in, "-o", out)
	assert.Equal(t, 1, r.wait(t).code)
	kept, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "keep\n", string(kept))

	code, _, stderr := runCLI(t, "", "view", "--follow", in)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "cannot follow "+in+": it is gzip-compressed")
}

// TestFollowSignal stops a follower with SIGTERM: the dialog ends with
// timeout and the exit status is 128+15. It runs in its own process.
func TestFollowSignal(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "d.jsonl")
	lines := followLines(t)
	adaptertest.Append(t, in, lines[0])
	cmd := helperCmd(nil, "--follow", in, "-o", out, "--clock", "0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	waitEntries(t, out, 1)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr.String())
	assert.Equal(t, 128+15, ee.ExitCode())
	last := lastEntry(t, out)
	assert.Equal(t, "timeout", last.Get("status").Str)
	assert.Equal(t, "signal", last.Get("reason").Str)
}
