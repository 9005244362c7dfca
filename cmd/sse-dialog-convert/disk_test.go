package main

// Session folders and files on disk that are hostile: bad entries in a
// folder, torn or overlong lines, prompt files that never end.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
)

// badEntries puts in dir, among the sessions: a dangling symlink, a
// symlink to itself, a FIFO (whose opening would wait for ever) and, one
// folder down, another loop, all named as session files. It returns what
// the report says of each.
func badEntries(t *testing.T, dir string) []string {
	t.Helper()
	require.NoError(t, os.Symlink(filepath.Join(dir, "missing.jsonl"), filepath.Join(dir, "dangling.jsonl")))
	require.NoError(t, os.Symlink("loop.jsonl", filepath.Join(dir, "loop.jsonl")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo.jsonl"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "deeper"), 0o755))
	require.NoError(t, os.Symlink("again.jsonl", filepath.Join(dir, "deeper", "again.jsonl")))
	return []string{
		filepath.Join(dir, "dangling.jsonl") + ": no such file or directory",
		filepath.Join(dir, "loop.jsonl") + ": too many levels of symbolic links",
		filepath.Join(dir, "fifo.jsonl") + ": not a regular file",
		filepath.Join(dir, "deeper", "again.jsonl") + ": too many levels of symbolic links",
	}
}

// TestBadEntryDoesNotFailFolder: a Claude projects folder, a Codex
// sessions folder and a Gemini chats folder each holding bad entries
// convert every session they hold; each bad entry is reported and counted
// as a failed file, and the batch exits 1. (It converted nothing, exit 1,
// at the first bad entry.)
func TestBadEntryDoesNotFailFolder(t *testing.T) {
	t.Setenv("SSE_MODEL_NAME", "")
	t.Setenv("SSE_TASK_ID", "")
	for _, tc := range []struct {
		format string
		cases  map[string]string // file name in the folder -> testdata case
	}{
		{"claude-session", map[string]string{"a.jsonl": "print-mode-2.1", "b.jsonl": "interactive-turns"}},
		{"codex-rollout", map[string]string{"rollout-a.jsonl": "exec-tools", "rollout-b.jsonl": "compaction"}},
		{"gemini-session", map[string]string{"session-a.jsonl": "basic", "session-b.jsonl": "tool-error"}},
	} {
		t.Run(tc.format, func(t *testing.T) {
			dir := t.TempDir()
			for name, c := range tc.cases {
				adaptertest.Put(t, filepath.Join(dir, name), readFile(t, "../../testdata/"+tc.format+"/"+c+".in.jsonl"))
			}
			bad := badEntries(t, dir)
			out := filepath.Join(t.TempDir(), "out")
			code, errOut := batchRun(t, "--out-dir", out, "--clock", "2026-01-02T03:04:05Z", "--cwd", "/work", "--task", "fixture", dir)
			assert.Equal(t, 1, code, errOut)
			for _, b := range bad {
				assert.Contains(t, errOut, b)
			}
			assert.Contains(t, errOut, "6 files: 2 converted, 4 failed;")
			dialogs := readDialogs(t, out)
			assert.Len(t, dialogs, 2)
			for name, c := range tc.cases {
				want := readFile(t, "../../testdata/"+tc.format+"/"+c+".out.jsonl")
				assert.Equal(t, string(want), string(dialogs[strings.TrimSuffix(name, ".jsonl")+".dialog.jsonl"]), name)
			}
		})
	}
}

// TestUnreadableSessionFile: a session file the user may not read is one
// failed file of its folder. Root reads any file whatever its mode, so
// the case cannot be made when the tests run as root.
func TestUnreadableSessionFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: chmod 000 does not stop root from reading a file, so there is no unreadable file to make")
	}
	dir := t.TempDir()
	adaptertest.Put(t, filepath.Join(dir, "a.jsonl"), readFile(t, "../../testdata/claude-session/print-mode-2.1.in.jsonl"))
	locked := filepath.Join(dir, "b.jsonl")
	adaptertest.Put(t, locked, readFile(t, "../../testdata/claude-session/interactive-turns.in.jsonl"))
	require.NoError(t, os.Chmod(locked, 0))
	code, errOut := batchRun(t, "--out-dir", filepath.Join(t.TempDir(), "out"), dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, locked+": permission denied")
	assert.Contains(t, errOut, "2 files: 1 converted, 1 failed;")
}

// TestPromptFileBounded: --prompt-file reads a regular file or a pipe as
// it is, trailing newline kept; /dev/zero is refused before it is read,
// and a file past the limit is refused, not held.
func TestPromptFileBounded(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runCLI(t, claudeRun, "-o", filepath.Join(dir, "d.jsonl"), "--prompt-file", "/dev/zero")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "cannot read --prompt-file: /dev/zero is not a regular file")

	big := filepath.Join(dir, "big.txt")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(inputs.MaxPromptFile+1)) // sparse: no disk written
	require.NoError(t, f.Close())
	code, _, errOut = runCLI(t, claudeRun, "-o", filepath.Join(dir, "d.jsonl"), "--prompt-file", big)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "cannot read --prompt-file: "+big+" is larger than 16 MiB")

	fifo := filepath.Join(dir, "prompt.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, _ = w.WriteString("Fix it.\n\n")
			_ = w.Close()
		}
	}()
	out := filepath.Join(dir, "d.jsonl")
	code, _, errOut = runCLI(t, claudeRun, "-o", out, "--prompt-file", fifo)
	require.Equal(t, 0, code, errOut)
	es := readDialog(t, out)
	assert.Equal(t, "Fix it.\n\n", es[1]["content"], "the prompt as written, newlines kept")
}

// TestLargeSessionFolderMemory: a Claude projects folder of 2,000 small
// sessions converts in under 200 MiB peak memory (the acceptance:
// main took 550 MiB for these, 4.7 GB for 10,000), and peak memory does
// not follow the number of sessions: 2,000 take less than 200 and 30 MiB.
func TestLargeSessionFolderMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and converts 2,200 session files")
	}
	peak := func(n int) int64 {
		dir := t.TempDir()
		for i := range n {
			sid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
			var b strings.Builder
			parent := "null"
			for k := range 6 {
				uuid := fmt.Sprintf("%08d-0000-4000-8000-%012d", k, i)
				typ, msg := "user", `{"role":"user","content":"do thing `+strconv.Itoa(k)+`"}`
				if k%2 == 1 {
					typ, msg = "assistant", `{"id":"msg_`+strconv.Itoa(i)+`_`+strconv.Itoa(k)+`","role":"assistant","model":"claude-x","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":5}}`
				}
				fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"type":"%s","cwd":"/w","sessionId":"%s","message":%s,"uuid":"%s","timestamp":"2025-09-03T00:47:0%d.000Z"}`+"\n", parent, typ, sid, msg, uuid, k)
				parent = `"` + uuid + `"`
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(b.String()), 0o644))
		}
		cmd := exec.Command(binPath(t), dir, "--out-dir", filepath.Join(t.TempDir(), "out"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		binWaitExit(t, func() *exec.Cmd { require.NoError(t, cmd.Start()); return cmd }())
		require.Equal(t, 0, cmd.ProcessState.ExitCode(), stderr.String())
		require.Contains(t, stderr.String(), fmt.Sprintf("%d files: %d converted, 0 failed", n, n))
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		require.True(t, ok)
		return int64(ru.Maxrss) * 1024 // KiB on Linux
	}
	small, large := peak(200), peak(2000)
	t.Logf("peak RSS: 200 sessions %.1f MiB, 2,000 sessions %.1f MiB", float64(small)/(1<<20), float64(large)/(1<<20))
	assert.Less(t, large, int64(200<<20))
	assert.Less(t, large, small+30<<20, "memory follows the number of sessions")
}
