package main

// Acceptance tests on the binBuilt binPath: liveness, --tee, signals. The binPath
// is binBuilt once per test run, on first use, and removed at the end.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/testskip"
)

var binBuilt struct {
	once      sync.Once
	dir, path string
	err       error
}

func TestMain(m *testing.M) {
	code := testskip.Main(m) // with a line on tests skipped for want of the shared corpus
	if binBuilt.dir != "" {
		_ = os.RemoveAll(binBuilt.dir)
	}
	os.Exit(code)
}

// binPath returns the path of the command built from this package.
func binPath(t *testing.T) string {
	t.Helper()
	binBuilt.once.Do(func() {
		binBuilt.dir, binBuilt.err = os.MkdirTemp("", "sse-dialog-convert-test-")
		if binBuilt.err != nil {
			return
		}
		binBuilt.path = filepath.Join(binBuilt.dir, name)
		// go test puts its own go first in PATH.
		out, err := exec.Command("go", "build", "-o", binBuilt.path, ".").CombinedOutput()
		if err != nil {
			binBuilt.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, binBuilt.err)
	return binBuilt.path
}

// binPatience bounds every wait for the binPath. It is generous: these tests
// prove an order of events, never a speed.
const binPatience = 30 * time.Second

// binEntry is the part of an entry these tests look at.
type binEntry struct {
	Seq     int             `json:"seq"`
	Type    string          `json:"type"`
	Status  string          `json:"status"`
	ToolID  string          `json:"tool_id"`
	Content string          `json:"content"`
	Result  string          `json:"result"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
	Reason  string          `json:"reason"`
	Data    json.RawMessage `json:"data"`
}

// binEntries returns the complete lines of a dialog file as entries (a
// half-written last line is left for the next poll, as the web UI does).
func binEntries(t *testing.T, path string) []binEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	var es []binEntry
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		var e binEntry
		require.NoError(t, json.Unmarshal(b[:i], &e), "entry %q", b[:i])
		es = append(es, e)
		b = b[i+1:]
	}
	return es
}

// binWaitEntries polls the dialog file until it holds n entries or more.
func binWaitEntries(t *testing.T, path string, n int) []binEntry {
	t.Helper()
	deadline := time.Now().Add(binPatience)
	for {
		es := binEntries(t, path)
		if len(es) >= n {
			return es
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %d entries; the file has %d: %+v", binPatience, n, len(es), es)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// binWaitExit waits for the command, killing it if it outlives binPatience.
func binWaitExit(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(binPatience):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not exit within %v", filepath.Base(cmd.Path), binPatience)
	}
}

// binValidFile checks a dialog file against the contract.
func binValidFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	requireValid(t, b)
	return b
}

// Events of a short run in each format, one line each, with the entry each
// line must put in the file before the next line is written.
var binRuns = map[string][]struct{ line, want string }{
	"claude": {
		{`{"type":"system","subtype":"init","cwd":"/w","session_id":"s","model":"claude-x","tools":[]}`, "init"},
		{`{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Looking."}],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s"}`, "message"},
		{`{"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s"}`, "tool:running"},
		{`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt","is_error":false}]},"parent_tool_use_id":null,"session_id":"s"}`, "tool:success"},
		{`{"type":"assistant","message":{"id":"msg_3","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s"}`, "message"},
		{`{"type":"result","subtype":"success","is_error":false,"duration_ms":10,"num_turns":3,"result":"Done.","session_id":"s","usage":{"input_tokens":3,"output_tokens":3}}`, ""},
	},
	"codex": {
		{`{"type":"thread.started","thread_id":"t1"}`, "init"},
		{`{"type":"turn.started"}`, ""},
		{`{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}`, "tool:running"},
		{`{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"bash -lc ls","aggregated_output":"a.txt\n","exit_code":0,"status":"completed"}}`, "tool:success"},
		{`{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"Done."}}`, "message"},
		{`{"type":"turn.completed","usage":{"input_tokens":3,"cached_input_tokens":0,"output_tokens":3}}`, ""},
	},
}

func binKind(e binEntry) string {
	if e.Type == "tool" || e.Type == "complete" {
		return e.Type + ":" + e.Status
	}
	return e.Type
}

// An entry is in the file after each input line, before the next is written.
func TestLiveEntryBeforeTheNextLine(t *testing.T) {
	bin := binPath(t)
	for format, steps := range binRuns {
		t.Run(format, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "dialog.jsonl")
			cmd := exec.Command(bin, "-o", out, "--task", "live")
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			defer func() { _ = cmd.Process.Kill() }()

			n := 0
			for i, s := range steps {
				_, err := io.WriteString(stdin, s.line+"\n")
				require.NoError(t, err)
				if s.want == "" {
					continue
				}
				n++
				es := binWaitEntries(t, out, n)
				require.Len(t, es, n, "step %d: one entry per line", i)
				assert.Equal(t, s.want, binKind(es[n-1]), "step %d", i)
			}
			// The last event is terminal, but complete waits for the end of
			// input: more events may follow (a resumed run, a background task).
			require.NoError(t, stdin.Close())
			binWaitExit(t, cmd)
			assert.Equal(t, 0, cmd.ProcessState.ExitCode(), "stderr: %s", stderr.String())
			assert.Empty(t, stderr.String())
			b := binValidFile(t, out)
			es := binEntries(t, out)
			require.Len(t, es, n+1, "%s", b)
			assert.Equal(t, "complete:success", binKind(es[n]))
		})
	}
}

// binSlowCopy reads r in small bites with pauses, like a consumer that cannot
// keep up.
func binSlowCopy(dst io.Writer, r io.Reader) error {
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		dst.Write(buf[:n]) //nolint:errcheck // a bytes.Buffer
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// binTeeInput is a valid Claude run with everything --tee must pass on
// unchanged around it: a BOM, CRLF, blank lines, noise, a pretty-printed
// event, 2 MiB of filler (more than a pipe holds), no final newline.
func binTeeInput() []byte {
	var b bytes.Buffer
	b.WriteString("\xef\xbb\xbf")
	for i, s := range binRuns["claude"] {
		b.WriteString(s.line)
		switch i {
		case 0:
			b.WriteString("\r\n\n  \n")
		case 1:
			b.WriteString("\n\x1b[2K\x1b[1Gspinner \xff\x00\n")
			b.WriteString("{\n  \"type\": \"stream_event\",\n  \"event\": {}\n}\n")
			for range 2 << 10 {
				b.WriteString(`{"type":"stream_event","event":{"type":"ping","pad":"` + strings.Repeat("p", 1000) + `"}}` + "\n")
			}
		case len(binRuns["claude"]) - 1:
			// no final newline
		default:
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

// --tee into a reader slower than the input: every byte arrives, in order,
// and the dialog is whole.
func TestTeeIntoASlowReader(t *testing.T) {
	in := binTeeInput()
	out := filepath.Join(t.TempDir(), "dialog.jsonl")
	cmd := exec.Command(binPath(t), "--tee", "-o", out)
	cmd.Stdin = bytes.NewReader(in)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	var tee bytes.Buffer
	require.NoError(t, binSlowCopy(&tee, stdout))
	binWaitExit(t, cmd)
	assert.Equal(t, 0, cmd.ProcessState.ExitCode(), "stderr: %s", stderr.String())
	require.Equal(t, len(in), tee.Len())
	assert.True(t, bytes.Equal(in, tee.Bytes()), "the --tee copy differs from the input")
	binValidFile(t, out)
	es := binEntries(t, out)
	require.NotEmpty(t, es)
	assert.Equal(t, "Done.", es[len(es)-2].Content)
	assert.Equal(t, "complete:success", binKind(es[len(es)-1]))
}

// The reader of --tee goes away early: the conversion goes on to the end of
// the input and the dialog keeps its complete entry.
func TestTeeReaderGoneKeepsTheDialog(t *testing.T) {
	in := binTeeInput()
	out := filepath.Join(t.TempDir(), "dialog.jsonl")
	cmd := exec.Command(binPath(t), "--tee", "-o", out)
	cmd.Stdin = bytes.NewReader(in)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	require.NoError(t, w.Close())
	_, err = io.ReadFull(r, make([]byte, 100))
	require.NoError(t, err)
	require.NoError(t, r.Close()) // later writes to stdout fail with EPIPE
	binWaitExit(t, cmd)
	assert.Equal(t, 0, cmd.ProcessState.ExitCode(), "stderr: %s", stderr.String())
	binValidFile(t, out)
	es := binEntries(t, out)
	require.NotEmpty(t, es)
	assert.Equal(t, "Done.", es[len(es)-2].Content, "lines after the reader left were converted")
	assert.Equal(t, "complete:success", binKind(es[len(es)-1]))
}

// binStartMidRun starts the binary (its stdout to stdout, nil for none) and
// feeds it the start of a Claude run that leaves a tool call open, then
// waits until the call is in the dialog file, whose path it returns.
func binStartMidRun(t *testing.T, stdout io.Writer, args ...string) (*exec.Cmd, io.WriteCloser, string, *bytes.Buffer) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "dialog.jsonl")
	cmd := exec.Command(binPath(t), append([]string{"-o", out}, args...)...)
	cmd.Stdout = stdout
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	for _, s := range binRuns["claude"][:3] {
		_, err := io.WriteString(stdin, s.line+"\n")
		require.NoError(t, err)
	}
	es := binWaitEntries(t, out, 3)
	require.Equal(t, "tool:running", binKind(es[2]))
	return cmd, stdin, out, &stderr
}

// SIGINT, SIGTERM, SIGHUP while reading: open tool calls are closed, the
// dialog ends with complete/timeout naming the signal, exit 128+n.
func TestSignalsEndTheDialogWithTimeout(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(cli.SignalName(sig), func(t *testing.T) {
			cmd, stdin, out, stderr := binStartMidRun(t, nil)
			defer stdin.Close()
			require.NoError(t, cmd.Process.Signal(sig))
			binWaitExit(t, cmd)
			assert.Equal(t, 128+int(sig), cmd.ProcessState.ExitCode(), "stderr: %s", stderr.String())
			assert.Empty(t, stderr.String())
			binValidFile(t, out)
			es := binEntries(t, out)
			require.Len(t, es, 5)
			assert.Equal(t, "tool:error", binKind(es[3]), "the open call is closed")
			assert.Equal(t, "toolu_1", es[3].ToolID)
			assert.Equal(t, "complete:timeout", binKind(es[4]))
			assert.Equal(t, "signal", es[4].Reason)
			assert.Equal(t, "stopped by "+cli.SignalName(sig), es[4].Message)
		})
	}
}

// A signal while the --tee reader has stopped reading (the copy blocks on a
// full pipe) still closes the dialog.
func TestSignalWhileTeeStalls(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close() // open, never read
	cmd, stdin, out, stderr := binStartMidRun(t, w, "--tee")
	require.NoError(t, w.Close())
	// More input than the pipe to the reader holds: the copy blocks.
	go func() {
		filler := strings.Repeat(`{"type":"stream_event","event":{}}`+"\n", 1<<16)
		_, _ = io.WriteString(stdin, filler) // blocks once the converter stops reading
	}()
	binWaitPipeFull(t, r)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	binWaitExit(t, cmd)
	assert.Equal(t, 143, cmd.ProcessState.ExitCode(), "stderr: %s", stderr.String())
	binValidFile(t, out)
	es := binEntries(t, out)
	assert.Equal(t, "complete:timeout", binKind(es[len(es)-1]))
}

// When the dialog itself cannot be written (-o - into a pipe nobody reads),
// the first signal cannot finish it; a second one ends the process.
func TestSecondSignalEndsAStuckRun(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close() // open, never read
	cmd := exec.Command(binPath(t), "-o", "-")
	cmd.Stdout = w
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	require.NoError(t, w.Close())
	go func() {
		bw := bufio.NewWriter(stdin)
		for i := range 1 << 16 {
			fmt.Fprintf(bw, `{"type":"assistant","message":{"id":"m%d","role":"assistant","content":[{"type":"text","text":"entry %d"}]}}`+"\n", i, i)
		}
		_ = bw.Flush() // blocks once the converter is stuck
	}()
	binWaitPipeFull(t, r)
	// The first signal starts a Close that cannot finish; one of the next
	// ends the process (the first few may arrive before it stops relaying).
	exited := make(chan struct{})
	defer close(exited)
	go func() {
		for {
			select {
			case <-exited:
				return
			case <-time.After(100 * time.Millisecond):
				_ = cmd.Process.Signal(syscall.SIGTERM)
			}
		}
	}()
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	binWaitExit(t, cmd)
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	assert.True(t, ws.Signaled(), "ended by the second signal: %v", cmd.ProcessState)
	assert.Equal(t, syscall.SIGTERM, ws.Signal())
}

// binWaitPipeFull waits until the pipe whose read end is r is nearly full, so
// that its writer blocks on the next write (Linux; elsewhere it waits a
// moment, which makes the test weaker but not wrong).
func binWaitPipeFull(t *testing.T, r *os.File) {
	t.Helper()
	if runtime.GOOS != "linux" {
		time.Sleep(500 * time.Millisecond)
		return
	}
	const fionread = 0x541B // bytes waiting in a pipe
	deadline := time.Now().Add(binPatience)
	for {
		var n int32
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, r.Fd(), fionread, uintptr(unsafe.Pointer(&n))); errno != 0 {
			t.Fatalf("FIONREAD: %v", errno)
		}
		if n >= 60<<10 { // of the default 64 KiB
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pipe holds only %d bytes after %v", n, binPatience)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestEarlySignalsLeaveNoEmptyDialog: the signal handlers are in place
// before the dialog file exists, so a signal at any moment of the start
// leaves either no dialog (the process had not created it) or a complete
// one, never an empty or unfinished file. Signals land at spread moments.
func TestEarlySignalsLeaveNoEmptyDialog(t *testing.T) {
	bin := binPath(t)
	dir := t.TempDir()
	created := 0
	for i := range 60 {
		out := filepath.Join(dir, fmt.Sprintf("d%d.jsonl", i))
		cmd := exec.Command(bin, "-o", out)
		stdin, err := cmd.StdinPipe() // held open: the conversion waits for input
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		time.Sleep(time.Duration(i%30) * 100 * time.Microsecond)
		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		binWaitExit(t, cmd)
		stdin.Close()
		if _, err := os.Stat(out); err == nil {
			created++
			b := binValidFile(t, out)
			assert.Contains(t, string(b), `"reason":"signal"`)
			assert.Equal(t, 128+15, cmd.ProcessState.ExitCode())
		}
	}
	t.Logf("%d of 60 runs had created their dialog when the signal came", created)
}
