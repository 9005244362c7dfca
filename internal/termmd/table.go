package termmd

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Tables: goldmark's GFM extension package costs every process ~1 ms of
// initialisation (its link and typographer expressions), so a paragraph
// whose second line is a delimiter row (|---|:--:|) is taken as a pipe table
// here and drawn in aligned columns, its cells parsed as inline Markdown.

// isTable reports whether a paragraph's lines are a pipe table: a row with
// a pipe, then a delimiter row, cells of dashes with colons for alignment.
func isTable(lines []string) bool {
	if len(lines) < 2 || !strings.Contains(lines[0], "|") || !strings.Contains(lines[1], "|") {
		return false
	}
	for _, c := range cells(lines[1]) {
		c = strings.TrimSuffix(strings.TrimPrefix(c, ":"), ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return true
}

// cells splits a table row at its unescaped pipes.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var out []string
	start := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			out = append(out, strings.TrimSpace(row[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(row[start:]))
}

type align int

const (
	alignLeft align = iota
	alignCenter
	alignRight
)

// table draws a pipe table in columns separated by │, the header bold and
// ruled off. Columns too wide for width share it, their cells wrapped; with
// too little room for three columns' worth each, the source lines are shown.
func (d *drawing) table(lines []string, width int) []string {
	head := cells(lines[0])
	n := len(head)
	aligns := make([]align, n)
	for j, c := range cells(lines[1]) {
		if j >= n {
			break
		}
		switch l, r := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":"); {
		case l && r:
			aligns[j] = alignCenter
		case r:
			aligns[j] = alignRight
		}
	}
	sepW := 3 * (n - 1)
	avail := width - sepW
	if avail < 3*n {
		return d.pre(lines, width, 0)
	}
	rows := [][]string{head}
	for _, l := range lines[2:] {
		rows = append(rows, cells(l))
	}
	spans := make([][][]span, len(rows))
	colW := make([]int, n)
	for i, row := range rows {
		spans[i] = make([][]span, n)
		for j := 0; j < n && j < len(row); j++ {
			st := style(0)
			if i == 0 {
				st = stBold
			}
			spans[i][j] = d.cell(row[j], st)
			colW[j] = min(max(colW[j], ansi.StringWidth(plain(spans[i][j]))), avail)
		}
	}
	for sum(colW) > avail { // narrow the widest column until they fit
		w := 0
		for j := range colW {
			if colW[j] > colW[w] {
				w = j
			}
		}
		colW[w]--
	}
	bar := d.paint(stDim, " │ ")
	var out []string
	for i, row := range spans {
		cellLines := make([][]string, n)
		height := 1
		for j, c := range row {
			cellLines[j] = d.wrap(c, max(colW[j], 1))
			height = max(height, len(cellLines[j]))
		}
		for k := 0; k < height; k++ {
			parts := make([]string, n)
			for j := range n {
				var s string
				if k < len(cellLines[j]) {
					s = cellLines[j][k]
				}
				parts[j] = pad(s, colW[j], aligns[j])
			}
			out = append(out, truncate(strings.TrimRight(strings.Join(parts, bar), " "), width))
		}
		if i == 0 {
			rules := make([]string, n)
			for j, w := range colW {
				rules[j] = strings.Repeat("─", w)
			}
			out = append(out, d.paint(stDim, strings.Join(rules, "─┼─")))
		}
	}
	return out
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// pad fills a drawn cell line to width w as aligned.
func pad(s string, w int, a align) string {
	gap := max(w-ansi.StringWidth(s), 0)
	switch a {
	case alignRight:
		return strings.Repeat(" ", gap) + s
	case alignCenter:
		return strings.Repeat(" ", gap/2) + s + strings.Repeat(" ", gap-gap/2)
	}
	return s + strings.Repeat(" ", gap)
}

// cell draws a table cell's inline Markdown as spans in style st; a cell
// that parses as anything but one paragraph (say "- x", "# x") is its text.
func (d *drawing) cell(src string, st style) []span {
	sub := &drawing{r: d.r, src: []byte(src)}
	doc := d.r.p.Parse(text.NewReader(sub.src))
	if p, ok := doc.FirstChild().(*ast.Paragraph); ok && p.NextSibling() == nil {
		return sub.inlines(p, st)
	}
	return []span{{text: clean(src), st: st}}
}
