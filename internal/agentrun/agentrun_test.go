//go:build unix

package agentrun

import (
	"bytes"
	"io"
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

	_ "github.com/ssebench/sse-dialog-convert/internal/golden"
)

// safety bounds every wait: a guard against hangs, not a speed expectation.
const safety = 20 * time.Second

func TestParseStat(t *testing.T) {
	tests := []struct {
		in    string
		state byte
		pgid  int
		ok    bool
	}{
		{in: "1234 (sleep) S 1 1230 1230 0 -1 4194304", state: 'S', pgid: 1230, ok: true},
		{in: "99 (a b) c) (d) Z 5 77 77 0", state: 'Z', pgid: 77, ok: true},
		{in: "99 (x) R", ok: false},
		{in: "99 (x) R 1 notanumber", ok: false},
		{in: "garbage", ok: false},
		{in: "", ok: false},
	}
	for _, tt := range tests {
		state, pgid, ok := parseStat([]byte(tt.in))
		assert.Equal(t, tt.ok, ok, tt.in)
		if tt.ok {
			assert.Equal(t, string(tt.state), string(state), tt.in)
			assert.Equal(t, tt.pgid, pgid, tt.in)
		}
	}
}

// TestGroupAlive: a running group is alive; a group whose only member is a
// zombie is not, although kill(-pgid, 0) still succeeds for it.
func TestGroupAlive(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc: GroupAlive falls back to kill(-pgid, 0)")
	}
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = sysProcAttr()
	require.NoError(t, cmd.Start())
	pgid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	assert.True(t, GroupAlive(pgid))

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	// Not waited for yet: the process is a zombie.
	require.Eventually(t, func() bool {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pgid) + "/stat")
		st, _, ok := parseStat(b)
		return err == nil && ok && st == 'Z'
	}, safety, 5*time.Millisecond)
	require.NoError(t, syscall.Kill(-pgid, 0), "kill(-pgid, 0) counts the zombie")
	assert.False(t, GroupAlive(pgid))
	_ = cmd.Wait()
	assert.False(t, GroupAlive(pgid))
}

// TestRunEscapedHolder: a process that left the agent's group (setsid) and
// keeps its output open must not make Run wait for it.
func TestRunEscapedHolder(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid command")
	}
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "escaped")
	script := `echo first; setsid sleep 600 & echo $! > "$1"; echo last`
	var got bytes.Buffer
	done := make(chan Result, 1)
	go func() {
		res, err := Run(Config{
			Argv:  []string{"sh", "-c", script, "sh", pidfile},
			Grace: time.Second,
			Drain: 200 * time.Millisecond,
		}, func(r io.Reader) { _, _ = io.Copy(&got, r) })
		assert.NoError(t, err)
		done <- res
	}()
	var res Result
	select {
	case res = <-done:
	case <-time.After(safety):
		t.Fatal("Run waited for a process outside the group")
	}
	b, err := os.ReadFile(pidfile)
	require.NoError(t, err)
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
		_ = syscall.Kill(pid, syscall.SIGKILL) // ours to clean up: Run leaves other groups alone
	}
	assert.Equal(t, Exited, res.Cause)
	assert.Equal(t, 0, res.Code)
	assert.Equal(t, "first\nlast\n", got.String())
}

// TestRunStdinPipe: a reader that is not a file reaches the agent through a
// pipe that is closed at its end; stderr that is not a file gets a copy.
func TestRunStdinPipe(t *testing.T) {
	var out, errb bytes.Buffer
	res, err := Run(Config{
		Argv:   []string{"sh", "-c", "cat; echo oops >&2; exit 7"},
		Stdin:  strings.NewReader("hello\n"),
		Stderr: &errb,
		Grace:  time.Second,
		Drain:  time.Second,
	}, func(r io.Reader) { _, _ = io.Copy(&out, r) })
	require.NoError(t, err)
	assert.Equal(t, "hello\n", out.String())
	assert.Equal(t, "oops\n", errb.String())
	assert.Equal(t, 7, res.Code)
	assert.Equal(t, Exited, res.Cause)
}

func TestStartError(t *testing.T) {
	tests := []struct {
		argv []string
		code int
	}{
		{argv: []string{"sse-agentrun-no-such-command"}, code: 127},
		{argv: []string{"/nonexistent/dir/agent"}, code: 127},
		{argv: []string{os.DevNull}, code: 126},
	}
	for _, tt := range tests {
		ran := false
		_, err := Run(Config{Argv: tt.argv}, func(io.Reader) { ran = true })
		var se *StartError
		require.ErrorAs(t, err, &se, tt.argv[0])
		assert.Equal(t, tt.code, se.ExitCode(), "%s: %v", tt.argv[0], err)
		assert.True(t, strings.HasPrefix(err.Error(), "cannot start "+tt.argv[0]+": "), err.Error())
		assert.False(t, ran)
	}
}
