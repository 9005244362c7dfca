package view_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/golden"
	"github.com/ssebench/sse-dialog-convert/internal/view"
)

func render(t *testing.T, path string, opt view.Options) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, view.Render(&b, adaptertest.ReadDialog(t, path, nil), opt))
	return b.String()
}

var fixtures = map[string]string{
	"showcase":       "../../testdata/view/showcase.dialog.jsonl",
	"xss":            "../../testdata/view/xss.dialog.jsonl",
	"subagent-agent": "../../testdata/claude/subagent-agent.out.jsonl",
	"file-change":    "../../testdata/codex/file-change.out.jsonl",
}

// TestGolden draws the fixtures at fixed widths, with colour off and on.
// The goldens were read against their dialogs once.
func TestGolden(t *testing.T) {
	for name, path := range fixtures {
		for _, color := range []bool{false, true} {
			suffix := "plain"
			if color {
				suffix = "color"
			}
			golden.Check(t, filepath.Join("testdata", name+".80."+suffix+".txt"), []byte(render(t, path, view.Options{Width: 80, Color: color})))
		}
	}
	golden.Check(t, "testdata/showcase.200.plain.txt", []byte(render(t, fixtures["showcase"], view.Options{Width: 200})))
	golden.Check(t, "testdata/showcase.80.full.txt", []byte(render(t, fixtures["showcase"], view.Options{Width: 80, Full: true})))
}

// TestFitsWidth: no drawn line is wider than the width asked for.
func TestFitsWidth(t *testing.T) {
	for name, path := range fixtures {
		for _, width := range []int{40, 80, 200} {
			for _, color := range []bool{false, true} {
				for i, line := range strings.Split(render(t, path, view.Options{Width: width, Color: color, Full: true}), "\n") {
					require.LessOrEqual(t, ansi.StringWidth(line), width, "%s at %d, line %d: %q", name, width, i+1, line)
				}
			}
		}
	}
}

var sgrRe = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// TestNoEscapesFromTheDialog: the hostile dialog holds ANSI codes and
// control characters; none reaches the terminal. Without colour there is
// no escape at all; with colour, only our SGR codes.
func TestNoEscapesFromTheDialog(t *testing.T) {
	for _, full := range []bool{false, true} {
		plain := render(t, fixtures["xss"], view.Options{Width: 80, Full: full})
		require.NotContains(t, plain, "\x1b")
		require.NotRegexp(t, "[\x00-\x08\x0b-\x1f\x7f]", plain)
		require.Contains(t, plain, "red", "the text around the codes stays")
		colored := render(t, fixtures["xss"], view.Options{Width: 80, Color: true, Full: full})
		require.NotContains(t, sgrRe.ReplaceAllString(colored, ""), "\x1b")
		require.NotRegexp(t, "[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]", colored)
	}
	require.Equal(t, "ab", view.Clean("a\x1b]0;title\x07b\x1b[2J"))
	require.Equal(t, "50%\n100%\nok", view.Clean("50%\r100%\r\nok"), "text written before a carriage return is shown")
	require.Equal(t, "␍100%\nok", view.CleanOutput("50%\r100%\r\nok"), "a progress bar keeps its last state, marked")
	require.Equal(t, "abc⟨U+202E⟩fed", view.Clean("abc\u202efed"))
	require.Equal(t, "x    y", view.Clean("x\ty\x00\u009b"))
}

// TestFolding: a result is cut to FoldLines with the count of the rest;
// Full shows it all. The Read result in the showcase has 9 lines.
func TestFolding(t *testing.T) {
	folded := render(t, fixtures["showcase"], view.Options{Width: 100})
	require.Contains(t, folded, "… +5 lines (--full to show)")
	require.NotContains(t, folded, "148")
	full := render(t, fixtures["showcase"], view.Options{Width: 100, Full: true})
	require.NotContains(t, full, "--full to show")
	require.Contains(t, full, "   148    }")
	two := render(t, fixtures["showcase"], view.Options{Width: 100, FoldLines: 2})
	require.Contains(t, two, "… +7 lines (--full to show)")
}

// TestStream draws the subagent fixture entry by entry, as --follow does:
// a call is drawn with its result, a subagent's call when its first entry
// comes, and its result after them. Order read off the fixture: Agent
// starts (2), its Grep starts (3), Bash starts (4), Grep ends (5), Bash
// ends (6), the subagent's message (7), Agent ends (8), the answer (9).
func TestStream(t *testing.T) {
	raw, err := os.ReadFile(fixtures["subagent-agent"])
	require.NoError(t, err)
	var out bytes.Buffer
	s := view.NewStream(&out, view.Options{Width: 80})
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		e, err := dialogread.ParseLine(line, nil)
		require.NoError(t, err)
		require.NoError(t, s.Add(e))
	}
	require.NoError(t, s.Close())
	got := out.String()
	order := []string{"… Agent(Find TODOs)", "│ ✓ Grep(TODO)", "✓ Bash(go build ./...)", "│   Two TODOs", "✓ Agent done", "The build passes", "■ success"}
	at := -1
	for _, want := range order {
		i := strings.Index(got, want)
		require.Greater(t, i, at, "%q out of order in:\n%s", want, got)
		at = i
	}
	require.Equal(t, 1, strings.Count(got, "Agent(Find TODOs)"), "the call's head once")
}

// A dialog whose init says its times are the conversion's shows its date
// and durations as unknown, never the day it was converted or "0s"; the
// same dialog with the source's times shows them.
func TestTimesOfTheConversionAreUnknown(t *testing.T) {
	const lines = `{"seq":0,"ts":"2026-12-02T04:00:00.000Z","type":"init","data":{"task":"","cwd":"","model":"m","agent":"codex","clock":"%s"}}
{"seq":1,"ts":"2026-12-02T04:00:00.000Z","type":"tool","tool_id":"c1","name":"bash","status":"running","args":{"command":"ls"}}
{"seq":2,"ts":"2026-12-02T04:00:02.500Z","type":"tool","tool_id":"c1","name":"bash","status":"success","result":"a"}
{"seq":3,"ts":"2026-12-02T04:00:02.500Z","type":"complete","status":"success","turns":1,"duration_ms":%d,"total_tokens":{"in":1,"out":1}}
`
	draw := func(clock string, dur int) string {
		d, err := dialogread.Read(strings.NewReader(fmt.Sprintf(lines, clock, dur)), nil)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, view.Render(&b, d, view.Options{Width: 100}))
		return b.String()
	}
	got := draw("conversion", 0)
	assert.Contains(t, got, "● session date —")
	assert.NotContains(t, got, "2026-12-02")
	assert.Contains(t, got, "1 turn · — ·")
	assert.NotContains(t, got, "0s")
	assert.NotContains(t, got, "2.5s", "a tool's duration from the conversion's clock")

	// The source's own duration is a fact, whatever the clock.
	assert.Contains(t, draw("conversion", 1234), "1 turn · 1.2s ·")

	got = draw("source", 2500)
	assert.Contains(t, got, "● session 2026-12-02 04:00:00 UTC")
	assert.Contains(t, got, "2.5s")
	assert.NotContains(t, got, "—")
}

// TestImagesArePlaceholders: the images a dialog carries (a Read of a
// PNG, a screenshot after its text) show as [image …], never as base64.
func TestImagesArePlaceholders(t *testing.T) {
	for _, full := range []bool{false, true} {
		out := render(t, "../../testdata/claude/tool-result-images.out.jsonl", view.Options{Width: 100, Full: full})
		assert.NotContains(t, out, "base64")
		assert.NotContains(t, out, "iVBOR")
		assert.Contains(t, out, "⎿ [image image/png 73 bytes]")
		assert.Contains(t, out, "[image image/png 73 bytes]")
		assert.Contains(t, out, "Screenshot of http://localhost:3000 (1 x 1)")
	}
}
