//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/agentrun"
)

// The fake agents are shell scripts in testdata/agents that replay small
// streams written for these tests. Every run gets a --timeout as a safety
// net, so a broken test cannot leave an agent behind.

// safety bounds how long any run may take before the test gives up on it.
// It is a guard against hangs, never an expectation about speed.
const safety = 30 * time.Second

// agentLimit is the --timeout every run gets, below safety so that a run that
// fails to stop its agent still ends, and the test reports it.
const agentLimit = "20s"

func agentFile(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "agents", name))
	require.NoError(t, err)
	return p
}

type runOutcome struct {
	code           int
	stdout, stderr string
	dialog         []byte
	entries        []map[string]any
}

// complete returns the dialog's complete entry.
func (r runOutcome) complete(t *testing.T) map[string]any {
	t.Helper()
	require.NotEmpty(t, r.entries, "no dialog")
	last := r.entries[len(r.entries)-1]
	require.Equal(t, "complete", last["type"], "the last entry is not complete:\n%s", r.dialog)
	return last
}

// runAgent runs `run` in-process with the dialog written to a file in dir
// and returns what it produced. The dialog must pass validation.
func runAgent(t *testing.T, dir string, stdin string, args ...string) runOutcome {
	t.Helper()
	dialogPath := filepath.Join(dir, "dialog.jsonl")
	full := append([]string{"run", "-o", dialogPath, "--clock", "2026-01-02T03:04:05Z"}, args...)
	r := program{args: full, stdin: strings.NewReader(stdin)}.run(t)
	out := runOutcome{code: r.code, stdout: r.stdout, stderr: r.stderr}
	out.dialog, _ = os.ReadFile(dialogPath)
	requireValid(t, out.dialog)
	out.entries = parseEntries(t, out.dialog)
	return out
}

func parseEntries(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var entries []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), "line %q", sc.Text())
		entries = append(entries, e)
	}
	return entries
}

// requireNoLeftovers checks, once run has returned, that nothing is left of
// the process group of a fake agent that wrote its pid (= its group) to
// pidfile. An agent stopped before it got that far left nothing behind.
func requireNoLeftovers(t *testing.T, pidfile string) {
	t.Helper()
	b, err := os.ReadFile(pidfile)
	if errors.Is(err, os.ErrNotExist) {
		t.Logf("the agent was stopped before it wrote %s", pidfile)
		return
	}
	require.NoError(t, err)
	pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	require.False(t, agentrun.GroupAlive(pgid), "processes of group %d are left:\n%s", pgid, psGroup(pgid))
}

func psGroup(pgid int) string {
	out, _ := exec.Command("ps", "-eo", "pid,pgid,stat,args").Output()
	var b strings.Builder
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[1] == strconv.Itoa(pgid) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// TestRunLive: each entry is in the dialog file, and each line in the
// transcript, while the agent waits before printing its next line.
func TestRunLive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	require.NoError(t, syscall.Mkfifo(gate, 0o600))
	stream := agentFile(t, "claude-tool.jsonl")
	raw, err := os.ReadFile(stream)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(raw), "\n")
	lines = lines[:len(lines)-1] // after the final newline

	dialogPath := filepath.Join(dir, "dialog.jsonl")
	transcriptPath := filepath.Join(dir, "transcript.jsonl")
	// After line i is printed, the dialog must hold an entry matching want[i].
	want := []map[string]any{
		{"type": "init"},
		{"type": "message", "content": "Let me list the files."},
		{"type": "tool", "name": "Bash", "status": "running"},
		{"type": "tool", "name": "Bash", "status": "success"},
		{"type": "message", "content": "There are two files."},
		nil, // the result: complete comes once the agent has exited
	}
	require.Len(t, want, len(lines))

	r := program{args: []string{"run", "-o", dialogPath, "--transcript", transcriptPath, "--timeout", agentLimit, "--grace", "1s",
		"--", "env", "GATE=" + gate, agentFile(t, "replay.sh"), stream}}.start(t)
	for i := range lines {
		ok := assert.Eventually(t, func() bool {
			tr, _ := os.ReadFile(transcriptPath)
			if string(tr) != strings.Join(lines[:i+1], "") {
				return false
			}
			if want[i] == nil {
				return true
			}
			d, _ := os.ReadFile(dialogPath)
			for _, e := range parseLoose(d) {
				if matches(e, want[i]) {
					return true
				}
			}
			return false
		}, safety, 5*time.Millisecond, "after line %d the transcript or dialog lacks it", i+1)
		if !ok {
			tr, _ := os.ReadFile(transcriptPath)
			d, _ := os.ReadFile(dialogPath)
			t.Fatalf("transcript:\n%s\ndialog:\n%s\nstderr:\n%s", tr, d, r.stderr.String())
		}
		if i+1 < len(lines) {
			releaseGate(t, gate)
		}
	}
	res := r.wait(t)
	require.Equal(t, 0, res.code, "stderr:\n%s", res.stderr)
	d, err := os.ReadFile(dialogPath)
	require.NoError(t, err)
	requireValid(t, d)
	entries := parseEntries(t, d)
	assert.Equal(t, "success", entries[len(entries)-1]["status"])
	assert.Contains(t, res.stderr, "replay: starting", "the agent's stderr must pass through")
}

// releaseGate lets a fake agent blocked on its GATE fifo print its next line.
func releaseGate(t *testing.T, gate string) {
	t.Helper()
	opened := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(gate, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString("go\n")
			_ = f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		require.NoError(t, err)
	case <-time.After(safety):
		t.Fatal("the agent never read its gate")
	}
}

// parseLoose parses the complete lines of a dialog that is still being written.
func parseLoose(b []byte) []map[string]any {
	var out []map[string]any
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		var e map[string]any
		if bytes.HasSuffix(l, []byte("\n")) && json.Unmarshal(l, &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

func matches(e, want map[string]any) bool {
	for k, v := range want {
		if e[k] != v {
			return false
		}
	}
	return true
}

// TestRunExitCode: the agent's exit code is ours; without its final event
// the dialog ends with error and says the code.
func TestRunExitCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		code    int
		status  string
		reason  string
		message string // a part of complete.message
	}{
		{name: "claude success exit 0", args: []string{agentFile(t, "replay.sh"), agentFile(t, "claude-tool.jsonl"), "0"}, code: 0, status: "success"},
		{name: "codex success exit 0", args: []string{agentFile(t, "replay.sh"), agentFile(t, "codex-basic.jsonl")}, code: 0, status: "success"},
		// The final event decides the dialog; the code still passes through.
		{name: "claude success exit 3", args: []string{agentFile(t, "replay.sh"), agentFile(t, "claude-tool.jsonl"), "3"}, code: 3, status: "success"},
		{name: "no final event exit 3", args: []string{agentFile(t, "replay.sh"), agentFile(t, "claude-no-result.jsonl"), "3"}, code: 3, status: "error", reason: "incomplete", message: "code 3"},
		{name: "no final event exit 0", args: []string{agentFile(t, "replay.sh"), agentFile(t, "claude-no-result.jsonl"), "0"}, code: 0, status: "error", reason: "incomplete", message: "code 0"},
		{name: "killed by SIGKILL", args: []string{agentFile(t, "killed.sh")}, code: 128 + 9, status: "error", reason: "incomplete", message: "SIGKILL"},
		{name: "strict with a broken line", args: []string{"--strict", "--", agentFile(t, "replay.sh"), agentFile(t, "codex-noise.jsonl")}, code: 1, status: "success"},
		{name: "broken line without strict", args: []string{agentFile(t, "replay.sh"), agentFile(t, "codex-noise.jsonl")}, code: 0, status: "success"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := []string{"--no-transcript", "--timeout", agentLimit}
			if tt.args[0] != "--strict" {
				args = append(args, "--")
			}
			r := runAgent(t, dir, "", append(args, tt.args...)...)
			assert.Equal(t, tt.code, r.code, "stderr:\n%s", r.stderr)
			c := r.complete(t)
			assert.Equal(t, tt.status, c["status"])
			if tt.reason != "" {
				assert.Equal(t, tt.reason, c["reason"])
			}
			if tt.message != "" {
				assert.Contains(t, c["message"], tt.message)
			}
		})
	}
}

// TestRunStop: an agent stopped by --timeout or by --linger after its final
// event; either way nothing of its process group is left.
func TestRunStop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		flags  []string
		env    []string // for the agent
		agent  []string
		code   int
		status string
		reason string // "" for none
	}{
		// The code is the agent's, as the signal that ended it makes it.
		{name: "timeout", flags: []string{"--timeout", "1s"}, agent: []string{"sleeper.sh"}, code: 128 + 15, status: "timeout", reason: "timeout"},
		// SIGTERM is ignored: SIGKILL after --grace ends it.
		{name: "timeout, agent ignores SIGTERM", flags: []string{"--timeout", "1s", "--grace", "300ms", "--linger", "0"}, env: []string{"HANG=stubborn"},
			agent: []string{"replay.sh", "claude-no-result.jsonl"}, code: 128 + 9, status: "timeout", reason: "timeout"},
		// The final event decides the dialog and the exit status.
		{name: "linger after success", flags: []string{"--linger", "300ms"}, env: []string{"HANG=yes"},
			agent: []string{"replay.sh", "claude-tool.jsonl"}, code: 0, status: "success"},
		{name: "linger, agent ignores SIGTERM", flags: []string{"--linger", "300ms", "--grace", "300ms"}, env: []string{"HANG=stubborn"},
			agent: []string{"replay.sh", "codex-basic.jsonl"}, code: 0, status: "success"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pidfile := filepath.Join(dir, "pid")
			args := append([]string{"--grace", "1s", "--no-transcript", "--timeout", agentLimit}, tt.flags...)
			args = append(append(append(args, "--", "env", "PIDFILE="+pidfile), tt.env...), agentFile(t, tt.agent[0]))
			for _, a := range tt.agent[1:] {
				args = append(args, agentFile(t, a))
			}
			r := runAgent(t, dir, "", args...)
			assert.Equal(t, tt.code, r.code, "stderr:\n%s", r.stderr)
			c := r.complete(t)
			assert.Equal(t, tt.status, c["status"])
			if tt.reason != "" {
				assert.Equal(t, tt.reason, c["reason"])
			} else {
				assert.Nil(t, c["reason"])
			}
			requireNoLeftovers(t, pidfile)
		})
	}
}

// TestRunLeftovers: an agent that exits leaving a child that holds its
// output open does not make us wait for the child, which is stopped too.
func TestRunLeftovers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pid")
	r := runAgent(t, dir, "", "--no-transcript", "--timeout", agentLimit, "--",
		"env", "PIDFILE="+pidfile, agentFile(t, "leave-child.sh"), agentFile(t, "codex-basic.jsonl"))
	assert.Equal(t, 0, r.code, "stderr:\n%s", r.stderr)
	assert.Equal(t, "success", r.complete(t)["status"])
	requireNoLeftovers(t, pidfile)
}

// TestRunTranscript: the transcript and --tee hold the agent's output byte
// for byte, whatever it is; the agent's stderr passes through.
func TestRunTranscript(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var in bytes.Buffer
	codex, err := os.ReadFile(agentFile(t, "codex-basic.jsonl"))
	require.NoError(t, err)
	in.WriteString("\xef\xbb\xbf")                                  // a BOM
	in.Write(bytes.ReplaceAll(codex, []byte("\n"), []byte("\r\n"))) // CRLF
	in.WriteString("\x1b[31mnot JSON\x1b[0m \xff\xfe invalid UTF-8\n\n")
	in.WriteString(strings.Repeat("x", 300<<10) + "\n") // longer than a pipe's buffer
	in.WriteString(`{"type":"item.completed","item":{"id":"i9","type":"agent_message","text":"no final newline"}}`)
	src := filepath.Join(dir, "stream.bin")
	require.NoError(t, os.WriteFile(src, in.Bytes(), 0o600))

	transcript := filepath.Join(dir, "sub", "transcript.jsonl") // the folder is created
	r := runAgent(t, dir, "", "--tee", "--transcript", transcript, "--timeout", agentLimit, "--", agentFile(t, "cat.sh"), src)
	assert.Equal(t, 0, r.code, "stderr:\n%s", r.stderr)
	got, err := os.ReadFile(transcript)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(in.Bytes(), got), "the transcript differs from the agent's output (%d vs %d bytes)", len(got), in.Len())
	assert.True(t, bytes.Equal(in.Bytes(), []byte(r.stdout)), "--tee differs from the agent's output")
	assert.Contains(t, r.stderr, "cat.sh: agent stderr line\n")
	assert.Equal(t, "success", r.complete(t)["status"])
}

// TestRunStdin: the agent reads our stdin, --stdin-file, or with
// --prompt-stdin the prompt, which also fills the dialog's prompt.
func TestRunStdin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "input.txt")
	require.NoError(t, os.WriteFile(file, []byte("from a file\n"), 0o600))
	promptFile := filepath.Join(dir, "prompt.md")
	require.NoError(t, os.WriteFile(promptFile, []byte("Fix the bug.\nThen test.\n"), 0o600))
	tests := []struct {
		name   string
		stdin  string
		args   []string
		want   string // what the agent read
		prompt any    // the dialog's prompt entry content, nil for none
	}{
		{name: "our stdin", stdin: "from our stdin", want: "from our stdin"},
		{name: "stdin file", stdin: "not this", args: []string{"--stdin-file", file}, want: "from a file\n"},
		{name: "prompt only fills the dialog", stdin: "ours", args: []string{"--prompt", "List the files."}, want: "ours", prompt: "List the files."},
		{name: "prompt to stdin", stdin: "not this", args: []string{"--prompt", "List the files.", "--prompt-stdin"}, want: "List the files.", prompt: "List the files."},
		{name: "prompt file to stdin", args: []string{"--prompt-file", promptFile, "--prompt-stdin"}, want: "Fix the bug.\nThen test.\n", prompt: "Fix the bug.\nThen test.\n"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sub := filepath.Join(dir, strconv.Itoa(i))
			require.NoError(t, os.Mkdir(sub, 0o700))
			copyPath := filepath.Join(sub, "stdin-copy")
			args := append(append([]string{"--no-transcript", "--timeout", agentLimit}, tt.args...),
				"--", "env", "STDIN_COPY="+copyPath, agentFile(t, "replay.sh"), agentFile(t, "codex-basic.jsonl"))
			r := runAgent(t, sub, tt.stdin, args...)
			require.Equal(t, 0, r.code, "stderr:\n%s", r.stderr)
			got, err := os.ReadFile(copyPath)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			var prompt any
			for _, e := range r.entries {
				if e["type"] == "prompt" {
					prompt = e["content"]
				}
			}
			assert.Equal(t, tt.prompt, prompt)
		})
	}
}

// TestRunCannotStart: one clear line, a valid dialog with status error, and
// the exit status a shell gives.
func TestRunCannotStart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, cmd string
		code      int
	}{
		{name: "not in PATH", cmd: "sse-no-such-agent", code: 127},
		{name: "no such file", cmd: "/nonexistent/sse-agent", code: 127},
		{name: "not executable", cmd: agentFile(t, "codex-basic.jsonl"), code: 126},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			transcript := filepath.Join(dir, "transcript.jsonl")
			r := runAgent(t, dir, "", "--transcript", transcript, "--", tt.cmd, "--json")
			assert.Equal(t, tt.code, r.code)
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "want one line, got:\n%s", r.stderr)
			assert.True(t, strings.HasPrefix(r.stderr, name+": cannot start "+tt.cmd+": "), r.stderr)
			c := r.complete(t)
			assert.Equal(t, "error", c["status"])
			assert.Equal(t, "not_started", c["reason"])
			assert.Contains(t, c["message"], tt.cmd)
			got, err := os.ReadFile(transcript)
			require.NoError(t, err)
			assert.Empty(t, got)
		})
	}
}

// TestRunModelFromCommandLine: when the stream names no model, init has
// the one the agent's command line asks for, read by the format whose
// command it is; the stream's own, --model and $SSE_MODEL_NAME come
// first; an unknown command gives none.
func TestRunModelFromCommandLine(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SSE_MODEL_NAME", "")
	// Fake agents under the real agents' names: each prints a stream.
	agent := func(name, stream string) string {
		p := filepath.Join(dir, "bin", name)
		adaptertest.Put(t, p, []byte("#!/bin/sh\ncat '"+agentFile(t, stream)+"'\n"))
		require.NoError(t, os.Chmod(p, 0o755))
		return p
	}
	codex := agent("codex", "codex-basic.jsonl") // names no model
	gemini := filepath.Join(dir, "bin", "gemini")
	adaptertest.Put(t, gemini, []byte("#!/bin/sh\nprintf '%s' '"+geminiLines+"'\n"))
	require.NoError(t, os.Chmod(gemini, 0o755))
	other := agent("my-agent", "codex-basic.jsonl")
	tests := []struct {
		args []string
		env  string
		want string
	}{
		{args: []string{"--", codex, "exec", "--json", "-m", "o3-from-args", "fix it"}, want: "o3-from-args"},
		{args: []string{"--", codex, "exec", "--json", "-c", `model="o4-mini"`, "fix it"}, want: "o4-mini"},
		{args: []string{"--model", "flag-model", "--", codex, "exec", "-m", "o3-from-args"}, want: "flag-model"},
		{args: []string{"--", codex, "exec", "-m", "o3-from-args"}, env: "env-model", want: "env-model"},
		{args: []string{"--", gemini, "-m", "gemini-from-args", "-p", "x"}, want: "gemini-2.5-pro"}, // the stream's
		{args: []string{"--", other, "-m", "o3-from-args"}, want: "unknown"},
		{args: []string{"--", codex, "exec", "--json"}, want: "unknown"},
	}
	for _, tt := range tests {
		t.Setenv("SSE_MODEL_NAME", tt.env)
		r := runAgent(t, dir, "", append([]string{"--no-transcript", "--timeout", agentLimit}, tt.args...)...)
		require.Equal(t, 0, r.code, "%v: %s", tt.args, r.stderr)
		assert.Equal(t, tt.want, r.entries[0]["data"].(map[string]any)["model"], "%v", tt.args)
	}
}

// TestRunEnvironment: $SSE_ARCHIVE places the dialog and the transcript;
// $TIMEOUT (seconds) is the default --timeout, and --timeout overrides it.
// (Not parallel: it sets the environment.)
func TestRunEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SSE_ARCHIVE", dir)
	stream := agentFile(t, "codex-basic.jsonl")
	code, _, stderr := runCLI(t, "", "run", "--", agentFile(t, "replay.sh"), stream)
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	d, err := os.ReadFile(filepath.Join(dir, "dialog.jsonl"))
	require.NoError(t, err)
	requireValid(t, d)
	tr, err := os.ReadFile(filepath.Join(dir, "transcript.jsonl"))
	require.NoError(t, err)
	want, err := os.ReadFile(stream)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(tr))

	// $TIMEOUT stops an agent that would run for ever; the dialog says so.
	t.Setenv("TIMEOUT", "1")
	pidfile := filepath.Join(dir, "pid")
	r := runAgent(t, dir, "", "--grace", "1s", "--no-transcript", "--", "env", "PIDFILE="+pidfile, agentFile(t, "sleeper.sh"))
	assert.Equal(t, 128+15, r.code, "the agent's code: SIGTERM ended it; stderr:\n%s", r.stderr)
	c := r.complete(t)
	assert.Equal(t, "timeout", c["status"])
	assert.Equal(t, "stopped at the time limit of 1s", c["message"])
	requireNoLeftovers(t, pidfile)

	// --timeout wins over $TIMEOUT, 0 included: this run is not stopped.
	r = runAgent(t, dir, "", "--timeout", "0", "--no-transcript", "--", agentFile(t, "replay.sh"), stream)
	assert.Equal(t, 0, r.code, "stderr:\n%s", r.stderr)
	assert.Equal(t, "success", r.complete(t)["status"])

	t.Setenv("TIMEOUT", "soon")
	code, _, stderr = runCLI(t, "", "run", "--", "true")
	assert.Equal(t, 1, code, "the environment is wrong, not the command line")
	assert.Contains(t, stderr, `TIMEOUT="soon" is not a number of seconds`)
}

// TestRunSignal: a signal sent to us is passed on to the agent's group; the
// dialog ends with timeout/signal and we exit 128+N. It needs the binary:
// the test process cannot signal itself safely.
func TestRunSignal(t *testing.T) {
	t.Parallel()
	bin := binPath(t)
	tests := []struct {
		sig  syscall.Signal
		code int
	}{
		{sig: syscall.SIGTERM, code: 128 + 15},
		// sh runs background jobs with SIGINT ignored: SIGKILL after --grace ends them.
		{sig: syscall.SIGINT, code: 128 + 2},
		{sig: syscall.SIGHUP, code: 128 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pidfile := filepath.Join(dir, "pid")
			dialogPath := filepath.Join(dir, "dialog.jsonl")
			cmd := exec.Command(bin, "run", "-o", dialogPath, "--no-transcript", "--grace", "500ms", "--timeout", agentLimit,
				"--", "env", "PIDFILE="+pidfile, agentFile(t, "sleeper.sh"))
			var stderr syncBuffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			// Wait for the agent to be up, or for run to end early (a failure).
			for deadline := time.Now().Add(safety); ; time.Sleep(10 * time.Millisecond) {
				if _, err := os.Stat(pidfile); err == nil {
					break
				}
				select {
				case <-waited:
					t.Fatalf("run ended before the signal; stderr:\n%s", stderr.String())
				default:
				}
				require.True(t, time.Now().Before(deadline), "the agent did not start")
			}
			require.NoError(t, cmd.Process.Signal(tt.sig))
			select {
			case <-waited:
			case <-time.After(safety):
				_ = cmd.Process.Kill()
				t.Fatal("run did not end after the signal")
			}
			assert.Equal(t, tt.code, cmd.ProcessState.ExitCode(), "stderr:\n%s", stderr.String())
			d, err := os.ReadFile(dialogPath)
			require.NoError(t, err)
			requireValid(t, d)
			entries := parseEntries(t, d)
			c := entries[len(entries)-1]
			assert.Equal(t, "timeout", c["status"])
			assert.Equal(t, "signal", c["reason"])
			requireNoLeftovers(t, pidfile)
		})
	}
}

// The transcript and the dialog that are one file only once created —
// through a dangling symlink, or a symlinked folder — are refused when
// open, before a byte is written: the dialog ends the run as not started,
// the transcript is not written, the exit is 2.
func TestRunTranscriptIsTheDialogOnceOpen(t *testing.T) {
	for _, how := range []string{"dangling symlink", "symlinked folder"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			var transcript string
			switch how {
			case "dangling symlink":
				transcript = filepath.Join(dir, "transcript.jsonl")
				require.NoError(t, os.Symlink(filepath.Join(dir, "dialog.jsonl"), transcript))
			case "symlinked folder":
				require.NoError(t, os.Symlink(dir, filepath.Join(dir, "same")))
				transcript = filepath.Join(dir, "same", "dialog.jsonl")
			}
			r := runAgent(t, dir, "", "--transcript", transcript, "--timeout", agentLimit, "--", agentFile(t, "cat.sh"), agentFile(t, "codex-basic.jsonl"))
			assert.Equal(t, 2, r.code, r.stderr)
			assert.Contains(t, r.stderr, "refusing to write the transcript to "+transcript+": it is the same file as the dialog "+filepath.Join(dir, "dialog.jsonl"))
			end := r.complete(t)
			assert.Equal(t, "error", end["status"])
			assert.Equal(t, "not_started", end["reason"])
			assert.NotContains(t, string(r.dialog), "thread.started", "no byte of the agent's output is in the dialog")
		})
	}
}
