// Package view draws a dialog in a terminal: one block per entry, a tool
// call merged with its result (status icon, args on one line, the result
// folded to a few lines), a subagent's entries indented under its call,
// thinking dimmed, messages as Markdown, and a closing line with the run's
// figures. Text from the dialog is stripped of control characters before it
// reaches the terminal, so a dialog cannot move the cursor or retitle the
// window.
package view

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/editdiff"
	"github.com/ssebench/sse-dialog-convert/internal/termmd"
)

// Options say how to draw.
type Options struct {
	Width int  // columns; < 20 is taken as 20
	Color bool // SGR colours and dimming
	Full  bool // results unfolded
	// FoldLines is how many lines of a result are shown (0: DefaultFold).
	FoldLines int
}

// DefaultFold is how many lines of a tool result are shown when folded.
const DefaultFold = 4

// Renderer draws blocks. It keeps the Markdown renderer (and its parser)
// for the whole dialog.
type Renderer struct {
	opt Options
	md  *termmd.Renderer
	// controls is controlPattern compiled, on first need: most text has
	// no control character, and compiled at start-up it cost every
	// command, not only view.
	controls func() *regexp.Regexp
	// timesUnknown: the dialog's init said its times are the
	// conversion's (dialogread.Init.TimesUnknown): no date, no duration
	// taken from them is shown as the run's.
	timesUnknown bool
}

// New returns a Renderer.
func New(opt Options) *Renderer {
	if opt.Width < 20 {
		opt.Width = 20
	}
	if opt.FoldLines <= 0 {
		opt.FoldLines = DefaultFold
	}
	return &Renderer{opt: opt, md: termmd.New(opt.Color), controls: sync.OnceValue(compileControls)}
}

// Render draws a whole dialog: its nodes in order, subagents nested, and
// the closing line.
func Render(w io.Writer, d *dialogread.Dialog, opt Options) error {
	r := New(opt)
	var b strings.Builder
	// What a capped read left out is said before the dialog and again
	// before its ending, where a reader of a long view looks.
	banner := ""
	if msg := d.Banner(); msg != "" {
		banner = r.paint(bold+";"+yellow, "⚠ left out") + "\n" + r.text(msg, 0, yellow) + "\n"
	}
	b.WriteString(banner)
	var walk func([]*dialogread.Node)
	walk = func(ns []*dialogread.Node) {
		for _, n := range ns {
			b.WriteString(r.Node(n))
			if n.IsTool() && len(n.Children) > 0 {
				walk(n.Children)
				b.WriteString(r.SubagentEnd(n))
			}
		}
	}
	walk(d.Nodes)
	b.WriteString(banner)
	b.WriteString(r.Ending(d.Summary()))
	_, err := io.WriteString(w, b.String())
	return err
}

// SGR codes.
const (
	bold   = "1"
	dim    = "2"
	italic = "3"
	red    = "31"
	green  = "32"
	yellow = "33"
	blue   = "34"
	cyan   = "36"
)

func (r *Renderer) paint(code, s string) string {
	if !r.opt.Color || s == "" || code == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// guide is the left margin of an entry at depth d: a bar per subagent level.
func (r *Renderer) guide(depth int) string {
	if depth == 0 {
		return ""
	}
	return r.paint(dim, strings.Repeat("│ ", depth))
}

// Node draws one node (for a tool with subagent entries, only its head:
// the entries and SubagentEnd follow).
func (r *Renderer) Node(n *dialogread.Node) string {
	e := n.Entry
	g := r.guide(n.Depth)
	switch e.Type {
	case "init":
		head := g + r.paint(bold, "● session")
		r.timesUnknown = e.Init.TimesUnknown()
		switch {
		case r.timesUnknown:
			head += " " + r.paint(dim, "date "+dialogread.Unknown)
		case !e.Time.IsZero():
			head += " " + r.paint(dim, e.Time.UTC().Format("2006-01-02 15:04:05 UTC"))
		}
		parts := []string{}
		if in := e.Init; in != nil {
			for _, s := range []string{in.Agent, in.Model} {
				if s != "" {
					parts = append(parts, r.clean(s))
				}
			}
			if in.Task != "" {
				parts = append(parts, "task "+r.clean(in.Task))
			}
			if in.CWD != "" {
				parts = append(parts, r.clean(in.CWD))
			}
		}
		return head + "\n" + r.text(strings.Join(parts, " · "), n.Depth, "") + r.sep(n.Depth)
	case "prompt":
		return g + r.paint(bold+";"+blue, "▶ prompt") + "\n" + r.text(e.Content, n.Depth, "") + r.sep(n.Depth)
	case "thinking":
		return g + r.paint(dim+";"+italic, "✱ thinking") + "\n" + r.text(e.Content, n.Depth, dim+";"+italic) + r.sep(n.Depth)
	case "message":
		head := "◆ assistant"
		code := bold + ";" + green
		if e.IsWarning() {
			head, code = "⚠ warning", bold+";"+yellow
		}
		line := g + r.paint(code, head)
		if e.Tokens != nil {
			line += " " + r.paint(dim, "↓"+dialogread.FormatCount(e.Tokens.In)+" ↑"+dialogread.FormatCount(e.Tokens.Out))
		}
		return line + "\n" + r.markdown(e.Content, n.Depth) + r.sep(n.Depth)
	case "tool":
		return r.tool(n)
	case "complete":
		return "" // the ending line says it, with the figures
	}
	return g + r.paint(dim, "? "+r.clean(e.Type)) + "\n" + r.text(e.Content, n.Depth, dim) + r.sep(n.Depth)
}

// sep is the blank line after a block, with the subagent guides.
func (r *Renderer) sep(depth int) string {
	return strings.TrimRight(r.guide(depth), " ") + "\n"
}

// tool draws a call merged with its result: icon, name(args) and duration on
// one line, then the result or error, folded.
func (r *Renderer) tool(n *dialogread.Node) string {
	e := n.Entry
	g := r.guide(n.Depth)
	width := r.opt.Width - 2*n.Depth
	icon, code := "…", yellow
	switch n.Status() {
	case "success":
		icon, code = "✓", green
	case "error":
		icon, code = "✗", red
	}
	args := e.Args
	if args == nil && n.Result != nil {
		args = n.Result.Args
	}
	name := r.clean(e.Name)
	if name == "" {
		name = "tool"
	}
	tail := ""
	if d := n.Duration(); d > 0 && !r.timesUnknown {
		tail = " " + dialogread.FormatDuration(d)
	}
	diffs := editdiff.FromArgs(e.Name, args)
	var add, del int
	for _, f := range diffs {
		add, del = add+f.Added, del+f.Removed
	}
	if add+del > 0 { // Codex's changes name files without their text
		tail += fmt.Sprintf(" +%d −%d", add, del)
	}
	if len(n.Children) > 0 && n.Result != nil { // still running (--follow): more may come
		tail += " · " + plural(countNodes(n.Children), "subagent entry", "subagent entries")
	}
	summary := r.clean(dialogread.ArgsSummary(args))
	room := width - 2 - ansi.StringWidth(name) - 2 - ansi.StringWidth(tail)
	if room < 8 {
		room = 8
	}
	head := r.paint(code, icon) + " " + r.paint(bold, name) + "(" + ansi.Truncate(summary, room, "…") + ")" + r.paint(dim, tail)
	head = g + ansi.Truncate(head, width, "…") + "\n"
	if r.opt.Full {
		head += r.diffs(diffs, n.Depth)
	}
	if len(n.Children) > 0 {
		return head // the result follows the subagent's entries
	}
	return head + r.result(n) + r.sep(n.Depth)
}

// diffs draws edits as unified diffs (with --full).
func (r *Renderer) diffs(files []editdiff.File, depth int) string {
	g := r.guide(depth)
	width := max(r.opt.Width-2*depth-4, 10)
	var b strings.Builder
	for _, f := range files {
		b.WriteString(g + "  " + r.paint(bold, ansi.Truncate(r.clean(f.Kind+" "+f.Path), width, "…")) + "\n")
		for _, l := range f.Lines {
			text, code := string(l.Op)+" "+r.clean(l.Text), ""
			switch l.Op {
			case '+':
				code = green
			case '-':
				code = red
			case '@':
				text, code = r.clean(l.Text), cyan
			}
			b.WriteString(g + "  " + r.paint(code, ansi.Truncate(text, width, "…")) + "\n")
		}
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// SubagentEnd closes a tool with subagent entries, under them: the call's
// name, status and duration again (its head may be far above), and its
// result.
func (r *Renderer) SubagentEnd(n *dialogread.Node) string {
	icon, code, word := "…", yellow, "running"
	switch n.Status() {
	case "success":
		icon, code, word = "✓", green, "done"
	case "error":
		icon, code, word = "✗", red, "failed"
	}
	line := r.guide(n.Depth) + r.paint(code, icon) + " " + r.paint(bold, r.clean(n.Entry.Name)) + " " + word
	if d := n.Duration(); d > 0 && !r.timesUnknown {
		line += r.paint(dim, " "+dialogread.FormatDuration(d))
	}
	return line + "\n" + r.result(n) + r.sep(n.Depth)
}

func countNodes(ns []*dialogread.Node) int {
	c := len(ns)
	for _, n := range ns {
		c += countNodes(n.Children)
	}
	return c
}

// result draws a tool's result or error under ⎿, folded to FoldLines.
func (r *Renderer) result(n *dialogread.Node) string {
	g := r.guide(n.Depth)
	width := r.opt.Width - 2*n.Depth - 4
	res := n.Result
	var text, code string
	switch {
	case res == nil:
		return g + "  " + r.paint(dim, "⎿ running…") + "\n"
	case res.Status == "error":
		text, code = res.Error, red
		if text == "" {
			text = res.Result
		}
	default:
		text = res.Result
	}
	lines := strings.Split(strings.TrimRight(r.cleanOutput(text), "\n"), "\n")
	if len(lines) == 1 && strings.TrimSpace(lines[0]) == "" {
		if res.Status == "error" {
			return g + "  " + r.paint(red, "⎿ (error, no message)") + "\n"
		}
		return g + "  " + r.paint(dim, "⎿ (no output)") + "\n"
	}
	var b strings.Builder
	shown := lines
	if !r.opt.Full && len(lines) > r.opt.FoldLines {
		shown = lines[:r.opt.FoldLines]
	}
	for i, l := range shown {
		lead := "    "
		if i == 0 {
			lead = "  ⎿ "
		}
		// Folded results keep one screen line per line; --full wraps.
		var out []string
		if r.opt.Full {
			out = strings.Split(ansi.Hardwrap(l, max(width, 10), true), "\n")
		} else {
			out = []string{ansi.Truncate(l, max(width, 10), "…")}
		}
		for j, o := range out {
			if j > 0 {
				lead = "    "
			}
			b.WriteString(g + r.paint(dim, lead) + r.paint(code, o) + "\n")
		}
	}
	if rest := len(lines) - len(shown); rest > 0 {
		b.WriteString(g + "    " + r.paint(dim, fmt.Sprintf("… +%d lines (--full to show)", rest)) + "\n")
	}
	return b.String()
}

// text draws plain text wrapped and indented under an entry's head.
func (r *Renderer) text(s string, depth int, code string) string {
	g := r.guide(depth)
	width := r.opt.Width - 2*depth - 2
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(r.clean(s), "\n"), "\n") {
		for _, w := range strings.Split(ansi.Wrap(l, max(width, 10), ""), "\n") {
			b.WriteString(g + "  " + r.paint(code, strings.TrimRight(w, " ")) + "\n")
		}
	}
	return b.String()
}

// markdown draws a message as Markdown, indented under its head.
func (r *Renderer) markdown(s string, depth int) string {
	g := r.guide(depth)
	var b strings.Builder
	for _, l := range r.md.Render(r.clean(s), max(r.opt.Width-2*depth-2, termmd.MinWidth)) {
		if l == "" {
			b.WriteString(strings.TrimRight(g, " ") + "\n")
			continue
		}
		b.WriteString(g + "  " + l + "\n")
	}
	return b.String()
}

// Ending draws the closing line: status, turns, duration, tokens, cost,
// tool calls and errors.
func (r *Renderer) Ending(s dialogread.Summary) string {
	code := green
	switch s.Status {
	case "error":
		code = red
	case "timeout", "running":
		code = yellow
	}
	status := "■ " + r.clean(s.Status)
	if s.Reason != "" {
		status += " (" + r.clean(s.Reason) + ")"
	}
	parts := []string{plural(int(s.Turns), "turn", "turns"), dialogread.FormatSummaryDuration(s)}
	if t := s.Tokens; t != nil {
		tok := "tokens ↓" + dialogread.FormatCount(t.In) + " ↑" + dialogread.FormatCount(t.Out)
		var extra []string
		if t.CacheRead > 0 {
			extra = append(extra, "cache read "+dialogread.FormatCount(t.CacheRead))
		}
		if t.CacheWrite > 0 {
			extra = append(extra, "cache write "+dialogread.FormatCount(t.CacheWrite))
		}
		if t.Reasoning > 0 {
			extra = append(extra, "reasoning "+dialogread.FormatCount(t.Reasoning))
		}
		if len(extra) > 0 {
			tok += " (" + strings.Join(extra, ", ") + ")"
		}
		parts = append(parts, tok)
	}
	if s.CostUSD != nil {
		parts = append(parts, fmt.Sprintf("$%.4f", *s.CostUSD))
	}
	parts = append(parts, plural(s.Tools, "tool call", "tool calls"))
	if s.Errors > 0 {
		parts = append(parts, r.paint(red, plural(s.Errors, "tool error", "tool errors")))
	}
	if s.Warnings > 0 {
		parts = append(parts, plural(int(s.Warnings), "warning", "warnings"))
	}
	line := r.paint(bold+";"+code, status) + " · " + strings.Join(parts, " · ")
	out := wrapJoined(line, r.opt.Width) + "\n"
	if s.Message != "" {
		out += r.text(s.Message, 0, code)
	}
	return out
}

// wrapJoined wraps a closing line at its " · " joints.
func wrapJoined(line string, width int) string {
	if ansi.StringWidth(line) <= width {
		return line
	}
	return ansi.Wrap(line, width, "·")
}

// controlPattern matches what must not reach a terminal from the dialog:
// escape sequences and C0/C1 controls other than newline and tab.
const controlPattern = "\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)?|\x1b[@-Z\\\\-_]?|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u0080-\u009f]"

func compileControls() *regexp.Regexp { return regexp.MustCompile(controlPattern) }

// Clean makes dialog text safe and legible on a terminal: escape sequences
// and control characters are dropped, a carriage return ends a line (as in
// Markdown: the text written before it is shown), tabs become spaces, and
// bidirectional controls and invisible characters are shown as marks
// (dialogread.MarkInvisible), not applied. (A Renderer cleans with an
// expression compiled once; Clean compiles it when s needs it.)
func Clean(s string) string { return clean(s, compileControls, false) }

// CleanOutput is Clean for a tool's output, where a carriage return
// rewrites its line (a progress bar): a line keeps what was written over
// it last, after the mark ␍ that says something was written over.
func CleanOutput(s string) string { return clean(s, compileControls, true) }

func (r *Renderer) clean(s string) string { return clean(s, r.controls, false) }

func (r *Renderer) cleanOutput(s string) string { return clean(s, r.controls, true) }

// OverwrittenMark starts a line of tool output that was written over.
const OverwrittenMark = "␍"

func clean(s string, controls func() *regexp.Regexp, overwrite bool) string {
	s = dialogread.HideImages(s)
	if strings.Contains(s, "\r") {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			l = strings.TrimRight(l, "\r")
			if j := strings.LastIndexByte(l, '\r'); j >= 0 {
				if overwrite {
					l = OverwrittenMark + l[j+1:]
				} else {
					l = strings.ReplaceAll(l, "\r", "\n")
				}
			}
			lines[i] = l
		}
		s = strings.Join(lines, "\n")
	}
	if hasControl(s) {
		s = controls().ReplaceAllString(s, "")
	}
	return dialogread.MarkInvisible(strings.ReplaceAll(s, "\t", "    "))
}

// hasControl reports whether s holds a byte controlPattern could match: a C0
// control other than newline and tab, DEL, or a C1 control (U+0080 to
// U+009F, C2 80 to C2 9F). Most tool output has none, and a byte scan is
// far cheaper than the regular expression over all of it.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 && c != '\n' && c != '\t', c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
			return true
		}
	}
	return false
}
