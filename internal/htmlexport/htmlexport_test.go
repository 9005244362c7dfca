package htmlexport_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	_ "github.com/ssebench/sse-dialog-convert/internal/golden" // accepts -update
	"github.com/ssebench/sse-dialog-convert/internal/htmlexport"
	"github.com/ssebench/sse-dialog-convert/internal/runstats"
)

func page(t *testing.T, dialogPath string, red *dialogread.Redactor) string {
	t.Helper()
	d := adaptertest.ReadDialog(t, dialogPath, red)
	var b bytes.Buffer
	require.NoError(t, htmlexport.Write(&b, d, htmlexport.Options{Source: "x"}))
	return b.String()
}

var (
	cspRe    = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`)
	scriptRe = regexp.MustCompile(`(?s)<script>(.*?)</script>`)
	styleRe  = regexp.MustCompile(`(?s)<style>(.*?)</style>`)
	dataRe   = regexp.MustCompile(`(?s)<script type="application/json" id="dialog-data">(.*?)</script>`)
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// TestPageIsSelfContained checks the policy against the page's own inline
// style and script, and that nothing in it points anywhere.
func TestPageIsSelfContained(t *testing.T) {
	html := page(t, "../../testdata/view/showcase.dialog.jsonl", nil)
	m := cspRe.FindStringSubmatch(html)
	require.NotNil(t, m)
	policy := strings.ReplaceAll(m[1], "&#39;", "'")
	require.Contains(t, policy, "default-src 'none'")
	scripts := scriptRe.FindAllStringSubmatch(html, -1)
	require.Len(t, scripts, 1, "one executable script")
	require.Contains(t, policy, "script-src '"+sha(scripts[0][1])+"'")
	style := styleRe.FindStringSubmatch(html)
	require.Contains(t, policy, "style-src '"+sha(style[1])+"'")
	require.NotContains(t, policy, "unsafe-inline")
	require.NotContains(t, policy, "unsafe-eval")
	for _, s := range []string{"http://", "https://", "src=", "<link", "@import", "url("} {
		require.NotContains(t, strings.Replace(html, dataRe.FindString(html), "", 1), s, "outside the data")
	}
}

// TestDataIsEscaped checks that no string of a hostile dialog can end the
// data block or a JS line, and that the data reads back as the dialog.
func TestDataIsEscaped(t *testing.T) {
	html := page(t, "../../testdata/view/xss.dialog.jsonl", nil)
	require.Equal(t, 2, strings.Count(html, "</script>"), "only the page's own closing tags")
	require.Equal(t, 1, strings.Count(html, "<script>"), "only the page's own script")
	require.NotContains(t, html, "<!--")
	require.NotContains(t, html, "\u2028")
	require.NotContains(t, html, "\u2029")
	data := dataRe.FindStringSubmatch(html)[1]
	require.NotContains(t, data, "<")
	var parsed struct {
		Nodes []struct {
			Kind    string `json:"k"`
			Content string `json:"c"`
			Name    string `json:"n"`
		} `json:"nodes"`
	}
	require.NoError(t, json.Unmarshal([]byte(data), &parsed))
	// 11 entries, one tool pair merged twice: 9 blocks.
	require.Len(t, parsed.Nodes, 9)
	require.Equal(t, "prompt", parsed.Nodes[1].Kind)
	require.Contains(t, parsed.Nodes[1].Content, "<script>window.__xss=1</script>")
	require.Contains(t, parsed.Nodes[1].Content, "\u2028line sep\u2029")
	require.Equal(t, "other", parsed.Nodes[6].Kind, "an unknown type is never a class name")
	require.Equal(t, "<img src=x onerror=window.__xss=22>", parsed.Nodes[6].Name)
}

// TestRedactedEverywhere: a secret in args keys and values, content,
// results, errors and init is gone from the page.
func TestRedactedEverywhere(t *testing.T) {
	red, err := dialogread.NewRedactor([]string{`window\.__xss=\d+`, `/w"`})
	require.NoError(t, err)
	html := page(t, "../../testdata/view/xss.dialog.jsonl", red)
	require.NotContains(t, html, "__xss")
	require.Contains(t, html, dialogread.DefaultMask)
}

// TestTitle: the title says task, agent and model.
func TestTitle(t *testing.T) {
	html := page(t, "../../testdata/view/showcase.dialog.jsonl", nil)
	require.Contains(t, html, "<title>parser-overflow · claude-code · claude-sonnet-4-6 · dialog</title>")
}

// A dialog whose init says its times are the conversion's: the page's
// data has no duration (null, drawn "—"), no date but "—", and no entry
// time, delta or tool duration; with the source's times they are there.
// The index's row says "—" too.
func TestTimesOfTheConversionAreUnknown(t *testing.T) {
	const lines = `{"seq":0,"ts":"2026-12-02T04:00:00.000Z","type":"init","data":{"task":"","cwd":"","model":"m","agent":"codex","clock":"%s"}}
{"seq":1,"ts":"2026-12-02T04:00:00.000Z","type":"tool","tool_id":"c1","name":"bash","status":"running","args":{"command":"ls"}}
{"seq":2,"ts":"2026-12-02T04:00:02.500Z","type":"tool","tool_id":"c1","name":"bash","status":"success","result":"a"}
{"seq":3,"ts":"2026-12-02T04:00:02.500Z","type":"complete","status":"success","turns":1,"duration_ms":0,"total_tokens":{"in":1,"out":1}}
`
	type pageJSON struct {
		Summary map[string]any   `json:"summary"`
		Nodes   []map[string]any `json:"nodes"`
	}
	write := func(clock string) (pageJSON, *dialogread.Dialog) {
		d, err := dialogread.Read(strings.NewReader(fmt.Sprintf(lines, clock)), nil)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, htmlexport.Write(&b, d, htmlexport.Options{Source: "x"}))
		var p pageJSON
		require.NoError(t, json.Unmarshal([]byte(dataRe.FindStringSubmatch(b.String())[1]), &p))
		return p, d
	}
	p, d := write("conversion")
	require.Contains(t, p.Summary, "duration_ms")
	require.Nil(t, p.Summary["duration_ms"], "null: unknown, drawn as —")
	require.Equal(t, "date —", p.Summary["start"])
	for _, n := range p.Nodes {
		for _, k := range []string{"t", "dt", "du"} {
			require.NotContains(t, n, k, "node %v", n["k"])
		}
	}
	var idx bytes.Buffer
	require.NoError(t, htmlexport.WriteIndex(&idx, "runs", []htmlexport.Run{{Href: "a.html", Source: "a", Summary: d.Summary()}}))
	require.Contains(t, idx.String(), `<td data-v="">—</td>`, "an unknown duration: no value to sort or sum")

	p, _ = write("source")
	require.Equal(t, 0.0, p.Summary["duration_ms"], "the source's times: 0 is a figure")
	require.Equal(t, "2026-12-02 04:00:00 UTC", p.Summary["start"])
	require.Equal(t, 2500.0, p.Nodes[1]["du"])
}

// The index has the stats command's columns, in its order (its CSV header
// names them), but the run first, and the task before the first prompt.
func TestIndexHasTheStatsColumns(t *testing.T) {
	d := adaptertest.ReadDialog(t, "../../testdata/view/showcase.dialog.jsonl", nil)
	row := runstats.FromDialog(d, "showcase")
	rep, err := runstats.NewReport([]runstats.Row{row}, "")
	require.NoError(t, err)
	var csv bytes.Buffer
	require.NoError(t, rep.Write(&csv, "csv"))
	head, _, _ := strings.Cut(csv.String(), "\n")
	want := strings.Split(strings.Replace(head, "duration_ms", "duration", 1), ",")
	// The run first (its link), the task before the first prompt.
	require.Equal(t, "file", want[len(want)-1])
	require.Equal(t, "prompt", want[len(want)-2])
	want = append([]string{"file"}, append(want[:len(want)-2:len(want)-2], "task", "prompt")...)

	var page bytes.Buffer
	require.NoError(t, htmlexport.WriteIndex(&page, "runs", []htmlexport.Run{
		{Href: "a.html", Source: "a.jsonl", Init: d.Init.Init, Summary: d.Summary(), Stats: &row},
		{Href: "b.html", Source: "b.jsonl", Init: d.Init.Init, Summary: d.Summary()},
	}))
	html := page.String()
	var got []string
	for _, m := range regexp.MustCompile(`<th data-col="([a-z_]+)"`).FindAllStringSubmatch(html, -1) {
		got = append(got, m[1])
	}
	require.Equal(t, want, got)
	// The run without its stats row: its subagents and first prompt are
	// unknown, and so are the totals' subagents; the one with it says the
	// showcase's one subagent (the Task call at seq 5).
	rows := regexp.MustCompile(`(?s)<tr class="st-[a-z]*">(.*?)</tr>`).FindAllStringSubmatch(html, -1)
	require.Len(t, rows, 2)
	cell := regexp.MustCompile(`<td data-v="([^"]*)"`)
	a, b := cell.FindAllStringSubmatch(rows[0][1], -1), cell.FindAllStringSubmatch(rows[1][1], -1)
	require.Equal(t, "1", a[15][1])
	require.Equal(t, "", b[15][1])
	require.Equal(t, "Fix the buffer overflow in src/parser.c and add a regression…", a[17][1], "the first prompt, cut at 60 characters")
	require.Contains(t, rows[1][1], `<td data-v="parser-overflow">parser-overflow</td><td data-v="">—</td>`, "the task known, the prompt not")
	require.Equal(t, a[5][1], b[5][1], "turns from the summary alike")
}
