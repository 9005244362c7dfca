// Package runstats sums dialogs up for comparing many runs: one row per run
// (agent, model, ending, turns, duration, tokens, cost, tool calls and
// errors, warnings, subagents, first prompt), totals, and sums by group,
// written as an aligned table, CSV, JSON or Markdown.
package runstats

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
)

// Row is one run, or a sum of runs (totals, a group).
type Row struct {
	File   string `json:"file,omitempty"`
	Agent  string `json:"agent,omitempty"`
	Model  string `json:"model,omitempty"`
	Status string `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Runs is how many runs the row sums up (1 for a run).
	Runs       int    `json:"runs"`
	Turns      int64  `json:"turns"`
	DurationMS *int64 `json:"duration_ms"` // nil: unknown
	In         int64  `json:"tokens_in"`
	Out        int64  `json:"tokens_out"`
	CacheRead  int64  `json:"tokens_cache_read"`
	CacheWrite int64  `json:"tokens_cache_write"`
	// CostUSD is nil when no run summed up gives a cost.
	CostUSD    *float64 `json:"cost_usd"`
	Tools      int      `json:"tool_calls"`
	ToolErrors int      `json:"tool_errors"`
	Warnings   int64    `json:"warnings"`
	Subagents  int      `json:"subagents"`
	Prompt     string   `json:"prompt,omitempty"`
	// Err says why a run could not be read; its figures are zero.
	Err string `json:"error,omitempty"`
}

// promptRunes is how much of the first prompt a row keeps.
const promptRunes = 60

// FromDialog sums one dialog up. A dialog with no complete entry (a run
// still going, a file cut short) has status "running" and the figures its
// entries show so far.
func FromDialog(d *dialogread.Dialog, file string) Row {
	s := d.Summary()
	r := Row{File: file, Runs: 1, Status: s.Status, Reason: s.Reason, Turns: s.Turns,
		Tools: s.Tools, ToolErrors: s.Errors, Warnings: s.Warnings, CostUSD: s.CostUSD}
	if d.Init != nil && d.Init.Init != nil {
		r.Agent, r.Model = d.Init.Init.Agent, d.Init.Init.Model
	}
	// A duration of the converter's own clock (init.data.clock
	// "conversion") says nothing of the run: unknown.
	if !s.DurationUnknown && (d.Complete != nil || !s.Start.IsZero()) {
		ms := s.Duration.Milliseconds()
		r.DurationMS = &ms
	}
	if t := s.Tokens; t != nil {
		r.In, r.Out, r.CacheRead, r.CacheWrite = t.In, t.Out, t.CacheRead, t.CacheWrite
	}
	if d.Prompt != nil {
		r.Prompt = oneLine(dialogread.HideImages(d.Prompt.Content), promptRunes)
	}
	var walk func([]*dialogread.Node)
	walk = func(ns []*dialogread.Node) {
		for _, n := range ns {
			if n.IsTool() && len(n.Children) > 0 {
				r.Subagents++
			}
			walk(n.Children)
		}
	}
	walk(d.Nodes)
	return r
}

// Failed is the row of a run that could not be read.
func Failed(file string, err error) Row {
	return Row{File: file, Runs: 1, Err: err.Error()}
}

// addKnown is the sum of a figure that may be unknown (nil): nil only
// when both are; a fresh pointer, so that no row shares its figure.
func addKnown[N int64 | float64](sum, v *N) *N {
	if v == nil {
		return sum
	}
	n := *v
	if sum != nil {
		n += *sum
	}
	return &n
}

// add adds run's figures to the sum s.
func (s *Row) add(run Row) {
	s.Runs += run.Runs
	s.Turns += run.Turns
	s.DurationMS = addKnown(s.DurationMS, run.DurationMS)
	s.In += run.In
	s.Out += run.Out
	s.CacheRead += run.CacheRead
	s.CacheWrite += run.CacheWrite
	s.CostUSD = addKnown(s.CostUSD, run.CostUSD)
	s.Tools += run.Tools
	s.ToolErrors += run.ToolErrors
	s.Warnings += run.Warnings
	s.Subagents += run.Subagents
}

// Totals sums every run up.
func Totals(rows []Row) Row {
	t := Row{File: "total"}
	for _, r := range rows {
		t.add(r)
	}
	return t
}

// GroupKeys are the values of --by.
var GroupKeys = []string{"agent", "model", "status"}

// Groups sums the runs up by agent, model or status, in the order each
// value first appears.
func Groups(rows []Row, by string) ([]Row, error) {
	key := map[string]func(Row) string{
		"agent":  func(r Row) string { return r.Agent },
		"model":  func(r Row) string { return r.Model },
		"status": func(r Row) string { return r.Status },
	}[by]
	if key == nil {
		return nil, fmt.Errorf("cannot group by %q: by one of %s", by, strings.Join(GroupKeys, ", "))
	}
	var groups []Row
	at := map[string]int{}
	for _, r := range rows {
		k := key(r)
		if r.Err != "" {
			k = "(unreadable)"
		}
		i, ok := at[k]
		if !ok {
			i = len(groups)
			at[k] = i
			g := Row{}
			switch by {
			case "agent":
				g.Agent = k
			case "model":
				g.Model = k
			case "status":
				g.Status = k
			}
			groups = append(groups, g)
		}
		groups[i].add(r)
	}
	return groups, nil
}

// Formats are the values of --format.
var Formats = []string{"table", "csv", "json", "markdown"}

// Report is what Write writes: the runs, their totals, and the groups when
// asked for.
type Report struct {
	Runs   []Row  `json:"runs"`
	Totals Row    `json:"totals"`
	By     string `json:"by,omitempty"`
	Groups []Row  `json:"groups,omitempty"`
}

// NewReport sums rows up, grouped by by ("" for no groups).
func NewReport(rows []Row, by string) (Report, error) {
	rep := Report{Runs: rows, Totals: Totals(rows), By: by}
	if by != "" {
		g, err := Groups(rows, by)
		if err != nil {
			return Report{}, err
		}
		rep.Groups = g
	}
	return rep, nil
}

// Write writes the report in format: table (aligned columns, for people),
// csv (one row per run, then nothing else: machine-readable), json (one
// object), markdown (a table for an issue or a PR).
func (rep Report) Write(w io.Writer, format string) error {
	switch format {
	case "table":
		return rep.table(w)
	case "csv":
		return rep.csv(w)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	case "markdown":
		return rep.markdown(w)
	}
	return fmt.Errorf("unknown format %q: one of %s", format, strings.Join(Formats, ", "))
}

// columns are the fields shown for a row, in order.
var columns = []string{"agent", "model", "status", "reason", "turns", "duration", "in", "out", "cache_read", "cache_write", "cost_usd", "tools", "tool_errors", "warnings", "subagents", "prompt", "file"}

// cells are a row's fields as text; unknown values are "—" for people and
// empty for CSV (unknown).
func (r Row) cells(unknown string) []string {
	dur, cost := unknown, unknown
	if r.DurationMS != nil {
		dur = strconv.FormatInt(*r.DurationMS, 10)
	}
	if r.CostUSD != nil {
		cost = strconv.FormatFloat(*r.CostUSD, 'f', 4, 64)
	}
	status, prompt := r.Status, r.Prompt
	if r.Err != "" {
		status, prompt = "unreadable", r.Err
	}
	i := strconv.FormatInt
	return []string{r.Agent, r.Model, status, r.Reason, i(r.Turns, 10), dur, i(r.In, 10), i(r.Out, 10),
		i(r.CacheRead, 10), i(r.CacheWrite, 10), cost, strconv.Itoa(r.Tools), strconv.Itoa(r.ToolErrors),
		i(r.Warnings, 10), strconv.Itoa(r.Subagents), prompt, r.File}
}

func (rep Report) csv(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := slices.Clone(columns)
	head[5] = "duration_ms"
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range rep.Runs {
		if err := cw.Write(r.cells("")); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// human is a row's cells for people: durations and big numbers read at a
// glance.
func (r Row) human() []string {
	c := r.cells("—")
	for i := range c {
		c[i] = printable(c[i])
	}
	if r.DurationMS != nil {
		c[5] = Duration(*r.DurationMS)
	}
	if r.CostUSD != nil {
		c[10] = "$" + strconv.FormatFloat(*r.CostUSD, 'f', 2, 64)
	}
	return c
}

// Duration is a duration in milliseconds as people read it: 850ms, 12.3s,
// 4m05s, 2h03m.
func Duration(ms int64) string {
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + "ms"
	case ms < 60_000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + "s"
	case ms < 3_600_000:
		return fmt.Sprintf("%dm%02ds", ms/60_000, ms/1000%60)
	}
	return fmt.Sprintf("%dh%02dm", ms/3_600_000, ms/60_000%60)
}

// sumCells are the cells of a sum: its label in place of the file, the
// number of runs in place of the prompt.
func sumCells(r Row, label string) []string {
	c := r.human()
	c[15] = strconv.Itoa(r.Runs) + " runs"
	if r.Runs == 1 {
		c[15] = "1 run"
	}
	c[16] = label
	return c
}

func (rep Report) table(w io.Writer) error {
	head := []string{"AGENT", "MODEL", "STATUS", "REASON", "TURNS", "DURATION", "IN", "OUT", "CACHE_R", "CACHE_W", "COST", "TOOLS", "ERR", "WARN", "SUB", "PROMPT", "FILE"}
	rows := [][]string{head}
	for _, r := range rep.Runs {
		rows = append(rows, r.human())
	}
	rows = append(rows, sumCells(rep.Totals, "TOTAL"))
	for _, g := range rep.Groups {
		rows = append(rows, sumCells(g, "by "+rep.By))
	}
	widths := make([]int, len(head))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	numeric := map[int]bool{4: true, 5: true, 6: true, 7: true, 8: true, 9: true, 10: true, 11: true, 12: true, 13: true, 14: true}
	var b strings.Builder
	for _, r := range rows {
		b.Reset()
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if numeric[i] {
				b.WriteString(pad + c)
			} else if i < len(r)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " ")); err != nil {
			return err
		}
	}
	return nil
}

func (rep Report) markdown(w io.Writer) error {
	line := func(cells []string) error {
		for i, c := range cells {
			cells[i] = markdownEscaper.Replace(c)
		}
		_, err := fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		return err
	}
	if err := line(slices.Clone(columns)); err != nil {
		return err
	}
	sep := make([]string, len(columns))
	for i := range sep {
		sep[i] = "---"
	}
	if err := line(sep); err != nil {
		return err
	}
	for _, r := range rep.Runs {
		if err := line(r.human()); err != nil {
			return err
		}
	}
	if err := line(sumCells(rep.Totals, "**total**")); err != nil {
		return err
	}
	for _, g := range rep.Groups {
		if err := line(sumCells(g, "by "+rep.By)); err != nil {
			return err
		}
	}
	return nil
}

// markdownEscaper keeps a cell one cell of text: no column break, no HTML.
var markdownEscaper = strings.NewReplacer(`\`, `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;", "&", "&amp;")

// printable drops control and invisible characters (an escape sequence in
// a model's or a file's name must not reach the terminal).
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) && r != ' ' {
			return -1
		}
		return r
	}, s)
}

// oneLine is s on one line (every run of white space one space, control
// and invisible characters dropped), cut to n runes with "…".
func oneLine(s string, n int) string {
	var b strings.Builder
	space, count := false, 0
	for _, r := range strings.TrimSpace(s) {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if !unicode.IsPrint(r) {
			continue
		}
		if space && b.Len() > 0 {
			if count++; count > n {
				break
			}
			b.WriteByte(' ')
		}
		space = false
		if count++; count > n {
			break
		}
		b.WriteRune(r)
	}
	if count > n {
		return strings.TrimRight(b.String(), " ") + "…"
	}
	return b.String()
}

// SortBy orders rows by a column, largest first for figures: for people
// who want the most expensive or slowest runs on top.
func SortBy(rows []Row, key string) error {
	less := map[string]func(a, b Row) int{
		"cost":     func(a, b Row) int { return cmp.Compare(orUnknown(b.CostUSD), orUnknown(a.CostUSD)) },
		"duration": func(a, b Row) int { return cmp.Compare(orUnknown(b.DurationMS), orUnknown(a.DurationMS)) },
		"tokens":   func(a, b Row) int { return cmp.Compare(b.In+b.Out, a.In+a.Out) },
		"turns":    func(a, b Row) int { return cmp.Compare(b.Turns, a.Turns) },
		"errors":   func(a, b Row) int { return cmp.Compare(b.ToolErrors, a.ToolErrors) },
		"file":     func(a, b Row) int { return strings.Compare(a.File, b.File) },
	}[key]
	if less == nil {
		return fmt.Errorf("cannot sort by %q: by one of cost, duration, tokens, turns, errors, file", key)
	}
	slices.SortStableFunc(rows, less)
	return nil
}

// orUnknown is *v, or -1 (below every figure) when v is nil (unknown).
func orUnknown[N int64 | float64](v *N) N {
	if v == nil {
		return -1
	}
	return *v
}
