package runstats

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
)

// A dialog written by hand: a main agent with one subagent call holding a
// failed tool, a failed main call, tokens and cost on complete.
const withSubagent = `{"seq":0,"ts":"2026-01-01T00:00:00.000Z","type":"init","data":{"task":"t","cwd":"/w","model":"m-1","agent":"claude-code"}}
{"seq":1,"ts":"2026-01-01T00:00:00.000Z","type":"prompt","content":"Fix   the\nbug in a very long prompt that goes on and on and on beyond sixty runes for sure"}
{"seq":2,"ts":"2026-01-01T00:00:01.000Z","type":"tool","tool_id":"t1","name":"Task","status":"running","args":{}}
{"seq":3,"ts":"2026-01-01T00:00:02.000Z","type":"tool","tool_id":"t2","name":"Bash","status":"running","args":{},"parent_tool_id":"t1"}
{"seq":4,"ts":"2026-01-01T00:00:03.000Z","type":"tool","tool_id":"t2","name":"Bash","status":"error","error":"boom","parent_tool_id":"t1"}
{"seq":5,"ts":"2026-01-01T00:00:04.000Z","type":"tool","tool_id":"t1","name":"Task","status":"success","result":"ok"}
{"seq":6,"ts":"2026-01-01T00:00:05.000Z","type":"tool","tool_id":"t3","name":"Bash","status":"running","args":{}}
{"seq":7,"ts":"2026-01-01T00:00:06.000Z","type":"tool","tool_id":"t3","name":"Bash","status":"error","error":"no"}
{"seq":8,"ts":"2026-01-01T00:00:07.000Z","type":"complete","status":"error","reason":"max_turns","turns":4,"duration_ms":7000,"total_tokens":{"in":1000,"out":50,"cache_read":800,"cache_write":100},"cost_usd":0.25,"warnings":2}
`

// A codex run: no cost, no cache figures.
const plain = `{"seq":0,"ts":"2026-01-01T00:00:00.000Z","type":"init","data":{"task":"","cwd":"/w","model":"gpt-5","agent":"codex"}}
{"seq":1,"ts":"2026-01-01T00:00:00.000Z","type":"message","role":"assistant","content":"hi"}
{"seq":2,"ts":"2026-01-01T00:00:03.000Z","type":"complete","status":"success","turns":1,"duration_ms":3000,"total_tokens":{"in":10,"out":5}}
`

func row(t *testing.T, dialog, file string) Row {
	t.Helper()
	d, err := dialogread.Read(strings.NewReader(dialog), nil)
	require.NoError(t, err)
	return FromDialog(d, file)
}

// TestDurationOfTheConversion: a dialog whose times are the converter's
// (a saved file without timestamps) has no known duration.
func TestDurationOfTheConversion(t *testing.T) {
	conv := strings.Replace(plain, `"agent":"codex"}`, `"agent":"codex","clock":"conversion"}`, 1)
	conv = strings.Replace(conv, `"duration_ms":3000`, `"duration_ms":0`, 1)
	assert.Nil(t, row(t, conv, "c.jsonl").DurationMS)
	assert.NotNil(t, row(t, plain, "p.jsonl").DurationMS)
}

func TestFromDialog(t *testing.T) {
	r := row(t, withSubagent, "a.jsonl")
	assert.Equal(t, "claude-code", r.Agent)
	assert.Equal(t, "m-1", r.Model)
	assert.Equal(t, "error", r.Status)
	assert.Equal(t, "max_turns", r.Reason)
	assert.EqualValues(t, 4, r.Turns)
	require.NotNil(t, r.DurationMS)
	assert.EqualValues(t, 7000, *r.DurationMS)
	assert.EqualValues(t, 1000, r.In)
	assert.EqualValues(t, 50, r.Out)
	assert.EqualValues(t, 800, r.CacheRead)
	assert.EqualValues(t, 100, r.CacheWrite)
	require.NotNil(t, r.CostUSD)
	assert.Equal(t, 0.25, *r.CostUSD)
	assert.Equal(t, 3, r.Tools)
	assert.Equal(t, 2, r.ToolErrors, "the subagent's failed call counts too")
	assert.EqualValues(t, 2, r.Warnings)
	assert.Equal(t, 1, r.Subagents)
	assert.Equal(t, "Fix the bug in a very long prompt that goes on and on and on…", r.Prompt)

	p := row(t, plain, "b.jsonl")
	assert.Nil(t, p.CostUSD, "no cost is unknown, not $0")
	assert.Empty(t, p.Prompt)
}

// TestReport: totals and groups are the sums of the runs' own figures,
// computed here by hand from the dialogs above.
func TestReport(t *testing.T) {
	rows := []Row{row(t, withSubagent, "a.jsonl"), row(t, plain, "b.jsonl"), row(t, plain, "c.jsonl")}
	rep, err := NewReport(rows, "agent")
	require.NoError(t, err)
	tot := rep.Totals
	assert.Equal(t, 3, tot.Runs)
	assert.EqualValues(t, 4+1+1, tot.Turns)
	assert.EqualValues(t, 7000+3000+3000, *tot.DurationMS)
	assert.EqualValues(t, 1000+10+10, tot.In)
	assert.EqualValues(t, 50+5+5, tot.Out)
	assert.Equal(t, 0.25, *tot.CostUSD, "runs without a cost add nothing")
	assert.Equal(t, 2, tot.ToolErrors)
	require.Len(t, rep.Groups, 2)
	assert.Equal(t, "claude-code", rep.Groups[0].Agent)
	assert.Equal(t, 1, rep.Groups[0].Runs)
	assert.Equal(t, "codex", rep.Groups[1].Agent)
	assert.Equal(t, 2, rep.Groups[1].Runs)
	assert.EqualValues(t, 20, rep.Groups[1].In)
	assert.Nil(t, rep.Groups[1].CostUSD)

	var out bytes.Buffer
	require.NoError(t, rep.Write(&out, "csv"))
	recs, err := csv.NewReader(&out).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 4, "a header and one row per run")
	assert.Equal(t, []string{"codex", "gpt-5", "success", "", "1", "3000", "10", "5", "0", "0", "", "0", "0", "0", "0", "", "b.jsonl"}, recs[2])

	out.Reset()
	require.NoError(t, rep.Write(&out, "json"))
	var back Report
	require.NoError(t, json.Unmarshal(out.Bytes(), &back))
	assert.EqualValues(t, 1020, back.Totals.In)
	assert.Len(t, back.Runs, 3)

	out.Reset()
	require.NoError(t, rep.Write(&out, "table"))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 1+3+1+2)
	assert.Contains(t, lines[4], "TOTAL")
	assert.Contains(t, lines[2], "3.0s")
	assert.Contains(t, lines[1], "$0.25")
	assert.Contains(t, lines[2], "—", "an unknown cost is shown as unknown")

	require.Error(t, rep.Write(&out, "yaml"))
	_, err = NewReport(rows, "colour")
	require.Error(t, err)
}

// TestUnsafeText: what a dialog holds reaches neither the terminal as an
// escape sequence nor a Markdown table as a column break or HTML.
func TestUnsafeText(t *testing.T) {
	r := Row{Runs: 1, Model: "m\x1b]52;c;aGk=\a|<b>x</b>", File: "f"}
	rep, err := NewReport([]Row{r}, "")
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, rep.Write(&out, "table"))
	assert.NotContains(t, out.String(), "\x1b")
	assert.NotContains(t, out.String(), "\a")
	out.Reset()
	require.NoError(t, rep.Write(&out, "markdown"))
	assert.Contains(t, out.String(), `m]52;c;aGk=\|&lt;b&gt;x&lt;/b&gt;`)
}

func TestSortBy(t *testing.T) {
	rows := []Row{row(t, plain, "b"), row(t, withSubagent, "a")}
	require.NoError(t, SortBy(rows, "cost"))
	assert.Equal(t, "a", rows[0].File)
	require.NoError(t, SortBy(rows, "file"))
	assert.Equal(t, "a", rows[0].File)
	require.Error(t, SortBy(rows, "colour"))
}

func TestDuration(t *testing.T) {
	for ms, want := range map[int64]string{0: "0ms", 850: "850ms", 12300: "12.3s", 245000: "4m05s", 7380000: "2h03m"} {
		assert.Equal(t, want, Duration(ms))
	}
}
