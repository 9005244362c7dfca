package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/command"
)

// afterInit drops the session block, which says what the conversion was
// told (task, cwd), not what the run did.
func afterInit(s string) string {
	_, rest, _ := strings.Cut(s, "\n\n")
	return rest
}

// TestViewConvertsOnTheFly: a transcript is shown as its dialog is.
func TestViewConvertsOnTheFly(t *testing.T) {
	// Codex streams have no timestamps: their duration is the clock's, so
	// the clock is pinned as the goldens' was.
	t.Setenv("SOURCE_DATE_EPOCH", "1767323045")
	for _, c := range []string{"claude/subagent-agent", "codex/file-change", "claude/tool-result-shapes"} {
		code, fromDialog, errOut := runCLI(t, "", "view", "../../testdata/"+c+".out.jsonl")
		require.Equal(t, 0, code, errOut)
		code, fromInput, errOut := runCLI(t, "", "view", "../../testdata/"+c+".in.jsonl")
		require.Equal(t, 0, code, errOut)
		require.Equal(t, afterInit(fromDialog), afterInit(fromInput), c)
		require.Contains(t, fromInput, "■ success")
	}
	raw, err := os.ReadFile("../../testdata/view/showcase.dialog.jsonl")
	require.NoError(t, err)
	code, fromStdin, _ := runCLI(t, string(raw), "view")
	require.Equal(t, 0, code)
	require.Contains(t, fromStdin, "✗ Bash(make test)")
}

func TestViewColourAndWidth(t *testing.T) {
	const f = "../../testdata/view/showcase.dialog.jsonl"
	t.Setenv("NO_COLOR", "")
	_, plain, _ := runCLI(t, "", "view", f)
	assert.NotContains(t, plain, "\x1b", "not a terminal: no colour")
	for _, l := range strings.Split(plain, "\n") {
		assert.LessOrEqual(t, ansi.StringWidth(l), 80, "80 columns when not a terminal: %q", l)
	}
	_, colored, _ := runCLI(t, "", "view", "--color", "always", f)
	assert.Contains(t, colored, "\x1b[")
	t.Setenv("NO_COLOR", "1")
	_, noColor, _ := runCLI(t, "", "view", "--color", "always", f)
	assert.Equal(t, plain, noColor, "NO_COLOR wins")
	_, narrow, _ := runCLI(t, "", "view", "--width", "50", f)
	for _, l := range strings.Split(narrow, "\n") {
		assert.LessOrEqual(t, ansi.StringWidth(l), 50, "%q", l)
	}
	_, full, _ := runCLI(t, "", "view", "--full", f)
	assert.Contains(t, full, "   148    }")
	assert.NotContains(t, plain, "   148    }")
}

// TestViewFollow draws a dialog and a transcript while they are written,
// and stops at their ends.
func TestViewFollow(t *testing.T) {
	for _, src := range []string{"../../testdata/view/showcase.dialog.jsonl", "../../testdata/claude/subagent-agent.in.jsonl"} {
		raw, err := os.ReadFile(src)
		require.NoError(t, err)
		path := filepath.Join(t.TempDir(), "growing.jsonl")
		lines := bytes.SplitAfter(raw, []byte("\n"))
		go func() {
			f, err := os.Create(path)
			if err != nil {
				return
			}
			defer f.Close()
			for _, l := range lines {
				_, _ = f.Write(l)
				time.Sleep(20 * time.Millisecond)
			}
		}()
		// No idle timeout: it stops at the end, or the run's guard fails it.
		code, out, errOut := runCLI(t, "", "view", "--follow", "--idle-timeout", "0", path)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "■ success", src)
		assert.Contains(t, out, "done", src)
	}
}

// TestViewReadsWhatTheConverterReads: view converts compressed inputs
// and session folders as the root command does.
func TestViewReadsWhatTheConverterReads(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "0")
	dir := t.TempDir()
	plainFile := textOnlyRun
	raw := readFile(t, plainFile)
	code, plain, errOut := runCLI(t, "", "view", "--no-pager", plainFile)
	require.Equal(t, 0, code, errOut)
	for name, data := range map[string][]byte{"t.jsonl.gz": adaptertest.Gzip(t, raw), "t.jsonl.zst": adaptertest.Zstd(t, raw)} {
		adaptertest.Put(t, filepath.Join(dir, name), data)
		code, got, errOut := runCLI(t, "", "view", "--no-pager", filepath.Join(dir, name))
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, plain, got, name)
	}

	// A Claude project: its session, subagents from their own files.
	project := filepath.Join(dir, "project")
	claudeProject(t, project)
	code, out, errOut := runCLI(t, "", "view", "--no-pager", project)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Still 3 files.", "a subagent's message, from its file")
}

// chanWriter passes on each write as it comes.
type chanWriter chan string

func (w chanWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// TestViewDrawsAsItReads: view writes the first entries of a dialog on
// standard input while the rest has not been written.
func TestViewDrawsAsItReads(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/view/showcase.dialog.jsonl")
	require.NoError(t, err)
	// init, prompt, thinking written: the rest waits
	seen := viewDrawsBeforeTheRest(t, bytes.SplitAfter(raw, []byte("\n")), 3, "✱ thinking")
	assert.Contains(t, seen, "■ success")
}

// TestViewDrawsAnUntimedStreamAsItReads: a transcript on standard input
// whose lines carry no time (Claude Code's stream-json of old) is live:
// its entries are drawn as they come, not held for a time that a later
// line might give.
func TestViewDrawsAnUntimedStreamAsItReads(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"type":"system","subtype":"init","session_id":"s1","model":"claude-test","tools":["Bash"],"cwd":"/w"}` + "\n"),
		[]byte(`{"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-test","content":[{"type":"text","text":"hello from a live pipe"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":4}},"session_id":"s1"}` + "\n"),
		[]byte(`{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"num_turns":1,"result":"hello from a live pipe","session_id":"s1","usage":{"input_tokens":3,"output_tokens":4}}` + "\n"),
	}
	seen := viewDrawsBeforeTheRest(t, lines, 2, "hello from a live pipe")
	assert.Contains(t, seen, "■ success")
}

// viewDrawsBeforeTheRest runs view on standard input, writes lines[:wait],
// and fails unless want is drawn before the rest is written; it returns
// all that view drew once its input ended.
func viewDrawsBeforeTheRest(t *testing.T, lines [][]byte, wait int, want string) string {
	t.Helper()
	pr, pw := io.Pipe()
	out := make(chanWriter, 1000)
	done := make(chan error, 1)
	go func() {
		streams := cli.NewStreams(pr, out, io.Discard)
		done <- command.View(context.Background(), command.ViewOptions{Color: "never", MaxText: 16 << 10}, "-", streams, viewSources(streams))
	}()
	rest := make(chan struct{})
	go func() { // the writer never blocks the test: a view that stopped fails it below
		for i, l := range lines {
			if i == wait {
				<-rest
			}
			if _, err := pw.Write(l); err != nil {
				return
			}
		}
		pw.Close()
	}()
	var seen strings.Builder
	timeout := time.After(10 * time.Second) // a hang fails; no measure
	for !strings.Contains(seen.String(), want) {
		select {
		case s := <-out:
			seen.WriteString(s)
		case err := <-done:
			t.Fatalf("view ended before its input (%v): %q", err, seen.String())
		case <-timeout:
			t.Fatalf("nothing drawn before the end of input: %q", seen.String())
		}
	}
	close(rest)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("view did not end with its input")
	}
	close(out)
	for s := range out {
		seen.WriteString(s)
	}
	return seen.String()
}

// TestViewWriteErrorIsNoReadError: a view that cannot be written says so,
// not that the dialog could not be read.
func TestViewWriteErrorIsNoReadError(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	defer full.Close()
	var stderr bytes.Buffer
	streams := cli.NewStreams(strings.NewReader(""), full, &stderr)
	err = command.View(context.Background(), command.ViewOptions{Color: "never", NoPager: true, MaxText: 16 << 10}, "../../testdata/view/showcase.dialog.jsonl", streams, viewSources(streams))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "reading")
	assert.Contains(t, err.Error(), "no space left on device")
}
