// Package htmlexport writes a dialog as one self-contained HTML page that
// works offline, from file://, with nothing loaded from anywhere: the style
// and the script are inline and allowed by their hashes in a strict
// Content-Security-Policy, and the dialog is embedded as JSON data that the
// script draws lazily, inserting every string as text, never as HTML.
package htmlexport

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/editdiff"
)

//go:embed assets/page.css
var pageCSS string

//go:embed assets/page.js
var pageJS string

//go:embed assets/index.js
var indexJS string

// csp is the page's policy: nothing may load, only the page's own inline
// style and script (by hash) may apply or run; images only as data: URLs.
func csp(script, style string) string {
	return "default-src 'none'; script-src '" + hash(script) + "'; style-src '" + hash(style) +
		"'; img-src data:; base-uri 'none'; form-action 'none'"
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// Options describe the page.
type Options struct {
	// Source names the input the dialog came from, shown in the title.
	Source string
}

// node is one block of the timeline as the script reads it. Keys are short:
// a big dialog has tens of thousands.
type node struct {
	Parent  int                `json:"p"`            // index of the parent node, -1 at top level
	Kind    string             `json:"k"`            // entry type
	Seq     int64              `json:"s"`            // the entry's seq (the start's, for a tool)
	RSeq    *int64             `json:"rs,omitempty"` // the tool result's seq
	Time    string             `json:"t,omitempty"`  // clock time, UTC
	At      int64              `json:"at,omitempty"` // Unix ms, for spans (turn times, the timeline); used only with Time
	Delta   *int64             `json:"dt,omitempty"` // ms since the previous entry
	Dur     *int64             `json:"du,omitempty"` // ms from a tool call to its result
	Content string             `json:"c,omitempty"`  // message, thinking, prompt; complete's message
	Tokens  *dialogread.Tokens `json:"tk,omitempty"`
	Name    string             `json:"n,omitempty"`
	ID      string             `json:"id,omitempty"`
	Status  string             `json:"st,omitempty"`
	Reason  string             `json:"rn,omitempty"`
	Summary string             `json:"sm,omitempty"` // args on one line
	Args    json.RawMessage    `json:"a,omitempty"`
	Result  *string            `json:"r,omitempty"`
	Error   *string            `json:"e,omitempty"`
	Diffs   []diffFile         `json:"df,omitempty"`
	Err     bool               `json:"x,omitempty"`  // the node itself failed
	HasErr  bool               `json:"hx,omitempty"` // it or a node under it failed
	Kids    int                `json:"kc,omitempty"` // nodes under it
	Init    *dialogread.Init   `json:"in,omitempty"`
	Warn    bool               `json:"w,omitempty"` // a warning message (⚠ …)
}

type diffFile struct {
	Path    string     `json:"p,omitempty"`
	Kind    string     `json:"k,omitempty"`
	Lines   [][]string `json:"l,omitempty"` // [op, text]
	Added   int        `json:"a"`
	Removed int        `json:"r"`
}

type pageData struct {
	Title   string           `json:"title"`
	Source  string           `json:"source,omitempty"`
	Init    *dialogread.Init `json:"init,omitempty"`
	Summary summaryJSON      `json:"summary"`
	Skipped int              `json:"skipped,omitempty"`
	Nodes   []node           `json:"nodes"`
}

type summaryJSON struct {
	Status     string             `json:"status"`
	Reason     string             `json:"reason,omitempty"`
	Message    string             `json:"message,omitempty"`
	Turns      int64              `json:"turns"`
	DurationMS *int64             `json:"duration_ms"` // null: unknown (the conversion's clock)
	Tokens     *dialogread.Tokens `json:"tokens,omitempty"`
	CostUSD    *float64           `json:"cost_usd,omitempty"`
	Warnings   int64              `json:"warnings,omitempty"`
	Entries    int                `json:"entries"`
	Tools      int                `json:"tools"`
	Errors     int                `json:"errors"`
	Start      string             `json:"start,omitempty"`
}

// Title is the page's title for a dialog.
func Title(d *dialogread.Dialog, source string) string {
	parts := []string{}
	if d.Init != nil && d.Init.Init != nil {
		in := d.Init.Init
		for _, s := range []string{in.Task, in.Agent, in.Model} {
			if s != "" {
				parts = append(parts, s)
			}
		}
	}
	if len(parts) == 0 && source != "" {
		parts = append(parts, source)
	}
	return strings.Join(append(parts, "dialog"), " · ")
}

// Write writes the page of one dialog.
func Write(w io.Writer, d *dialogread.Dialog, opt Options) error {
	mark := dialogread.MarkInvisible
	data := pageData{Title: mark(Title(d, opt.Source)), Source: mark(opt.Source), Skipped: d.Skipped}
	if d.Init != nil {
		data.Init = markInit(d.Init.Init)
	}
	s := d.Summary()
	data.Summary = summaryJSON{Status: mark(s.Status), Reason: mark(s.Reason), Message: mark(s.Message), Turns: s.Turns,
		Tokens: s.Tokens, CostUSD: s.CostUSD, Warnings: s.Warnings,
		Entries: s.Entries, Tools: s.Tools, Errors: s.Errors}
	if !s.DurationUnknown {
		ms := s.Duration.Milliseconds()
		data.Summary.DurationMS = &ms
	}
	switch {
	case s.TimesUnknown:
		data.Summary.Start = "date " + dialogread.Unknown
	case !s.Start.IsZero():
		data.Summary.Start = s.Start.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	data.Nodes = flatten(d, s.TimesUnknown)

	// json.Marshal escapes <, > and & as \u003c…, and U+2028/U+2029, so
	// nothing in the data can end the script element or a JS line.
	js, err := json.Marshal(data)
	if err != nil {
		return err
	}
	return writePage(w, data.Title, d.Banner(), js)
}

// writePage writes the page; banner, when not empty, says what the page
// does not hold, above the timeline.
func writePage(w io.Writer, title, banner string, data []byte) error {
	var b bytes.Buffer
	b.Grow(len(data) + len(pageCSS) + len(pageJS) + 1024)
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", template.HTMLEscapeString(csp(pageJS, pageCSS)))
	b.WriteString("<meta name=\"referrer\" content=\"no-referrer\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n", template.HTMLEscapeString(title), pageCSS)
	body := pageBody
	if banner != "" { // in the header, which stays on screen
		body = strings.Replace(body, "</header>\n", "<p id=\"left-out\" class=\"err\" role=\"alert\">⚠ "+template.HTMLEscapeString(banner)+"</p>\n</header>\n", 1)
	}
	b.WriteString(body)
	b.WriteString("<script type=\"application/json\" id=\"dialog-data\">")
	b.Write(data)
	b.WriteString("</script>\n")
	fmt.Fprintf(&b, "<script>%s</script>\n</body>\n</html>\n", pageJS)
	_, err := w.Write(b.Bytes())
	return err
}

// pageBody is the page's frame; the script fills it.
const pageBody = `<header id="top">
<h1 id="title"></h1>
<div id="meta"></div>
<div id="stats"></div>
<div id="tools">
<input id="search" type="search" placeholder="Search all text  ( / )" autocomplete="off" spellcheck="false" aria-label="Search">
<span id="search-count" aria-live="polite"></span>
<button id="more-tools" type="button" aria-expanded="false" aria-controls="filters">filters</button>
<button id="nav-btn" type="button" aria-expanded="false" aria-controls="nav">prompts, timeline</button>
<div id="filters">
<label><input type="checkbox" id="f-message" checked> messages</label>
<label><input type="checkbox" id="f-thinking" checked> thinking</label>
<label><input type="checkbox" id="f-tool" checked> tools</label>
<label><input type="checkbox" id="f-errors"> errors only</label>
<select id="f-name" aria-label="Show the calls of one tool"><option value="">every tool</option></select>
<select id="f-sub" aria-label="Show one subagent"><option value="">every agent</option></select>
<button id="toggle-subagents" type="button">collapse subagents</button>
<span class="hint">j/k next/previous · / search · i prompts and timeline · Esc clear</span>
</div>
</div>
</header>
<aside id="nav" aria-label="Prompts and timeline" hidden>
<h2 id="prompts-head">Prompts</h2>
<ol id="prompts"></ol>
<h2>Timeline</h2>
<p class="hint">A row per thread (the main agent, then each subagent); tool calls that ran at the same time get rows of their own. Click a mark to go to its entry, or move along with the arrow keys and press Enter.</p>
<canvas id="lanes" tabindex="0" role="img" aria-label="Timeline of the dialog: a row per thread and per parallel tool call; arrow keys move along it, Enter goes to the entry"></canvas>
<p id="lanes-cur" class="hint" aria-live="polite"></p>
</aside>
<main id="timeline" aria-label="Dialog timeline"></main>
<noscript><p>This page draws the dialog with its script; enable scripts to see it.</p></noscript>
`

// flatten lists the nodes in document order (each parent before its
// children), with their parents' indexes.
// With timesUnknown (the conversion's clock), no node shows a time, a
// delta or a duration: they would be the conversion's.
func flatten(d *dialogread.Dialog, timesUnknown bool) []node {
	var out []node
	var prev time.Time
	var walk func(ns []*dialogread.Node, parent int) (int, bool)
	walk = func(ns []*dialogread.Node, parent int) (count int, hasErr bool) {
		for _, n := range ns {
			i := len(out)
			out = append(out, makeNode(n, parent, &prev))
			if timesUnknown {
				out[i].Time, out[i].Delta, out[i].Dur = "", nil, nil
			}
			kids, kidErr := walk(n.Children, i)
			out[i].Kids = kids
			out[i].HasErr = out[i].Err || kidErr
			count += 1 + kids
			hasErr = hasErr || out[i].HasErr
		}
		return count, hasErr
	}
	walk(d.Nodes, -1)
	return out
}

// markInit is in with its strings' invisible characters marked.
func markInit(in *dialogread.Init) *dialogread.Init {
	if in == nil {
		return nil
	}
	mark := dialogread.MarkInvisible
	return &dialogread.Init{Task: mark(in.Task), CWD: mark(in.CWD), Model: mark(in.Model), Agent: mark(in.Agent)}
}

// markNode shows the bidi controls and invisible characters of every text
// of n as marks (dialogread.MarkInvisible): the script inserts text as it
// is, and the browser would apply them.
func markNode(n *node) {
	mark := dialogread.MarkInvisible
	for _, p := range []*string{&n.Content, &n.Name, &n.ID, &n.Status, &n.Reason, &n.Summary} {
		*p = mark(*p)
	}
	for _, p := range []*string{n.Result, n.Error} {
		if p != nil {
			*p = mark(*p)
		}
	}
	n.Args = dialogread.MarkInvisibleJSON(n.Args)
	n.Init = markInit(n.Init)
	for i := range n.Diffs {
		f := &n.Diffs[i]
		f.Path, f.Kind = mark(f.Path), mark(f.Kind)
		for _, l := range f.Lines {
			for j := range l {
				l[j] = mark(l[j])
			}
		}
	}
}

func makeNode(n *dialogread.Node, parent int, prev *time.Time) node {
	out := makeNodeText(n, parent, prev)
	markNode(&out)
	return out
}

func makeNodeText(n *dialogread.Node, parent int, prev *time.Time) node {
	e := n.Entry
	out := node{Parent: parent, Kind: e.Type, Seq: e.Seq}
	switch e.Type {
	case "init", "prompt", "message", "thinking", "tool", "complete":
	default:
		out.Kind = "other" // the type is shown as text, never used as a class
	}
	if !e.Time.IsZero() {
		out.Time = e.Time.UTC().Format("15:04:05.000")
		out.At = e.Time.UnixMilli()
		if !prev.IsZero() {
			dt := e.Time.Sub(*prev).Milliseconds()
			out.Delta = &dt
		}
		*prev = e.Time
	}
	switch e.Type {
	case "init":
		out.Init = e.Init
	case "prompt", "thinking":
		out.Content = e.Content
	case "message":
		out.Content, out.Tokens = e.Content, e.Tokens
		out.Warn = e.IsWarning()
	case "tool":
		out.Name, out.ID, out.Status = e.Name, e.ToolID, n.Status()
		out.Summary = dialogread.ArgsSummary(e.Args)
		if e.Args != nil {
			out.Args = e.Args
		}
		if r := n.Result; r != nil {
			if r != e {
				rs := r.Seq
				out.RSeq = &rs
				if out.Args == nil && r.Args != nil {
					out.Args, out.Summary = r.Args, dialogread.ArgsSummary(r.Args)
				}
			}
			if r.Result != "" || r.Status == "success" {
				res := r.Result
				out.Result = &res
			}
			if r.Error != "" {
				er := r.Error
				out.Error = &er
			}
			if d := n.Duration(); d > 0 || (!r.Time.IsZero() && !e.Time.IsZero()) {
				ms := d.Milliseconds()
				out.Dur = &ms
			}
		}
		out.Err = out.Status == "error"
		for _, f := range editdiff.FromArgs(e.Name, out.Args) {
			df := diffFile{Path: f.Path, Kind: f.Kind, Added: f.Added, Removed: f.Removed}
			for _, l := range f.Lines {
				df.Lines = append(df.Lines, []string{string(l.Op), l.Text})
			}
			out.Diffs = append(out.Diffs, df)
		}
	case "complete":
		out.Status, out.Reason, out.Content = e.Status, e.Reason, e.Message
		out.Err = e.Status != "success"
	default:
		out.Name, out.Content = e.Type, e.Content
	}
	return out
}
