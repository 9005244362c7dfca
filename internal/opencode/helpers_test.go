package opencode

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
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// entry is one decoded dialog entry.
type entry map[string]any

func (e entry) str(k string) string { s, _ := e[k].(string); return s }

func (e entry) num(k string) int64 { f, _ := e[k].(float64); return int64(f) }

// text is a tool result's text: result or error.
func (e entry) text() string {
	if s, ok := e["error"].(string); ok {
		return s
	}
	return e.str("result")
}

// dialogOf is a converted stream: its entries, and the complete entry.
type dialogOf struct {
	entries  []entry
	complete entry
}

func (d dialogOf) of(typ string) []entry {
	var out []entry
	for _, e := range d.entries {
		if e.str("type") == typ {
			out = append(out, e)
		}
	}
	return out
}

// starts and results are the tool entries that start and end calls.
func (d dialogOf) starts() []entry {
	var out []entry
	for _, e := range d.of("tool") {
		if e.str("status") == "running" {
			out = append(out, e)
		}
	}
	return out
}

func (d dialogOf) results() []entry {
	var out []entry
	for _, e := range d.of("tool") {
		if e.str("status") != "running" {
			out = append(out, e)
		}
	}
	return out
}

// messages are the message contents that are not warnings; warnings the
// others.
func (d dialogOf) messages() []string {
	var out []string
	for _, e := range d.of("message") {
		if s := e.str("content"); !strings.HasPrefix(s, dialog.WarningPrefix) {
			out = append(out, s)
		}
	}
	return out
}

func (d dialogOf) warnings() []string {
	var out []string
	for _, e := range d.of("message") {
		if s := e.str("content"); strings.HasPrefix(s, dialog.WarningPrefix) {
			out = append(out, s)
		}
	}
	return out
}

func (d dialogOf) thinking() []string {
	var out []string
	for _, e := range d.of("thinking") {
		out = append(out, e.str("content"))
	}
	return out
}

// tokens returns complete.total_tokens.
func (d dialogOf) tokens() map[string]int64 {
	out := map[string]int64{}
	for k, v := range d.complete["total_tokens"].(map[string]any) {
		out[k] = int64(v.(float64))
	}
	return out
}

// testOptions pin the clock; the cwd is left to the stream.
func testOptions() dialog.Options {
	return dialog.Options{Clock: dialog.FixedClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)), DefaultCWD: "/default"}
}

// convertLines feeds lines to a fresh Adapter, one Event each, closes the
// dialog and checks it against the contract. After each Event the line's
// bytes are overwritten: the adapter must keep nothing of them.
func convertLines(t *testing.T, lines ...string) (dialogOf, *Adapter) {
	t.Helper()
	var buf bytes.Buffer
	w := dialog.NewWriter(&buf, testOptions())
	a := New(w)
	for _, l := range lines {
		w.BeginLine()
		b := []byte(l)
		require.NoError(t, a.Event(eventOf(t, b)), "line %s", l)
		for i := range b {
			b[i] = '#'
		}
	}
	require.NoError(t, w.Close(a.Summary(), nil))
	return decodeDialog(t, buf.Bytes()), a
}

// decodeDialog validates a dialog and decodes its entries.
func decodeDialog(t *testing.T, out []byte) dialogOf {
	t.Helper()
	var findings []string
	_, err := dialogcheck.Validate(bytes.NewReader(out), func(f dialogcheck.Finding) { findings = append(findings, f.String()) })
	require.NoError(t, err)
	require.Empty(t, findings, "invalid dialog:\n%s", out)
	var d dialogOf
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e entry
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		d.entries = append(d.entries, e)
	}
	d.complete = d.entries[len(d.entries)-1]
	return d
}

// eventOf is a line as the pipeline hands it to the adapter.
func eventOf(t testing.TB, line []byte) adapter.Event {
	t.Helper()
	v, ok := jsonraw.Parse(line)
	require.True(t, ok, "not JSON: %s", line)
	return adapter.Event{Value: v}
}

// Short builders for bus events.
func busEvent(typ, props string) string {
	return `{"type":"` + typ + `","properties":` + props + `}`
}

func partUpdate(session, part string) string {
	return busEvent("message.part.updated", `{"sessionID":"`+session+`","part":`+part+`}`)
}

func textPart(session, msg, id, text string, end bool) string {
	tm := `{"start":1796061000000}`
	if end {
		tm = `{"start":1796061000000,"end":1796061000100}`
	}
	return partUpdate(session, `{"id":"`+id+`","messageID":"`+msg+`","sessionID":"`+session+`","type":"text","text":"`+text+`","time":`+tm+`}`)
}

func toolPart(session, call, tool, state string) string {
	return partUpdate(session, `{"id":"prt_`+call+`","messageID":"msg_a","sessionID":"`+session+`","type":"tool","tool":"`+tool+`","callID":"`+call+`","state":`+state+`}`)
}

func stepStart(session, id string) string {
	return partUpdate(session, `{"id":"`+id+`","messageID":"msg_a","sessionID":"`+session+`","type":"step-start"}`)
}

func idle(session string) string {
	return busEvent("session.idle", `{"sessionID":"`+session+`"}`)
}

func busy(session string) string {
	return busEvent("session.status", `{"sessionID":"`+session+`","status":{"type":"busy"}}`)
}

// Short builders for run lines.
func runLine(typ, part string) string {
	return `{"type":"` + typ + `","timestamp":1796057776547,"sessionID":"ses_r","part":` + part + `}`
}

func runStep(id string) string {
	return runLine("step_start", `{"id":"`+id+`","messageID":"msg_a","sessionID":"ses_r","type":"step-start"}`)
}

func runFinish(id, reason string) string {
	return runLine("step_finish", `{"id":"`+id+`","reason":"`+reason+`","messageID":"msg_a","sessionID":"ses_r","type":"step-finish","tokens":{"input":1,"output":1,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0}`)
}

func runText(id, text string) string {
	return runLine("text", `{"id":"`+id+`","messageID":"msg_a","sessionID":"ses_r","type":"text","text":`+text+`,"time":{"start":1,"end":2}}`)
}

func runTool(call, tool, state string) string {
	return runLine("tool_use", `{"id":"prt_`+call+`","messageID":"msg_a","sessionID":"ses_r","type":"tool","tool":"`+tool+`","callID":"`+call+`","state":`+state+`}`)
}

func runError(name, msg string) string {
	return `{"type":"error","timestamp":1796057776600,"sessionID":"ses_r","error":{"name":"` + name + `","data":{"message":"` + msg + `"}}}`
}
