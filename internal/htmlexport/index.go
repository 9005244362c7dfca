package htmlexport

import (
	"errors"
	"html/template"
	"io"
	"strconv"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/runstats"
)

// Run is one row of the index: a dialog and the page it was written to.
type Run struct {
	Href   string // the page, relative to the index
	Source string // the input it came from
	// Stats is the run's row as the stats command sums it up. When nil,
	// the row is made from Init and Summary, and what they do not say
	// (subagents, the first prompt) is shown as unknown.
	Stats   *runstats.Row
	Init    *dialogread.Init
	Summary dialogread.Summary
	Err     string // why no page could be written, if so
}

// indexCell is one cell: its text, and the value it sorts and sums by
// (empty when unknown).
type indexCell struct {
	Text, Value string
}

type indexRow struct {
	Href, Source, Status, Err string
	Cells                     []indexCell // indexColumns, in order
}

// indexColumn is a column of the index: the stats command's columns, in
// its order (its CSV header names them), but the run first (it links to
// its page, and a wide table would push it off the screen), and the task.
type indexColumn struct {
	Name, Title string
	Num         bool // sorted as a number, largest first; summed in the totals
}

var indexColumns = []indexColumn{
	{"file", "run", false}, {"agent", "agent", false}, {"model", "model", false}, {"status", "status", false}, {"reason", "reason", false},
	{"turns", "turns", true}, {"duration", "duration", true}, {"in", "tokens in", true}, {"out", "tokens out", true},
	{"cache_read", "cache read", true}, {"cache_write", "cache write", true}, {"cost_usd", "cost", true},
	{"tools", "tool calls", true}, {"tool_errors", "tool errors", true}, {"warnings", "warnings", true},
	{"subagents", "subagents", true}, {"task", "task", false}, {"prompt", "first prompt", false},
}

// column is the index of the column named name in indexColumns.
func column(name string) int {
	for i, c := range indexColumns {
		if c.Name == name {
			return i
		}
	}
	panic("htmlexport: no index column " + name)
}

// unknown is the text of a value the dialog does not give.
const unknown = "—"

// rowOf is a run's row as stats makes it.
func rowOf(r Run) (runstats.Row, bool) {
	if r.Err != "" {
		return runstats.Failed(r.Source, errors.New(r.Err)), true
	}
	if r.Stats != nil {
		row := *r.Stats
		row.File = r.Source
		return row, true
	}
	s := r.Summary
	row := runstats.Row{File: r.Source, Runs: 1, Status: s.Status, Reason: s.Reason, Turns: s.Turns,
		Tools: s.Tools, ToolErrors: s.Errors, Warnings: s.Warnings, CostUSD: s.CostUSD}
	if r.Init != nil {
		row.Agent, row.Model = r.Init.Agent, r.Init.Model
	}
	if !s.DurationUnknown && (!s.Start.IsZero() || s.Duration > 0) {
		ms := s.Duration.Milliseconds()
		row.DurationMS = &ms
	}
	if t := s.Tokens; t != nil {
		row.In, row.Out, row.CacheRead, row.CacheWrite = t.In, t.Out, t.CacheRead, t.CacheWrite
	}
	return row, false // subagents and prompt not known
}

// cells are a row's cells in indexColumns' order.
func cells(r runstats.Row, task string, full bool) []indexCell {
	n := func(v int64) indexCell {
		s := strconv.FormatInt(v, 10)
		return indexCell{groupDigits(s), s}
	}
	t := func(s string) indexCell {
		if s == "" {
			return indexCell{}
		}
		return indexCell{s, s}
	}
	dur, cost := indexCell{unknown, ""}, indexCell{unknown, ""}
	if r.DurationMS != nil {
		dur = indexCell{runstats.Duration(*r.DurationMS), strconv.FormatInt(*r.DurationMS, 10)}
	}
	if r.CostUSD != nil {
		cost = indexCell{"$" + strconv.FormatFloat(*r.CostUSD, 'f', 4, 64), strconv.FormatFloat(*r.CostUSD, 'f', -1, 64)}
	}
	status, prompt := t(r.Status), t(r.Prompt)
	if r.Err != "" {
		status, prompt = indexCell{"unreadable", "unreadable"}, t(r.Err)
	}
	sub := n(int64(r.Subagents))
	if !full {
		sub, prompt = indexCell{unknown, ""}, indexCell{unknown, ""}
	}
	byName := map[string]indexCell{"agent": t(r.Agent), "model": t(r.Model), "status": status, "reason": t(r.Reason),
		"turns": n(r.Turns), "duration": dur, "in": n(r.In), "out": n(r.Out), "cache_read": n(r.CacheRead),
		"cache_write": n(r.CacheWrite), "cost_usd": cost, "tools": n(int64(r.Tools)), "tool_errors": n(int64(r.ToolErrors)),
		"warnings": n(r.Warnings), "subagents": sub, "task": t(task), "prompt": prompt, "file": t(r.File)}
	out := make([]indexCell, len(indexColumns))
	for i, c := range indexColumns {
		out[i] = byName[c.Name]
		if r.Err != "" && c.Num {
			out[i] = indexCell{unknown, ""} // not read: no figure is known
		}
	}
	return out
}

// groupDigits writes 1234567 as 1,234,567.
func groupDigits(s string) string {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// indexPage is the index's template, parsed when an index is written:
// parsed at start-up it was a twentieth of every command's start, export
// or not.
const indexPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body class="index">
<header id="top"><h1>{{.Title}}</h1>
<div id="tools"><input id="filter" type="search" placeholder="Filter runs (any column)" autocomplete="off" spellcheck="false" aria-label="Filter runs">
<span id="stats" aria-live="polite">{{len .Rows}} runs</span><span class="hint">click a column to sort · — unknown</span></div></header>
<main>
<table id="runs">
<thead><tr>{{range .Columns}}<th data-col="{{.Name}}" data-type="{{if .Num}}num{{else}}text{{end}}" scope="col">{{.Title}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr class="st-{{.Status}}">{{$r := .}}{{range $i, $c := .Cells}}{{if eq $i $.FileCol}}<td data-v="{{$c.Value}}">{{if $r.Href}}<a href="{{$r.Href}}">{{$c.Text}}</a>{{else}}{{$c.Text}}{{end}}</td>{{else if eq $i $.StatusCol}}<td data-v="{{$c.Value}}"><span class="badge st-{{$r.Status}}">{{$c.Text}}</span></td>{{else}}<td data-v="{{$c.Value}}"{{if and (eq $i $.ErrCol) (ne $c.Value "0")}} class="num err"{{else if index $.Num $i}} class="num"{{end}}>{{$c.Text}}</td>{{end}}{{end}}</tr>
{{end}}</tbody>
<tfoot><tr id="totals">{{range $i, $c := .Totals}}{{if eq $i $.FileCol}}<th scope="row">total</th>{{else}}<td>{{$c.Text}}</td>{{end}}{{end}}</tr></tfoot>
</table>
</main>
<script>{{.JS}}</script>
</body>
</html>
`

// WriteIndex writes index.html: the stats command's table of the runs, one
// row per run with its totals, each row linking to its page, sortable by
// any column and filterable.
func WriteIndex(w io.Writer, title string, runs []Run) error {
	rows := make([]indexRow, 0, len(runs))
	stats := make([]runstats.Row, 0, len(runs))
	allFull := true
	for _, r := range runs {
		row, full := rowOf(r)
		allFull = allFull && full
		stats = append(stats, row)
		task := ""
		if r.Init != nil {
			task = r.Init.Task
		}
		ir := indexRow{Href: r.Href, Source: dialogread.MarkInvisible(r.Source), Status: row.Status, Err: dialogread.MarkInvisible(r.Err), Cells: cells(row, task, full)}
		for i := range ir.Cells {
			ir.Cells[i].Text = dialogread.MarkInvisible(ir.Cells[i].Text)
			ir.Cells[i].Value = dialogread.MarkInvisible(ir.Cells[i].Value)
		}
		if r.Err != "" {
			ir.Status = "failed"
		}
		rows = append(rows, ir)
	}
	tot := runstats.Totals(stats)
	totals := cells(tot, "", allFull)
	for i, c := range indexColumns {
		if !c.Num {
			totals[i] = indexCell{}
		}
	}
	prompt := column("prompt")
	totals[prompt] = indexCell{Text: strconv.Itoa(tot.Runs) + " runs"}
	if tot.Runs == 1 {
		totals[prompt].Text = "1 run"
	}
	nums := make([]bool, len(indexColumns))
	for i, c := range indexColumns {
		nums[i] = c.Num
	}
	tmpl, err := template.New("index").Parse(indexPage)
	if err != nil {
		return err
	}
	return tmpl.Execute(w, map[string]any{
		"CSP":       csp(indexJS, pageCSS),
		"Title":     title,
		"CSS":       template.CSS(pageCSS),
		"JS":        template.JS(indexJS),
		"Columns":   indexColumns,
		"Num":       nums,
		"Rows":      rows,
		"Totals":    totals,
		"FileCol":   column("file"),
		"StatusCol": column("status"),
		"ErrCol":    column("tool_errors"),
	})
}
