package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openPTY returns both ends of a new pseudo-terminal: what is written to
// the terminal end is read from the control end.
func openPTY(t *testing.T) (control, term *os.File) {
	t.Helper()
	control, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { control.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, control.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, control.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("ptsname: %v", e)
	}
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { term.Close() })
	return control, term
}

// readPTY reads what was written to the terminal end so far.
func readPTY(t *testing.T, control, term *os.File) string {
	t.Helper()
	// A line written to the terminal end, then read, marks the end: the
	// control end has no EOF while the terminal end is open.
	_, err := term.WriteString("--end--\n")
	require.NoError(t, err)
	var got bytes.Buffer
	buf := make([]byte, 4096)
	// The terminal's own line endings are \r\n; the marker's may come in a
	// read of its own.
	s := ""
	for !strings.HasSuffix(s, "--end--\n") {
		n, err := control.Read(buf)
		require.NoError(t, err)
		got.Write(buf[:n])
		s = strings.ReplaceAll(got.String(), "\r\n", "\n")
	}
	return strings.TrimSuffix(s, "--end--\n")
}

func TestIsTerminal(t *testing.T) {
	_, term := openPTY(t)
	assert.True(t, cli.IsTerminal(term))
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	assert.False(t, cli.IsTerminal(null), "/dev/null is a character device, not a terminal")
	assert.False(t, cli.IsTerminal(new(bytes.Buffer)))
}

// TestTerminalLines: with stderr a terminal, a finished conversion says in
// one line where the dialog went, how many entries it has and how it
// ended; with no FILE and standard input a terminal, one line says that
// events are awaited there. Neither is said to a file or a pipe.
func TestTerminalLines(t *testing.T) {
	control, term := openPTY(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "t.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(claudeRun), 0o644))
	out := filepath.Join(dir, "d.jsonl")

	require.Equal(t, 0, program{args: []string{in, "-o", out}, stderr: term}.run(t).code)
	assert.Equal(t, name+": 3 entries written to "+out+" (success)\n", readPTY(t, control, term))

	r := program{args: []string{in, "-o", out}}.run(t)
	require.Equal(t, 0, r.code)
	assert.Empty(t, r.stderr, "silent when stderr is no terminal")

	// Standard input a terminal: end of input is typed as Ctrl-D.
	_, err := control.Write([]byte("\x04"))
	require.NoError(t, err)
	r = program{args: []string{"-o", out}, stdin: term}.run(t)
	require.Equal(t, 0, r.code)
	assert.Equal(t, name+": reading agent events from standard input (a terminal); Ctrl-D ends them\n", r.stderr)
	es := readDialog(t, out)
	assert.Equal(t, "incomplete", es[len(es)-1]["reason"])
}
