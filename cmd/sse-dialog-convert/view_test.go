package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestPagerIsRunByTheShell: once the output fills a screen, $PAGER gets
// all of it on its stdin, what came before and what comes after; output
// shorter than a screen is written as it is.
func TestPagerIsRunByTheShell(t *testing.T) {
	t.Setenv("PAGER", "tr a-z A-Z")
	var out, errOut bytes.Buffer
	p := &pagedOutput{stdout: &out, stderr: &errOut, height: 2}
	for _, s := range []string{"abc\n", "def\n", "ghi\n"} {
		_, err := p.Write([]byte(s))
		require.NoError(t, err)
	}
	require.NoError(t, p.Close())
	assert.Equal(t, "ABC\nDEF\nGHI\n", out.String())

	out.Reset()
	p = &pagedOutput{stdout: &out, stderr: &errOut, height: 3}
	_, err := p.Write([]byte("abc\ndef\n"))
	require.NoError(t, err)
	require.NoError(t, p.Close())
	assert.Equal(t, "abc\ndef\n", out.String(), "shorter than a screen: no pager")
}

// TestPagerQuitEarly: a pager quit before the end stops the drawing, and
// is no failure.
func TestPagerQuitEarly(t *testing.T) {
	t.Setenv("PAGER", "head -c 1 >/dev/null")
	var out, errOut bytes.Buffer
	p := &pagedOutput{stdout: &out, stderr: &errOut, height: 1}
	line := []byte(strings.Repeat("x", 1<<10) + "\n")
	var err error
	for i := 0; i < 1<<12 && err == nil; i++ { // 4 MiB: more than a pipe holds
		_, err = p.Write(line)
	}
	assert.ErrorIs(t, err, errPagerQuit)
	assert.NoError(t, p.Close())
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
	plainFile := "../../testdata/claude/text-only.in.jsonl"
	raw := readFile(t, plainFile)
	code, plain, errOut := runCLI(t, "", "view", "--no-pager", plainFile)
	require.Equal(t, 0, code, errOut)
	for name, data := range map[string][]byte{"t.jsonl.gz": gz(t, raw), "t.jsonl.zst": zstdOf(t, raw)} {
		putFile(t, filepath.Join(dir, name), data)
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
	lines := bytes.SplitAfter(raw, []byte("\n"))
	pr, pw := io.Pipe()
	out := make(chanWriter, 1000)
	done := make(chan error, 1)
	go func() {
		done <- runView(context.Background(), viewOptions{color: "never", maxText: 16 << 10}, nil, pr, out, io.Discard)
	}()
	rest := make(chan struct{})
	go func() { // the writer never blocks the test: a view that stopped fails it below
		for i, l := range lines {
			if i == 3 { // init, prompt, thinking written: the rest waits
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
	for !strings.Contains(seen.String(), "✱ thinking") {
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
	assert.Contains(t, seen.String(), "■ success")
}

// TestPagerNotes: the conversion's warnings go to stderr until a pager
// owns the terminal, are kept while it runs (not drawn into its screen),
// and come out once it is quit.
func TestPagerNotes(t *testing.T) {
	var stderr bytes.Buffer
	n := pagerNotes{w: &stderr}
	fmt.Fprintln(&n, "before")
	n.page()
	fmt.Fprintln(&n, "while")
	assert.Equal(t, "before\n", stderr.String(), "nothing reaches the terminal while the pager runs")
	n.flush()
	assert.Equal(t, "before\nwhile\n", stderr.String())
	n.page()
	n.Write(make([]byte, maxPagerNotes+1))
	n.flush()
	assert.Contains(t, stderr.String(), fmt.Sprintf("%d more bytes of warnings left out while the pager ran", maxPagerNotes+1))
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
	err = runView(context.Background(), viewOptions{color: "never", noPager: true, maxText: 16 << 10}, []string{"../../testdata/view/showcase.dialog.jsonl"}, strings.NewReader(""), full, &stderr)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "reading")
	assert.Contains(t, err.Error(), "no space left on device")
}
