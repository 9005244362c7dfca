package main

import (
	"bytes"
	"context"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// program is one run of the command in-process: the one way these tests run
// it. Tests that need a process of its own (a real signal, peak memory,
// the environment a process reads once) run the binary (binPath) or the
// test binary as the program (helperCmd).
type program struct {
	args   []string
	stdin  io.Reader         // nil: no input
	stdout io.Writer         // nil: kept, in the result
	stderr io.Writer         // nil: kept, in the result
	env    map[string]string // set for the run with t.Setenv: never in a parallel test
	// ctx, cancelled with a *cli.Stopped as its cause, stops the run as that
	// signal would.
	ctx context.Context
}

type cliResult struct {
	code           int
	stdout, stderr string
}

// cliPatience bounds every run: a guard against a hang, never a measure.
const cliPatience = 60 * time.Second

// textOnlyRun is a small Claude run (init, one message, result): the
// input of the tests that need any good one.
const textOnlyRun = "../../testdata/claude/text-only.in.jsonl"

// runCLI runs the command with stdin and args.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	r := program{args: args, stdin: strings.NewReader(stdin)}.run(t)
	return r.code, r.stdout, r.stderr
}

// run runs the command and waits for it.
func (c program) run(t *testing.T) cliResult {
	t.Helper()
	return c.start(t).wait(t)
}

// cliRun is a run under way.
type cliRun struct {
	done           chan int
	stdout, stderr syncBuffer
	res            *cliResult
}

// start runs the command in the background.
func (c program) start(t *testing.T) *cliRun {
	t.Helper()
	for k, v := range c.env {
		t.Setenv(k, v)
	}
	r := &cliRun{done: make(chan int, 1)}
	stdin, stdout, stderr, ctx := c.stdin, c.stdout, c.stderr, c.ctx
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	if stdout == nil {
		stdout = &r.stdout
	}
	if stderr == nil {
		stderr = &r.stderr
	}
	if ctx == nil {
		ctx = context.Background()
	}
	go func() { r.done <- runProgram(ctx, c.args, cli.NewStreams(stdin, stdout, stderr)) }()
	return r
}

// wait waits for the run to end.
func (r *cliRun) wait(t *testing.T) cliResult {
	t.Helper()
	if r.res != nil {
		return *r.res
	}
	select {
	case code := <-r.done:
		r.res = &cliResult{code: code, stdout: r.stdout.String(), stderr: r.stderr.String()}
		return *r.res
	case <-time.After(cliPatience):
		t.Fatalf("the command did not end within %v; stderr so far:\n%s", cliPatience, r.stderr.String())
		return cliResult{}
	}
}

// stopWith returns a context and the function that stops a run given it
// as sig would.
func stopWith(sig os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	return ctx, func() { cancel(&cli.Stopped{Signal: sig}) }
}

// TestHelperProcess is the program itself when a test runs it as a separate
// process (for environment such as TZ that a process reads once, and real
// signals).
func TestHelperProcess(t *testing.T) {
	if os.Getenv("SSE_DIALOG_CONVERT_HELPER") != "1" {
		return
	}
	args := os.Args
	for len(args) > 0 && args[0] != "--" {
		args = args[1:]
	}
	os.Exit(runProgram(context.Background(), args[1:], cli.System()))
}

// helperCmd returns a command running the program with args in a separate process.
func helperCmd(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHelperProcess$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), append([]string{"SSE_DIALOG_CONVERT_HELPER=1"}, env...)...)
	return cmd
}

// syncBuffer is a bytes.Buffer that a run in progress writes (its stderr,
// the agent's stderr copy) while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
