package view_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/view"
)

// drawFrom draws the dialog at path with a Drawer, as view does.
func drawFrom(t *testing.T, path string, opt view.Options, hold view.Hold) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var b bytes.Buffer
	require.NoError(t, view.DrawFrom(&b, f, nil, dialogread.DefaultMaxBytes, opt, hold))
	return b.String()
}

// TestDrawerAsRender: drawn as it is read, a dialog whose results come
// within the hold looks as Render draws it whole.
func TestDrawerAsRender(t *testing.T) {
	for name, path := range fixtures {
		for _, opt := range []view.Options{{Width: 80}, {Width: 80, Color: true}, {Width: 80, Full: true}, {Width: 200}} {
			require.Equal(t, render(t, path, opt), drawFrom(t, path, opt, view.DefaultHold()), "%s %+v", name, opt)
		}
	}
}

// dialogLines builds the lines of a dialog: init, then what body adds.
type dialogLines struct {
	b   strings.Builder
	seq int
}

func (d *dialogLines) add(format string, args ...any) {
	fmt.Fprintf(&d.b, `{"seq":%d,"ts":"2026-05-12T09:00:%02d.000Z",`, d.seq, d.seq%60)
	fmt.Fprintf(&d.b, format, args...)
	d.b.WriteString("}\n")
	d.seq++
}

func newDialog() *dialogLines {
	d := &dialogLines{}
	d.add(`"type":"init","data":{"task":"t","cwd":"/w","model":"m","agent":"a"}`)
	return d
}

func (d *dialogLines) message(text string) {
	d.add(`"type":"message","role":"assistant","content":%q`, text)
}

func (d *dialogLines) call(id, parent string) {
	d.add(`"type":"tool","tool_id":%q,"name":"Bash","status":"running","args":{"command":"run %s"},"parent_tool_id":%q`, id, id, parent)
}

func (d *dialogLines) result(id, text string) {
	d.add(`"type":"tool","tool_id":%q,"name":"Bash","status":"success","result":%q`, id, text)
}

// signalWriter passes on each write, as a terminal would show it.
type signalWriter struct{ writes chan string }

func (w signalWriter) Write(p []byte) (int, error) {
	w.writes <- string(p)
	return len(p), nil
}

// TestDrawsBeforeTheEnd: the first entries are written while the rest of
// the dialog is still to come.
func TestDrawsBeforeTheEnd(t *testing.T) {
	d := newDialog()
	d.add(`"type":"prompt","content":"first prompt"`)
	d.message("first answer")
	pr, pw := io.Pipe()
	out := signalWriter{writes: make(chan string, 100)}
	done := make(chan error, 1)
	go func() {
		done <- view.DrawFrom(out, pr, nil, dialogread.DefaultMaxBytes, view.Options{Width: 80}, view.DefaultHold())
	}()
	_, err := io.WriteString(pw, d.b.String())
	require.NoError(t, err)
	var seen strings.Builder
	timeout := time.After(10 * time.Second) // a hang fails, it is no measure
	for !strings.Contains(seen.String(), "first answer") {
		select {
		case s := <-out.writes:
			seen.WriteString(s)
		case <-timeout:
			t.Fatalf("nothing drawn while the dialog is open; drawn so far: %q", seen.String())
		}
	}
	assert.NotContains(t, seen.String(), "■", "the closing line waits for the end")
	d.b.Reset()
	d.message("second answer")
	d.add(`"type":"complete","status":"success","turns":2`)
	_, err = io.WriteString(pw, d.b.String())
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	for {
		select {
		case s := <-out.writes:
			seen.WriteString(s)
			continue
		case err := <-done:
			require.NoError(t, err)
		}
		break
	}
	for len(out.writes) > 0 {
		seen.WriteString(<-out.writes)
	}
	assert.Contains(t, seen.String(), "second answer")
	assert.Contains(t, seen.String(), "■ success · 2 turns")
}

// TestHeldIsBounded: what a Drawer holds is the calls waiting for their
// result and what follows them within the hold, not the dialog.
func TestHeldIsBounded(t *testing.T) {
	d := newDialog()
	for i := range 5000 {
		id := fmt.Sprintf("t%d", i)
		d.call(id, "")
		d.result(id, "ok")
		d.message(fmt.Sprintf("step %d", i))
	}
	d.call("task", "") // a subagent
	for i := range 100 {
		id := fmt.Sprintf("s%d", i)
		d.call(id, "task")
		d.result(id, "sub ok")
	}
	d.result("task", "subagent done")
	for i := range 1000 { // many subagents: the ended ones are let go
		id := fmt.Sprintf("agent%d", i)
		d.call(id, "")
		d.message(fmt.Sprintf("sub %d", i))
		d.add(`"type":"message","role":"assistant","content":"sub step","parent_tool_id":%q`, id)
		d.result(id, "agent done")
	}
	d.add(`"type":"complete","status":"success","turns":5000`)
	var out bytes.Buffer
	dr := view.NewDrawer(&out, view.Options{Width: 80}, view.DefaultHold())
	require.NoError(t, dialogread.EachLine(strings.NewReader(d.b.String()), func(line []byte) error {
		e, err := dialogread.ParseLine(line, nil)
		require.NoError(t, err)
		return dr.Add(e, len(line))
	}))
	require.NoError(t, dr.Close())
	entries, calls := dr.Held()
	assert.LessOrEqual(t, entries, 202, "15,000 entries, at most the subagent's 201 held at once")
	assert.LessOrEqual(t, calls, view.KeptSubagents+102, "the calls of the subagent, and the ended subagents kept")
	assert.Contains(t, out.String(), "6101 tool calls")
	assert.Equal(t, 1001, strings.Count(out.String(), "✓ Bash done"), "each subagent's call is closed under its entries")
}

// TestLateSubagentEntry: an entry of a subagent whose call has ended is
// drawn nested under it, after its end.
func TestLateSubagentEntry(t *testing.T) {
	d := newDialog()
	d.call("task", "")
	d.add(`"type":"message","role":"assistant","content":"early","parent_tool_id":"task"`)
	d.result("task", "done")
	d.add(`"type":"message","role":"assistant","content":"late","parent_tool_id":"task"`)
	var out bytes.Buffer
	require.NoError(t, view.DrawFrom(&out, strings.NewReader(d.b.String()), nil, 0, view.Options{Width: 80}, view.DefaultHold()))
	s := out.String()
	assert.Contains(t, s, "│ ◆ assistant\n│   early")
	assert.Contains(t, s, "│ ◆ assistant\n│   late")
	assert.Less(t, strings.Index(s, "✓ Bash done"), strings.Index(s, "late"), s)
}

// TestFarResult: a call whose result comes past the hold is drawn running,
// then its result where it comes, under a line naming it; the figures
// count it once, as a success.
func TestFarResult(t *testing.T) {
	d := newDialog()
	d.call("far", "")
	for i := range 10 {
		d.message(fmt.Sprintf("meanwhile %d", i))
	}
	d.result("far", "far output")
	var out bytes.Buffer
	require.NoError(t, view.DrawFrom(&out, strings.NewReader(d.b.String()), nil, 0, view.Options{Width: 80}, view.Hold{Bytes: 1 << 20, Entries: 4}))
	s := out.String()
	running := strings.Index(s, "… Bash(run far)\n  ⎿ running…")
	first := strings.Index(s, "meanwhile 0")
	last := strings.Index(s, "meanwhile 9")
	end := strings.Index(s, "✓ Bash done 11.0s\n  ⎿ far output")
	require.True(t, running >= 0 && first >= 0 && last >= 0 && end >= 0, s)
	assert.True(t, running < first && last < end, "call, what came meanwhile, then its result:\n%s", s)
	assert.Contains(t, s, "1 tool call\n")
	assert.NotContains(t, s, "tool error")

	// Within the hold, the same dialog is drawn merged, as Render draws it.
	out.Reset()
	require.NoError(t, view.DrawFrom(&out, strings.NewReader(d.b.String()), nil, 0, view.Options{Width: 80}, view.DefaultHold()))
	assert.Contains(t, out.String(), "✓ Bash(run far) 11.0s\n  ⎿ far output")
	whole, err := dialogread.Read(strings.NewReader(d.b.String()), nil)
	require.NoError(t, err)
	var rendered bytes.Buffer
	require.NoError(t, view.Render(&rendered, whole, view.Options{Width: 80}))
	assert.Equal(t, rendered.String(), out.String())
}

// TestNoteBeforeTheEnd: lines that are no entry, and lines over the cap,
// are counted and said before the closing line.
func TestNoteBeforeTheEnd(t *testing.T) {
	d := newDialog()
	d.message("hello")
	d.b.WriteString("not json\n")
	d.b.WriteString(`{"seq":9,"type":"message","content":"` + strings.Repeat("x", 300) + `"}` + "\n")
	d.add(`"type":"complete","status":"success","turns":1`)
	var out bytes.Buffer
	require.NoError(t, view.DrawFrom(&out, strings.NewReader(d.b.String()), nil, 200, view.Options{Width: 200}, view.DefaultHold()))
	s := out.String()
	note := strings.Index(s, "⚠ left out")
	require.Greater(t, note, strings.Index(s, "hello"), s)
	assert.Less(t, note, strings.Index(s, "■ success"), s)
	assert.Contains(t, s, "not read: 1 line over 200 B")
	assert.Contains(t, s, "1 line that is not a JSON object")
}
