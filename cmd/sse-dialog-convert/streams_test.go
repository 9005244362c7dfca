package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
)

// runStreams runs the command with streams and an environment given as
// values: no terminal, no t.Setenv, so these tests run in parallel.
func runStreams(t *testing.T, s *cli.Streams, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	s.Out, s.ErrOut = &out, &errOut
	if s.In == nil {
		s.In = strings.NewReader("")
	}
	if s.Getenv == nil {
		s.Getenv = cli.Env(nil)
	}
	code := runProgram(context.Background(), args, s)
	return code, out.String(), errOut.String()
}

// TestViewOnATerminal: on a terminal view colours and wraps at the
// terminal's width; NO_COLOR, from the environment given, turns colour off;
// not on a terminal, it is 80 columns and plain.
func TestViewOnATerminal(t *testing.T) {
	t.Parallel()
	const f = "../../testdata/view/showcase.dialog.jsonl"
	code, tty, _ := runStreams(t, &cli.Streams{OutTerminal: true, OutWidth: 50}, "view", f)
	require.Equal(t, 0, code)
	assert.NotEqual(t, ansi.Strip(tty), tty, "colour on a terminal")
	for _, l := range strings.Split(tty, "\n") {
		assert.LessOrEqual(t, ansi.StringWidth(l), 50, "%q", l)
	}

	_, noColor, _ := runStreams(t, &cli.Streams{OutTerminal: true, OutWidth: 50, Getenv: cli.Env(map[string]string{"NO_COLOR": "1"})}, "view", f)
	_, plain50, _ := runStreams(t, &cli.Streams{}, "view", "--width", "50", f)
	assert.Equal(t, ansi.Strip(plain50), plain50, "no colour off a terminal")
	assert.Equal(t, plain50, noColor, "NO_COLOR: the terminal's view, without colour")

	_, plain, _ := runStreams(t, &cli.Streams{}, "view", f)
	assert.NotEqual(t, plain50, plain, "80 columns off a terminal, not 50")
}

// TestStdinTerminalNote: reading standard input that is a terminal, view and
// validate say how to end it; from a pipe they say nothing.
func TestStdinTerminalNote(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"view", "--no-pager"}, {"validate"}} {
		_, _, errOut := runStreams(t, &cli.Streams{InTerminal: true}, args...)
		assert.Contains(t, errOut, "(a terminal); Ctrl-D ends it", args)
		_, _, errOut = runStreams(t, &cli.Streams{}, args...)
		assert.NotContains(t, errOut, "Ctrl-D", args)
	}
}

// TestRunTimeoutFromEnvValue: $TIMEOUT is read from the environment the
// command is given, not the process's.
func TestRunTimeoutFromEnvValue(t *testing.T) {
	t.Parallel()
	code, _, errOut := runStreams(t, &cli.Streams{Getenv: cli.Env(map[string]string{"TIMEOUT": "soon"})}, "run", "--", "true")
	assert.Equal(t, 1, code)
	assert.Equal(t, "sse-dialog-convert: TIMEOUT=\"soon\" is not a number of seconds; set it to seconds (TIMEOUT=1800), or give --timeout, which overrides it\n", errOut)
}

// TestConvertStreamsAsValues: a conversion takes its defaults from the
// environment given ($SSE_ARCHIVE, $SSE_TASK_ID, $SSE_MODEL_NAME,
// $SOURCE_DATE_EPOCH), says where the dialog went only to a person
// watching stderr, and notes a terminal on standard input.
func TestConvertStreamsAsValues(t *testing.T) {
	t.Parallel()
	archive := t.TempDir()
	env := cli.Env(map[string]string{"SSE_ARCHIVE": archive, "SSE_TASK_ID": "t-7", "SSE_MODEL_NAME": "m-9", "SOURCE_DATE_EPOCH": "86400"})
	code, _, errOut := runStreams(t, &cli.Streams{In: strings.NewReader(claudeRun), Getenv: env, ErrTerminal: true})
	require.Equal(t, 0, code, errOut)
	path := filepath.Join(archive, "dialog.jsonl")
	assert.Contains(t, errOut, "written to "+path, "a person watches stderr")
	es := readDialog(t, path)
	data := es[0]["data"].(map[string]any)
	assert.Equal(t, "t-7", data["task"])
	assert.Equal(t, "m-9", data["model"])
	assert.Equal(t, "1970-01-02T00:00:00.000Z", es[0]["ts"], "the clock SOURCE_DATE_EPOCH pins")

	code, _, errOut = runStreams(t, &cli.Streams{In: strings.NewReader(claudeRun), Getenv: env})
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut, "no line for a script's stderr")

	_, _, errOut = runStreams(t, &cli.Streams{InTerminal: true, Getenv: env})
	assert.Contains(t, errOut, "reading agent events from standard input (a terminal); Ctrl-D ends them")
}
