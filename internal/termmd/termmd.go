// Package termmd draws Markdown for a terminal: paragraphs wrapped to a
// width, headings, emphasis, code, lists, quotes, links with their URL,
// tables as aligned columns. It parses with goldmark's core parser and
// draws the tree itself, without syntax colouring, HTML sanitising or emoji
// tables: their package initialisation cost every process of the converter
// ~24 ms. Whatever the source holds, the output has no control character
// and no escape sequence but the SGR codes it adds when colour is on, and no
// line wider than the width.
package termmd

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// MinWidth is the narrowest width drawn; a smaller one is taken as this.
// Nested blocks stop indenting rather than go narrower.
const MinWidth = 10

// Renderer draws Markdown. It keeps its parser between calls; it is not
// safe for concurrent use.
type Renderer struct {
	p     parser.Parser
	color bool
}

// New returns a Renderer; color turns SGR codes on.
func New(color bool) *Renderer {
	p := parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
	return &Renderer{p: p, color: color}
}

// Render draws src in lines of at most width columns. Blocks are separated
// by one empty line; there is none first or last.
func (r *Renderer) Render(src string, width int) []string {
	lines, _ := r.render(src, width)
	return lines
}

// render is Render, also returning how many bytes cutting words measured.
func (r *Renderer) render(src string, width int) ([]string, int) {
	width = max(width, MinWidth)
	source := []byte(src)
	doc := r.p.Parse(text.NewReader(source))
	d := &drawing{r: r, src: source}
	return d.blocks(doc, width, 0), d.measured
}

// drawing is one Render call: the source the tree's segments point into.
type drawing struct {
	r   *Renderer
	src []byte
	// measured counts the bytes cutWidth measured: the cost of cutting
	// words into lines, which tests hold to the text's length.
	measured int
}

// style is a set of inline looks, turned into SGR codes when colour is on.
type style uint8

const (
	stBold style = 1 << iota
	stItalic
	stCode
	stLink
	stURL
	stHeading
	stDim
)

// sgr is the SGR parameter string for st.
func sgr(st style) string {
	var codes []string
	if st&(stBold|stHeading) != 0 {
		codes = append(codes, "1")
	}
	if st&(stDim|stURL) != 0 {
		codes = append(codes, "2")
	}
	if st&stItalic != 0 {
		codes = append(codes, "3")
	}
	if st&stLink != 0 {
		codes = append(codes, "4")
	}
	switch {
	case st&stHeading != 0:
		codes = append(codes, "35")
	case st&stCode != 0:
		codes = append(codes, "36")
	case st&stLink != 0:
		codes = append(codes, "34")
	}
	return strings.Join(codes, ";")
}

func (d *drawing) paint(st style, s string) string {
	if !d.r.color || st == 0 || s == "" {
		return s
	}
	return "\x1b[" + sgr(st) + "m" + s + "\x1b[0m"
}

// maxDepth bounds how deep blocks nest before the rest of a branch is
// drawn flat, so that hostile input cannot exhaust the stack.
const maxDepth = 100

// blocks draws the block children of n, an empty line between them where
// Markdown has one (not between the parts of a tight list item).
func (d *drawing) blocks(n ast.Node, width, depth int) []string {
	var out []string
	var prev ast.Node
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		lines := trimEmpty(d.block(c, width, depth+1))
		if len(lines) == 0 {
			continue
		}
		if prev != nil && !tight(prev, c) {
			out = append(out, "")
		}
		out = append(out, lines...)
		prev = c
	}
	return out
}

// tight reports whether two sibling blocks are drawn without an empty line
// between them: the parts of a tight list's item.
func tight(prev, next ast.Node) bool {
	return prev.Kind() == ast.KindTextBlock || next.Kind() == ast.KindTextBlock
}

func (d *drawing) block(n ast.Node, width, depth int) []string {
	if depth > maxDepth {
		return d.flat(n, width)
	}
	switch n := n.(type) {
	case *ast.Paragraph:
		if lines := d.lines(n); isTable(lines) {
			return d.table(lines, width)
		}
		return d.wrap(d.inlines(n, 0), width)
	case *ast.TextBlock:
		return d.wrap(d.inlines(n, 0), width)
	case *ast.Heading:
		spans := append([]span{{text: strings.Repeat("#", n.Level) + " ", st: stHeading}}, d.inlines(n, stHeading)...)
		return d.wrap(spans, width)
	case *ast.ThematicBreak:
		return []string{d.paint(stDim, strings.Repeat("─", width))}
	case *ast.CodeBlock, *ast.FencedCodeBlock:
		return d.indent(d.pre(d.lines(n), inner(width, 2), stCode), "  ", "  ", width)
	case *ast.HTMLBlock:
		lines := d.lines(n)
		if n.HasClosure() {
			lines = append(lines, strings.TrimRight(string(n.ClosureLine.Value(d.src)), "\r\n"))
		}
		return d.pre(lines, width, 0)
	case *ast.Blockquote:
		bar := d.paint(stDim, ">")
		return d.indent(d.blocks(n, inner(width, 2), depth), bar+" ", bar+" ", width)
	case *ast.List:
		return d.list(n, width, depth)
	}
	return d.blocks(n, width, depth)
}

// flat draws a block nested too deep: its text, wrapped, without structure.
func (d *drawing) flat(n ast.Node, width int) []string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && c.Type() == ast.TypeBlock && c.Lines() != nil {
			for i := 0; i < c.Lines().Len(); i++ {
				seg := c.Lines().At(i)
				b.Write(seg.Value(d.src))
				b.WriteByte(' ')
			}
		}
		return ast.WalkContinue, nil
	})
	return d.wrap([]span{{text: clean(b.String())}}, width)
}

// list draws a list's items under bullets (•, ◦, ▪ by nesting) or numbers.
func (d *drawing) list(l *ast.List, width, depth int) []string {
	bullets := []string{"•", "◦", "▪"}
	level := 0
	for p := l.Parent(); p != nil; p = p.Parent() {
		if _, ok := p.(*ast.List); ok {
			level++
		}
	}
	var out []string
	num := l.Start
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := bullets[level%len(bullets)] + " "
		if l.IsOrdered() {
			marker = fmt.Sprintf("%d%c ", num, l.Marker)
			num++
		}
		pad := strings.Repeat(" ", ansi.StringWidth(marker))
		lines := d.indent(d.blocks(item, inner(width, len(pad)), depth), marker, pad, width)
		if len(lines) == 0 {
			lines = []string{strings.TrimRight(marker, " ")}
		}
		if len(out) > 0 && !l.IsTight {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

// inner is the width left inside an indent of k columns: the whole width
// where that would be less than MinWidth (indent then indents nothing).
func inner(width, k int) int {
	if width-k < MinWidth {
		return width
	}
	return width - k
}

// indent puts first before the first line and rest before the others
// (blank lines get them without trailing spaces). Where that would leave
// less than MinWidth for the text, the lines were drawn at full width: the
// marker goes on a line of its own and nothing is indented.
func (d *drawing) indent(lines []string, first, rest string, width int) []string {
	if len(lines) == 0 {
		return nil
	}
	if width-ansi.StringWidth(first) < MinWidth {
		if m := strings.TrimSpace(first); m != "" && strings.TrimSpace(rest) == "" {
			return append([]string{m}, lines...)
		}
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		p := rest
		if i == 0 {
			p = first
		}
		if l == "" {
			p = strings.TrimRight(p, " ")
		}
		out[i] = p + l
	}
	return out
}

// lines is a block's source lines, without their line ends.
func (d *drawing) lines(n ast.Node) []string {
	segs := n.Lines()
	out := make([]string, 0, segs.Len())
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		out = append(out, strings.TrimRight(string(seg.Value(d.src)), "\r\n"))
	}
	return out
}

// pre draws lines as they are, cleaned, broken where wider than width,
// without empty lines first or last.
func (d *drawing) pre(lines []string, width int, st style) []string {
	width = max(width, MinWidth)
	for len(lines) > 0 && strings.TrimSpace(clean(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(clean(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	var out []string
	for _, l := range lines {
		l = strings.TrimRight(clean(l), " ")
		if l == "" {
			out = append(out, "")
			continue
		}
		for l != "" {
			head := d.cutWidth(l, width)
			out = append(out, d.paint(st, head))
			l = l[len(head):]
		}
	}
	return out
}

// cutWidth is the longest prefix of s at most width columns wide, whole
// graphemes; at least one rune, so that a caller always moves on. Only a
// prefix of s that can hold width columns is measured, so that cutting a
// long word into lines costs its length once, not once per line.
func (d *drawing) cutWidth(s string, width int) string {
	m := measured(s, width)
	d.measured += len(m)
	head := ansi.Truncate(m, width, "")
	if !strings.HasPrefix(s, head) {
		head = "" // not expected for text without escapes
	}
	if head == "" && s != "" {
		_, n := utf8.DecodeRuneInString(s)
		head = s[:n]
	}
	return head
}

// measured is the part of s that cutWidth measures: enough bytes for width
// columns of four-byte characters with a long grapheme after them, cut on a
// rune boundary. A line of zero-width characters longer than that is drawn
// over several lines, never wider than width.
func measured(s string, width int) string {
	n := 4*(width+1) + 64
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// clean makes source text safe for a terminal: invalid UTF-8 becomes
// U+FFFD, tabs four spaces, newlines spaces, and other C0 and C1 controls
// (ESC among them) are dropped. Entity references such as &#27; can
// produce them after the caller's own cleaning.
func clean(s string) string {
	ok := utf8.ValidString(s)
	for i := 0; ok && i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f {
			ok = false
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for _, c := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case c == '\t':
			b.WriteString("    ")
		case c == '\n':
			b.WriteByte(' ')
		case c < 0x20, c >= 0x7f && c <= 0x9f:
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// span is inline text in one style; brk is a hard line break.
type span struct {
	text string
	st   style
	brk  bool
}

// inlines draws the inline children of n as spans in style st and more.
func (d *drawing) inlines(n ast.Node, st style) []span {
	var out []span
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = d.inline(out, c, st)
	}
	return out
}

func (d *drawing) inline(out []span, n ast.Node, st style) []span {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Value(d.src)
		if !n.IsRaw() {
			v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
		}
		out = append(out, span{text: clean(string(v)), st: st})
		switch {
		case n.HardLineBreak():
			out = append(out, span{brk: true})
		case n.SoftLineBreak():
			out = append(out, span{text: " ", st: st})
		}
		return out
	case *ast.String:
		return append(out, span{text: clean(string(n.Value)), st: st})
	case *ast.CodeSpan:
		var b strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Value(d.src))
			}
		}
		return append(out, span{text: clean(b.String()), st: st | stCode})
	case *ast.Emphasis:
		if n.Level >= 2 {
			return append(out, d.inlines(n, st|stBold)...)
		}
		return append(out, d.inlines(n, st|stItalic)...)
	case *ast.Link:
		label := d.inlines(n, st|stLink)
		out = append(out, label...)
		if url := clean(string(n.Destination)); url != "" && url != plain(label) {
			out = append(out, span{text: " (", st: st}, span{text: url, st: st | stURL}, span{text: ")", st: st})
		}
		return out
	case *ast.AutoLink:
		return append(out, span{text: clean(string(n.Label(d.src))), st: st | stLink})
	case *ast.Image:
		alt := d.inlines(n, st)
		if plain(alt) == "" {
			alt = []span{{text: "image", st: st | stDim}}
		}
		return append(out, alt...)
	case *ast.RawHTML:
		var b strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(d.src))
		}
		return append(out, span{text: clean(b.String()), st: st})
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = d.inline(out, c, st)
	}
	return out
}

// plain is the text of spans.
func plain(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(s.text)
	}
	return b.String()
}

// piece is part of a word in one style.
type piece struct {
	text string
	st   style
}

// wrap fills lines of at most width columns with the spans' words, breaking
// at spaces, and inside a word only when it is wider than a line.
func (d *drawing) wrap(spans []span, width int) []string {
	var lines []string
	var line, word []piece
	lineW, wordW := 0, 0
	flushLine := func() {
		// Pieces measured apart can join into a wider grapheme (a
		// variation selector in another style): cut rather than overflow.
		lines = append(lines, truncate(d.draw(line), width))
		line, lineW = nil, 0
	}
	flushWord := func() {
		if wordW == 0 {
			word = nil
			return
		}
		if lineW > 0 && lineW+1+wordW > width {
			flushLine()
		}
		if lineW > 0 {
			// The space takes the style of the words on both sides, if
			// one, so that a bold phrase is one run, underlined throughout.
			sp := piece{text: " "}
			if last := line[len(line)-1]; last.st == word[0].st {
				sp.st = last.st
			}
			line = append(line, sp)
			lineW++
		}
		for _, p := range word {
			for p.text != "" {
				room := width - lineW
				head := d.cutWidth(p.text, room)
				w := ansi.StringWidth(head)
				if w > room && lineW > 0 {
					flushLine()
					continue
				}
				line = append(line, piece{text: head, st: p.st})
				lineW += w
				p.text = p.text[len(head):]
				if p.text != "" {
					flushLine()
				}
			}
		}
		word, wordW = nil, 0
	}
	for _, s := range spans {
		if s.brk {
			flushWord()
			flushLine()
			continue
		}
		t := s.text
		for t != "" {
			i := strings.IndexByte(t, ' ')
			if i < 0 {
				i = len(t)
			}
			if i > 0 {
				word = append(word, piece{text: t[:i], st: s.st})
				wordW += ansi.StringWidth(t[:i])
			}
			if i < len(t) {
				flushWord()
				i++
			}
			t = t[i:]
		}
	}
	flushWord()
	if lineW > 0 || len(lines) > 0 {
		flushLine()
	}
	// A hard break first or last leaves an empty line there.
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	return lines
}

// draw joins a line's pieces, painting runs of one style together.
func (d *drawing) draw(line []piece) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		j := i + 1
		var t strings.Builder
		t.WriteString(line[i].text)
		for j < len(line) && line[j].st == line[i].st {
			t.WriteString(line[j].text)
			j++
		}
		b.WriteString(d.paint(line[i].st, t.String()))
		i = j
	}
	return b.String()
}

// truncate cuts a drawn line to width, keeping its SGR codes closed.
func truncate(l string, width int) string {
	if ansi.StringWidth(l) <= width {
		return l
	}
	t := ansi.Truncate(l, width, "")
	if strings.Contains(t, "\x1b[") {
		t += "\x1b[0m"
	}
	return t
}

// trimEmpty drops empty lines at either end, so that blocks are separated
// by exactly one.
func trimEmpty(lines []string) []string {
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
