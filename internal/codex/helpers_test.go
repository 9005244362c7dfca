package codex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dialogcheck"
	_ "github.com/ssebench/sse-dialog-convert/internal/golden" // registers -update
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// entry is one decoded dialog entry.
type entry map[string]any

func (e entry) str(k string) string { s, _ := e[k].(string); return s }

func (e entry) num(k string) int64 { f, _ := e[k].(float64); return int64(f) }

// dialogOf is a converted stream: its entries, and the complete entry.
type dialogOf struct {
	entries  []entry
	complete entry
}

// convertLines feeds lines to a fresh Adapter, one Event each, closes the
// dialog and checks it against the contract. After each Event the line's
// bytes are overwritten: the adapter must keep nothing of obj.
func convertLines(t *testing.T, lines ...string) dialogOf {
	t.Helper()
	var buf bytes.Buffer
	w := dialog.NewWriter(&buf, dialog.Options{Clock: dialog.FixedClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)), DefaultCWD: "/w"})
	a := New(w)
	for _, l := range lines {
		w.BeginLine()
		b := []byte(l)
		require.NoError(t, a.Event(eventOf(t, string(b))), "line %s", l)
		for i := range b {
			b[i] = '#'
		}
	}
	require.NoError(t, w.Close(a.Summary(), nil))
	var findings []string
	_, err := dialogcheck.Validate(bytes.NewReader(buf.Bytes()), func(f dialogcheck.Finding) { findings = append(findings, f.String()) })
	require.NoError(t, err)
	require.Empty(t, findings, "invalid dialog:\n%s", buf.String())

	var d dialogOf
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e entry
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		d.entries = append(d.entries, e)
	}
	d.complete = d.entries[len(d.entries)-1]
	return d
}

// of returns the entries of one type.
func (d dialogOf) of(typ string) []entry {
	var out []entry
	for _, e := range d.entries {
		if e.str("type") == typ {
			out = append(out, e)
		}
	}
	return out
}

// results returns the tool entries that end a call (success or error).
func (d dialogOf) results() []entry {
	var out []entry
	for _, e := range d.of("tool") {
		if e.str("status") != "running" {
			out = append(out, e)
		}
	}
	return out
}

// starts returns the tool entries that start a call.
func (d dialogOf) starts() []entry {
	var out []entry
	for _, e := range d.of("tool") {
		if e.str("status") == "running" {
			out = append(out, e)
		}
	}
	return out
}

// text is a result's text: result or error.
func (e entry) text() string {
	if s, ok := e["error"].(string); ok {
		return s
	}
	return e.str("result")
}

// tokens returns complete.total_tokens.
func (d dialogOf) tokens() map[string]int64 {
	out := map[string]int64{}
	for k, v := range d.complete["total_tokens"].(map[string]any) {
		out[k] = int64(v.(float64))
	}
	return out
}

// warnings returns the message entries that show warnings.
func (d dialogOf) warnings() []string {
	var out []string
	for _, e := range d.of("message") {
		if s := e.str("content"); strings.HasPrefix(s, dialog.WarningPrefix) {
			out = append(out, s)
		}
	}
	return out
}

// Short builders for the lines of the current format.
func thread() string { return `{"type":"thread.started","thread_id":"t"}` }
func turn() string   { return `{"type":"turn.started"}` }

func completed(usage string) string {
	return `{"type":"turn.completed","usage":` + usage + `}`
}

func itemLine(ev, body string) string { return `{"type":"item.` + ev + `","item":` + body + `}` }

func cmd(id, command, output, exit, status string) string {
	return `{"id":"` + id + `","type":"command_execution","command":"` + command + `","aggregated_output":"` + output + `","exit_code":` + exit + `,"status":"` + status + `"}`
}

func msg(id, text string) string {
	return itemLine("completed", `{"id":"`+id+`","type":"agent_message","text":"`+text+`"}`)
}

// eventOf is line as the pipeline hands it to the adapter.
func eventOf(t testing.TB, line string) adapter.Event {
	t.Helper()
	v, ok := jsonraw.Parse([]byte(line))
	require.True(t, ok, "not JSON: %s", line)
	return adapter.Event{Value: v}
}
