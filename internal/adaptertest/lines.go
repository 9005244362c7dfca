package adaptertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Pinned returns the clock every test conversion reads.
func Pinned() dialog.Clock { return dialog.FixedClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) }

// LineOptions are the dialog options of Lines: the clock pinned, the cwd
// "/w" unless the input says.
func LineOptions() dialog.Options { return dialog.Options{Clock: Pinned(), DefaultCWD: "/w"} }

// Dialog is one converted input: the dialog as written, decoded, and what
// the conversion reported.
type Dialog struct {
	// Out is the dialog as written.
	Out []byte
	// Entries are Out's entries, decoded; Complete is the last of them.
	Entries  []Entry
	Complete Entry
	// Stderr is what the pipeline reported (Pipeline only).
	Stderr string
	// Adapter is the adapter after the dialog was closed (Lines only).
	Adapter adapter.Adapter
}

// Lines converts lines with LineOptions; see LinesWith.
func Lines(t testing.TB, f adapter.Format, lines ...string) Dialog {
	t.Helper()
	return LinesWith(t, f, LineOptions(), lines...)
}

// LinesWith hands each line as one event to a fresh adapter of f (as the
// pipeline hands a record over), finishes it and closes the dialog, which
// must pass validation. After each event the line's bytes are overwritten: the
// adapter must keep nothing of them.
func LinesWith(t testing.TB, f adapter.Format, opt dialog.Options, lines ...string) Dialog {
	t.Helper()
	var buf bytes.Buffer
	w := dialog.NewWriter(&buf, opt)
	a := f.Start(w)
	for _, l := range lines {
		w.BeginLine()
		b := []byte(l)
		require.NoError(t, a.Event(Event(t, string(b))), "line %s", l)
		for i := range b {
			b[i] = '#'
		}
	}
	w.BeginLine()
	if f, ok := a.(adapter.Finisher); ok {
		f.Finish() // as the pipeline ends an input
	}
	require.NoError(t, w.Close(a.Summary(), nil))
	d := Decoded(t, buf.Bytes())
	d.Adapter = a
	return d
}

// Pipeline converts input as the command does with --format f and the
// dialog options opt: framing, checking, the adapter, the writer. The
// dialog must pass validation.
func Pipeline(t testing.TB, f adapter.Format, opt dialog.Options, input io.Reader) Dialog {
	t.Helper()
	var out, diag bytes.Buffer
	c := dispatch.New(&out, opt, dispatch.Options{Formats: []adapter.Format{f}, Forced: true, Stderr: &diag})
	require.NoError(t, c.Feed(input, "input"))
	require.NoError(t, c.Close(nil))
	d := Decoded(t, out.Bytes())
	d.Stderr = diag.String()
	return d
}

// Decoded checks out against the contract and decodes its entries.
func Decoded(t testing.TB, out []byte) Dialog {
	t.Helper()
	RequireValid(t, out)
	d := Dialog{Out: out, Entries: Decode[Entry](t, out)}
	if len(d.Entries) > 0 {
		d.Complete = d.Entries[len(d.Entries)-1]
	}
	return d
}

// Decode decodes a dialog's entries into values of a test's own type.
func Decode[E any](t testing.TB, out []byte) []E {
	t.Helper()
	var es []E
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var e E
		err := dec.Decode(&e)
		if errors.Is(err, io.EOF) {
			return es
		}
		require.NoError(t, err)
		es = append(es, e)
	}
}

// Event is line as the pipeline hands it to an adapter.
func Event(t testing.TB, line string) adapter.Event {
	t.Helper()
	return adapter.Event{Value: Value(t, line)}
}

// Value is s read as JSON; the test stops where s is not JSON.
func Value(t testing.TB, s string) jsonraw.Value {
	t.Helper()
	v, ok := jsonraw.Parse([]byte(s))
	require.True(t, ok, "not JSON: %s", s)
	return v
}

// Entry is one decoded dialog entry.
type Entry map[string]any

// Str is the string at key k, "" when there is none.
func (e Entry) Str(k string) string { s, _ := e[k].(string); return s }

// Num is the number at key k, 0 when there is none.
func (e Entry) Num(k string) int64 { f, _ := e[k].(float64); return int64(f) }

// Text is a tool result's text: its error, or else its result.
func (e Entry) Text() string {
	if s, ok := e["error"].(string); ok {
		return s
	}
	return e.Str("result")
}

// Of returns the entries of one type.
func (d Dialog) Of(typ string) []Entry {
	return d.where(typ, func(Entry) bool { return true })
}

// where returns the entries of one type that keep holds of, in order.
func (d Dialog) where(typ string, keep func(Entry) bool) []Entry {
	var out []Entry
	for _, e := range d.Entries {
		if e.Str("type") == typ && keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// contents are the entries' contents, in order.
func contents(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Str("content"))
	}
	return out
}

// Starts returns the tool entries that start a call.
func (d Dialog) Starts() []Entry {
	return d.where("tool", func(e Entry) bool { return e.Str("status") == "running" })
}

// Results returns the tool entries that end a call (success or error).
func (d Dialog) Results() []Entry {
	return d.where("tool", func(e Entry) bool { return e.Str("status") != "running" })
}

// Messages are the contents of the message entries that are no warnings.
func (d Dialog) Messages() []string {
	return contents(d.where("message", func(e Entry) bool { return !strings.HasPrefix(e.Str("content"), dialog.WarningPrefix) }))
}

// Warnings are the contents of the message entries that show warnings.
func (d Dialog) Warnings() []string {
	return contents(d.where("message", func(e Entry) bool { return strings.HasPrefix(e.Str("content"), dialog.WarningPrefix) }))
}

// Thinking are the contents of the thinking entries.
func (d Dialog) Thinking() []string { return contents(d.Of("thinking")) }

// Tokens returns complete.total_tokens.
func (d Dialog) Tokens() map[string]int64 {
	out := map[string]int64{}
	for k, v := range d.Complete["total_tokens"].(map[string]any) {
		out[k] = int64(v.(float64))
	}
	return out
}

// MessagesWithTokens lists a dialog's message entries, each as its content,
// a space, and its tokens object as written ("" when it carries none).
func MessagesWithTokens(t testing.TB, out []byte) []string {
	t.Helper()
	var got []string
	for _, e := range Decode[struct {
		Type    string          `json:"type"`
		Content string          `json:"content"`
		Tokens  json.RawMessage `json:"tokens"`
	}](t, out) {
		if e.Type == "message" {
			got = append(got, e.Content+" "+string(e.Tokens))
		}
	}
	return got
}

// Detects checks detect's claim of each line: cases maps a line to the
// claim a format's Detect must make of it.
func Detects(t testing.TB, detect func(adapter.Event) adapter.Claim, cases map[string]adapter.Claim) {
	t.Helper()
	for line, want := range cases {
		assert.Equal(t, want, detect(Event(t, line)), line)
	}
}
