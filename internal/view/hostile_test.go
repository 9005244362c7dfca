package view_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/view"
)

const hostileDialog = `{"seq":0,"ts":"2026-01-01T00:00:00Z","type":"init","data":{"task":"t","cwd":"/","model":"m","agent":"a"}}
{"seq":1,"ts":"2026-01-01T00:00:01Z","type":"message","role":"assistant","content":"the secret plan\rlooks harmless"}
{"seq":2,"ts":"2026-01-01T00:00:02Z","type":"tool","tool_id":"a","name":"Bash","status":"running","args":{"command":"echo \u202eexe.txt"}}
{"seq":3,"ts":"2026-01-01T00:00:03Z","type":"tool","tool_id":"a","name":"Bash","status":"success","result":"10%\r50%\r100%\nd\u200bone \u2066x\u2069"}
{"seq":4,"ts":"2026-01-01T00:00:04Z","type":"complete","status":"success","turns":1,"duration_ms":4,"total_tokens":{"in":1,"out":1}}
`

// Text written before a carriage return in a message is shown, with and
// without --full; a tool's progress bar keeps its last state after a mark;
// bidi controls and invisible characters are shown as marks, not applied.
func TestViewShowsWhatTextHides(t *testing.T) {
	d, err := dialogread.Read(strings.NewReader(hostileDialog), nil)
	require.NoError(t, err)
	for _, full := range []bool{false, true} {
		var b bytes.Buffer
		require.NoError(t, view.Render(&b, d, view.Options{Width: 80, Full: full}))
		out := b.String()
		assert.Contains(t, out, "the secret plan", "full=%v", full)
		assert.Contains(t, out, "looks harmless")
		assert.Contains(t, out, "⎿ ␍100%")
		assert.NotContains(t, out, "50%")
		assert.Contains(t, out, "echo ⟨U+202E⟩exe.txt")
		assert.Contains(t, out, "d⟨U+200B⟩one ⟨U+2066⟩x⟨U+2069⟩")
		for _, c := range []string{"\u202e", "\u200b", "\u2066", "\u2069", "\r"} {
			assert.NotContains(t, out, c)
		}
	}
}

// A dialog read past its cap says so, before the entries and before the
// ending.
func TestViewSaysWhatWasLeftOut(t *testing.T) {
	in := adaptertest.ManyMessages(50, strings.Repeat("w ", 200))
	d, err := dialogread.ReadLimited(strings.NewReader(in), nil, dialogread.Limits{MaxBytes: 5000})
	require.NoError(t, err)
	require.Positive(t, d.LeftOut.Entries)
	var b bytes.Buffer
	require.NoError(t, view.Render(&b, d, view.Options{Width: 200}))
	out := b.String()
	assert.Equal(t, 2, strings.Count(out, "⚠ left out"))
	assert.True(t, strings.HasPrefix(out, "⚠ left out\n  incomplete view: "+strconv.Itoa(d.LeftOut.Entries)+" entries ("), out[:200])

	whole, err := dialogread.Read(strings.NewReader(in), nil)
	require.NoError(t, err)
	b.Reset()
	require.NoError(t, view.Render(&b, whole, view.Options{Width: 200}))
	assert.NotContains(t, b.String(), "left out")
}

// A followed dialog keeps no text it has drawn: of a call with a subagent,
// only what its end needs until it ends.
func TestStreamKeepsNoDrawnText(t *testing.T) {
	var out bytes.Buffer
	s := view.NewStream(&out, view.Options{Width: 80})
	lines := strings.Split(strings.TrimSpace(hostileDialog), "\n")
	for _, l := range lines {
		e, err := dialogread.ParseLine([]byte(l), nil)
		require.NoError(t, err)
		require.NoError(t, s.Add(e))
	}
	require.NoError(t, s.Close())
	assert.Contains(t, out.String(), "looks harmless", "drawn before it was dropped")
	assert.Contains(t, out.String(), "■ success · 1 turn")
	for _, n := range s.Dialog().Nodes {
		for _, e := range []*dialogread.Entry{n.Entry, n.Result} {
			if e != nil && e.Type != "complete" && e.Type != "init" {
				assert.Empty(t, e.Content+e.Result+e.Error+string(e.Args), "seq %d", e.Seq)
			}
		}
	}
}

// Lines that are no entry are said, not dropped silently: a line nested
// past encoding/json's limit among them.
func TestViewSaysWhatWasSkipped(t *testing.T) {
	in := strings.Replace(hostileDialog, "\n", "\nnot json\n"+`{"seq":9,"x":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+"}\n", 1)
	d, err := dialogread.Read(strings.NewReader(in), nil)
	require.NoError(t, err)
	require.Equal(t, 2, d.Skipped)
	var b bytes.Buffer
	require.NoError(t, view.Render(&b, d, view.Options{Width: 200}))
	assert.Contains(t, b.String(), "incomplete view: 2 lines that are not JSON objects (or nest too deep to read) are skipped")
}
