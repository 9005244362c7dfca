//go:build unix

package agentrun

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
		res, err := Run(context.Background(), Config{
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
	res, err := Run(context.Background(), Config{
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
		_, err := Run(context.Background(), Config{Argv: tt.argv}, func(io.Reader) { ran = true })
		var se *StartError
		require.ErrorAs(t, err, &se, tt.argv[0])
		assert.Equal(t, tt.code, se.ExitCode(), "%s: %v", tt.argv[0], err)
		assert.True(t, strings.HasPrefix(err.Error(), "cannot start "+tt.argv[0]+": "), err.Error())
		assert.False(t, ran)
	}
}

// lines collects what a consumer read and says when a given line came.
type lines struct {
	mu   sync.Mutex
	b    bytes.Buffer
	want string
	seen chan struct{} // closed once want has been read
}

func newLines(want string) *lines { return &lines{want: want, seen: make(chan struct{})} }

func (l *lines) consume(r io.Reader) {
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		l.mu.Lock()
		l.b.Write(buf[:n])
		if l.want != "" && strings.Contains(l.b.String(), l.want) {
			l.want = ""
			close(l.seen)
		}
		l.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (l *lines) has() bool {
	select {
	case <-l.seen:
		return true
	default:
		return false
	}
}

// signalCause is a stop's cause that names its signal, as cli.Stopped does.
type signalCause struct{ sig os.Signal }

func (c signalCause) Error() string         { return "stopped by " + c.sig.String() }
func (c signalCause) StopSignal() os.Signal { return c.sig }

// TestRunStops: each way a run stops the agent gives its Cause, calls OnStop
// once, and leaves nothing of the group behind.
func TestRunStops(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		script   string // $1 is a file for the shell's pid
		cfg      Config
		signal   os.Signal // the cause of the run's context, done once the agent printed "up"
		stopped  bool      // the context is done with a cause that names no signal
		kill     bool      // Kill is closed right after
		cause    Cause
		killedBy syscall.Signal
	}{
		{name: "timeout", script: `echo $$ > "$1"; echo up; exec sleep 600`,
			cfg: Config{Timeout: 200 * time.Millisecond}, cause: TimedOut, killedBy: syscall.SIGTERM},
		{name: "signal passed on", script: `echo $$ > "$1"; echo up; exec sleep 600`,
			signal: syscall.SIGHUP, cause: Signaled, killedBy: syscall.SIGHUP},
		{name: "a stop that names no signal", script: `echo $$ > "$1"; echo up; exec sleep 600`,
			stopped: true, cause: Signaled, killedBy: syscall.SIGTERM},
		{name: "a second stop kills at once", script: `trap '' TERM; echo $$ > "$1"; echo up; while :; do sleep 1; done`,
			cfg: Config{Grace: time.Hour}, signal: syscall.SIGTERM, kill: true, cause: Signaled, killedBy: syscall.SIGKILL},
		{name: "linger after the final event", script: `echo $$ > "$1"; echo up; echo final; exec sleep 600`,
			cfg: Config{Linger: 200 * time.Millisecond}, cause: Lingered, killedBy: syscall.SIGTERM},
		{name: "SIGKILL after the grace", script: `trap '' TERM; echo $$ > "$1"; echo up; while :; do sleep 1; done`,
			cfg: Config{Timeout: 200 * time.Millisecond}, cause: TimedOut, killedBy: syscall.SIGKILL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pidfile := filepath.Join(t.TempDir(), "pid")
			got := newLines("final")
			ctx, stop := context.WithCancelCause(context.Background())
			defer stop(nil)
			kill := make(chan struct{})
			cfg := tt.cfg
			cfg.Argv = []string{"sh", "-c", tt.script, "sh", pidfile}
			if cfg.Grace == 0 {
				cfg.Grace = 300 * time.Millisecond
			}
			cfg.Drain = time.Second
			cfg.Kill = kill
			cfg.Finished = got.has
			var stops []Cause
			cfg.OnStop = func(c Cause, sig os.Signal) { stops = append(stops, c) }
			done := make(chan Result, 1)
			go func() {
				res, err := Run(ctx, cfg, got.consume)
				assert.NoError(t, err)
				done <- res
			}()
			if tt.signal != nil || tt.stopped {
				require.Eventually(t, func() bool { got.mu.Lock(); defer got.mu.Unlock(); return strings.Contains(got.b.String(), "up\n") }, safety, 5*time.Millisecond)
				if tt.signal != nil {
					stop(signalCause{tt.signal})
				} else {
					stop(errors.New("stopped"))
				}
			}
			if tt.kill {
				close(kill)
			}
			var res Result
			select {
			case res = <-done:
			case <-time.After(safety):
				t.Fatal("Run did not end")
			}
			assert.Equal(t, tt.cause, res.Cause)
			assert.Equal(t, []Cause{tt.cause}, stops, "OnStop once")
			assert.Equal(t, tt.killedBy, res.KilledBy)
			assert.Equal(t, 128+int(tt.killedBy), res.Code)
			switch {
			case tt.signal != nil:
				assert.Equal(t, tt.signal, res.Signal)
			case tt.stopped:
				assert.Equal(t, syscall.SIGTERM, res.Signal)
			}
			assert.False(t, GroupAlive(res.PGID), "the group is gone")
		})
	}
}

// TestRunOnStopBlocked: an OnStop that cannot finish (a dialog write into a
// stalled pipe) does not keep the agent running.
func TestRunOnStopBlocked(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pid")
	release := make(chan struct{})
	var pgid int
	done := make(chan Result, 1)
	go func() {
		res, err := Run(context.Background(), Config{
			Argv:    []string{"sh", "-c", `echo $$ > "$1"; exec sleep 600`, "sh", pidfile},
			Timeout: 100 * time.Millisecond,
			Grace:   time.Second,
			OnStop:  func(Cause, os.Signal) { <-release },
		}, func(r io.Reader) { _, _ = io.Copy(io.Discard, r) })
		assert.NoError(t, err)
		done <- res
	}()
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(pidfile)
		if err == nil {
			pgid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		return err == nil
	}, safety, 5*time.Millisecond)
	require.Eventually(t, func() bool { return !GroupAlive(pgid) }, safety, 10*time.Millisecond,
		"the agent was not stopped while OnStop blocked")
	close(release)
	select {
	case res := <-done:
		assert.Equal(t, TimedOut, res.Cause)
	case <-time.After(safety):
		t.Fatal("Run did not end")
	}
}

// TestRunLeftoverReader: a consumer that returns while a reader of its own
// still reads (as convert.Feed may) does not cost the transcript its order.
func TestRunLeftoverReader(t *testing.T) {
	t.Parallel()
	var transcript bytes.Buffer
	res, err := Run(context.Background(), Config{
		Argv:       []string{"seq", "200000"},
		Transcript: &transcript,
		Grace:      time.Second,
		Drain:      time.Second,
	}, func(r io.Reader) {
		go func() {
			b := make([]byte, 512)
			for {
				if _, err := r.Read(b); err != nil {
					return
				}
			}
		}()
	})
	require.NoError(t, err)
	assert.Equal(t, 0, res.Code)
	want, err := exec.Command("seq", "200000").Output()
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, transcript.Bytes()), "the transcript differs from the output (%d vs %d bytes)", transcript.Len(), len(want))
}
