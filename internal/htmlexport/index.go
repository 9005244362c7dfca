package htmlexport

import (
	"fmt"
	"html/template"
	"io"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
)

// Run is one row of the index: a dialog and the page it was written to.
type Run struct {
	Href    string // the page, relative to the index
	Source  string // the input it came from
	Init    *dialogread.Init
	Summary dialogread.Summary
	Err     string // why no page could be written, if so
}

type indexRow struct {
	Href, Source, Task, Agent, Model, Status, Reason, Err string
	Turns, Entries, Tools, Errors                         int64
	DurationMS                                            int64
	Duration                                              string
	TokensIn, TokensOut                                   int64
	Tokens                                                string
	Cost                                                  string
	CostMicros                                            int64
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
<header id="top"><h1>{{.Title}}</h1><div id="stats">{{len .Rows}} runs · click a column to sort</div></header>
<main>
<table id="runs">
<thead><tr>
<th data-type="text">run</th><th data-type="text">task</th><th data-type="text">agent</th><th data-type="text">model</th>
<th data-type="text">status</th><th data-type="num">turns</th><th data-type="num">duration</th>
<th data-type="num">tokens in/out</th><th data-type="num">cost</th><th data-type="num">tool calls</th><th data-type="num">tool errors</th><th data-type="num">entries</th>
</tr></thead>
<tbody>
{{range .Rows}}<tr class="st-{{.Status}}">
<td data-v="{{.Source}}">{{if .Href}}<a href="{{.Href}}">{{.Source}}</a>{{else}}{{.Source}}{{end}}{{if .Err}}<div class="err">{{.Err}}</div>{{end}}</td>
<td data-v="{{.Task}}">{{.Task}}</td><td data-v="{{.Agent}}">{{.Agent}}</td><td data-v="{{.Model}}">{{.Model}}</td>
<td data-v="{{.Status}}"><span class="badge st-{{.Status}}">{{.Status}}</span>{{if .Reason}} <span class="dim">{{.Reason}}</span>{{end}}</td>
<td data-v="{{.Turns}}">{{.Turns}}</td><td data-v="{{.DurationMS}}">{{.Duration}}</td>
<td data-v="{{.TokensIn}}">{{.Tokens}}</td><td data-v="{{.CostMicros}}">{{.Cost}}</td>
<td data-v="{{.Tools}}">{{.Tools}}</td><td data-v="{{.Errors}}"{{if .Errors}} class="err"{{end}}>{{.Errors}}</td><td data-v="{{.Entries}}">{{.Entries}}</td>
</tr>
{{end}}</tbody>
</table>
</main>
<script>{{.JS}}</script>
</body>
</html>
`

// WriteIndex writes index.html: a table of runs, sortable by any column.
func WriteIndex(w io.Writer, title string, runs []Run) error {
	rows := make([]indexRow, 0, len(runs))
	for _, r := range runs {
		s := r.Summary
		row := indexRow{Href: r.Href, Source: r.Source, Status: s.Status, Reason: s.Reason, Err: r.Err,
			Turns: s.Turns, Entries: int64(s.Entries), Tools: int64(s.Tools), Errors: int64(s.Errors),
			DurationMS: s.Duration.Milliseconds(), Duration: dialogread.FormatSummaryDuration(s)}
		if s.DurationUnknown {
			row.DurationMS = -1 // sorts before every known duration
		}
		if r.Err != "" {
			row.Status = "failed"
		}
		if r.Init != nil {
			row.Task, row.Agent, row.Model = r.Init.Task, r.Init.Agent, r.Init.Model
		}
		for _, p := range []*string{&row.Source, &row.Task, &row.Agent, &row.Model, &row.Status, &row.Reason, &row.Err} {
			*p = dialogread.MarkInvisible(*p)
		}
		if t := s.Tokens; t != nil {
			row.TokensIn, row.TokensOut = t.In, t.Out
			row.Tokens = dialogread.FormatCount(t.In) + " / " + dialogread.FormatCount(t.Out)
		}
		if s.CostUSD != nil {
			row.Cost = fmt.Sprintf("$%.4f", *s.CostUSD)
			row.CostMicros = int64(*s.CostUSD * 1e6)
		}
		rows = append(rows, row)
	}
	tmpl, err := template.New("index").Parse(indexPage)
	if err != nil {
		return err
	}
	return tmpl.Execute(w, map[string]any{
		"CSP":   csp(indexJS, pageCSS),
		"Title": title,
		"CSS":   template.CSS(pageCSS),
		"JS":    template.JS(indexJS),
		"Rows":  rows,
	})
}
