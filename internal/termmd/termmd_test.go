package termmd_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/termmd"
)

func plain(src string, width int) []string { return termmd.New(false).Render(src, width) }
func color(src string, width int) []string { return termmd.New(true).Render(src, width) }

// The expected lines below are written from the Markdown by hand.
func TestConstructsPlain(t *testing.T) {
	for _, c := range []struct {
		name, src string
		width     int
		want      []string
	}{
		{"paragraphs wrap at spaces", "one two three four five six seven\n\nnext", 20,
			[]string{"one two three four", "five six seven", "", "next"}},
		{"soft break is a space", "a\nb", 20, []string{"a b"}},
		{"hard breaks", "a  \nb\\\nc", 20, []string{"a", "b", "c"}},
		{"a word wider than the line is cut", strings.Repeat("x", 25), 10,
			[]string{"xxxxxxxxxx", "xxxxxxxxxx", "xxxxx"}},
		{"atx and setext headings keep their level", "# Title\n\nSub\n---\n\ntext", 20,
			[]string{"# Title", "", "## Sub", "", "text"}},
		{"emphasis without markers", "*a* _b_ **c** ***d*** x\\*y", 20, []string{"a b c d x*y"}},
		{"inline code", "run `go test` now", 20, []string{"run go test now"}},
		{"fenced code keeps its lines, indented", "```go\nfunc f() {\n\treturn\n}\n```", 20,
			[]string{"  func f() {", "      return", "  }"}},
		{"indented code", "    a\n    b", 20, []string{"  a", "  b"}},
		{"a long code line is broken, not wrapped at spaces", "```\n" + strings.Repeat("y", 20) + "\n```", 12,
			[]string{"  yyyyyyyyyy", "  yyyyyyyyyy"}},
		{"nested bullets", "- a\n- b\n  - c\n    - d\n- e", 20,
			[]string{"• a", "• b", "  ◦ c", "    ▪ d", "• e"}},
		{"numbered from its start", "3. x\n4. y\n\n1) z", 20,
			[]string{"3. x", "4. y", "", "1) z"}},
		{"loose list keeps its empty lines", "- a\n\n- b", 20, []string{"• a", "", "• b"}},
		{"list items hang under their marker", "- one two three four five", 12,
			[]string{"• one two", "  three four", "  five"}},
		{"block quotes", "> q\n>\n> r\n\n> > deep", 20, []string{"> q", ">", "> r", "", "> > deep"}},
		{"link then its URL", "see [docs](http://x.example/d) or <http://x.example> or [http://y.example](http://y.example)", 80,
			[]string{"see docs (http://x.example/d) or http://x.example or http://y.example"}},
		{"images as alt text", "![a chart](c.png) ![](d.png)", 20, []string{"a chart image"}},
		{"thematic break spans the width", "a\n\n---\n\nb", 10, []string{"a", "", "──────────", "", "b"}},
		{"raw html is text", "<b>x</b> y\n\n<div>\nhi\n</div>", 20, []string{"<b>x</b> y", "", "<div>", "hi", "</div>"}},
		{"entities resolve", "a &amp; b &lt;c&gt; &#65;", 20, []string{"a & b <c> A"}},
		{"table in columns, aligned", "| a | b |\n|---|--:|\n| 1 | 22 |", 20,
			[]string{"a │  b", "──┼───", "1 │ 22"}},
		{"table cells wrap when too wide", "| k | v |\n|---|---|\n| x | one two three four |", 14,
			[]string{"k │ v", "──┼───────────", "x │ one two", "  │ three four"}}, // 14 - 3 = 11 columns: 1 and 10
		{"unclosed fence runs to the end", "```\ncode\nmore", 20, []string{"  code", "  more"}},
		{"empty", "", 20, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, plain(c.src, c.width), "%q", c.src)
		})
	}
}

func TestConstructsColor(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"**b**", "\x1b[1mb\x1b[0m"},
		{"*i*", "\x1b[3mi\x1b[0m"},
		{"**two words**", "\x1b[1mtwo words\x1b[0m"}, // one run, the space inside it
		{"`c`", "\x1b[36mc\x1b[0m"},
		{"# T", "\x1b[1;35m# T\x1b[0m"},
		{"[t](http://u)", "\x1b[4;34mt\x1b[0m (\x1b[2mhttp://u\x1b[0m)"},
		{"```\nx\n```", "  \x1b[36mx\x1b[0m"},
		{"> q", "\x1b[2m>\x1b[0m q"},
	} {
		got := color(c.src, 40)
		require.Equal(t, []string{c.want}, got, "%q", c.src)
	}
	// With colour off the same sources carry no escape at all.
	for _, src := range []string{"**b**", "*i*", "`c`", "# T", "[t](http://u)", "> q", "---", "| a |\n|---|\n| b |"} {
		require.NotContains(t, strings.Join(plain(src, 40), "\n"), "\x1b", "%q", src)
	}
}

func TestColorRunsEndAtTheLine(t *testing.T) {
	for _, l := range color("**"+strings.TrimSpace(strings.Repeat("bold words ", 10))+"**", 20) {
		require.True(t, strings.HasPrefix(l, "\x1b[1m") && strings.HasSuffix(l, "\x1b[0m"), "%q", l)
		require.LessOrEqual(t, ansi.StringWidth(l), 20)
	}
}

func TestNoOSC8(t *testing.T) {
	require.NotContains(t, strings.Join(color("[a](http://b) <http://c>", 40), "\n"), "\x1b]")
}

// Text that entity references or the source itself turn into controls
// does not reach the terminal.
func TestControlsDropped(t *testing.T) {
	for _, src := range []string{"a&#27;[2Jb", "a\x1b[2Jb", "`a\x1b]0;t\x07b`", "```\na\x1b[2Jb\n```", "a\u009bb", "[x](http://a&#27;b)", "a\xffb"} {
		for _, r := range []*termmd.Renderer{termmd.New(false), termmd.New(true)} {
			out := sgrRe.ReplaceAllString(strings.Join(r.Render(src, 40), "\n"), "")
			require.False(t, hasControl(out), "%q -> %q", src, out)
		}
	}
}

var sgrRe = regexp.MustCompile(`\x1b\[[0-9;]*m`)

func hasControl(s string) bool {
	for _, c := range s {
		if c < 0x20 && c != '\n' || c >= 0x7f && c <= 0x9f {
			return true
		}
	}
	return false
}

// Hostile shapes: deep nesting of every container, unclosed constructs,
// long runs of markup. Nothing panics and every line fits.
func TestHostile(t *testing.T) {
	for _, src := range []string{
		strings.Repeat("> ", 2000) + "x",
		strings.Repeat("- ", 1000) + "x",
		nestedList(150),
		strings.Repeat("*", 5000) + "x",
		strings.Repeat("[", 3000) + "x" + strings.Repeat("](u)", 3000),
		strings.Repeat("**a ", 1000),
		"```\nunclosed\n\n",
		"<div>\nunclosed",
		"| a |\n|---|\n" + strings.Repeat("| "+strings.Repeat("w", 300)+" |\n", 5),
		strings.Repeat("|", 500) + "\n" + strings.Repeat("|-", 250),
		strings.Repeat("界", 50),
		"☺*\uFE0F*☺*\uFE0F*☺*\uFE0F*☺*\uFE0F*☺*\uFE0F*☺*\uFE0F*",
	} {
		for _, width := range []int{1, 10, 17, 80} {
			checkLines(t, src, width)
		}
	}
}

func nestedList(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("  ", i) + "- item\n")
	}
	return b.String()
}

func checkLines(t *testing.T, src string, width int) {
	t.Helper()
	w := max(width, termmd.MinWidth)
	for _, color := range []bool{false, true} {
		lines := termmd.New(color).Render(src, width)
		if len(lines) > 0 {
			require.NotEmpty(t, lines[0], "no empty first line for %q", src)
			require.NotEmpty(t, lines[len(lines)-1], "no empty last line for %q", src)
		}
		for _, l := range lines {
			require.LessOrEqual(t, ansi.StringWidth(l), w, "%q at %d: %q", src, width, l)
			plain := l
			if color { // only the renderer's own SGR codes; none at all without colour
				plain = sgrRe.ReplaceAllString(l, "")
			}
			require.False(t, hasControl(plain), "%q at %d: %q", src, width, l)
			require.NotContains(t, l, "\n")
		}
	}
}

func FuzzRender(f *testing.F) {
	for _, s := range []string{"# h\n\n*a* **b** `c`\n\n- x\n  1. y\n\n> q\n\n```\nz\n```", "| a | b |\n|:-|-:|\n| `x` | [l](u) |", "a&#27;b ![i](x) <b>h</b>\n\n---"} {
		f.Add(s, uint8(20))
	}
	f.Fuzz(func(t *testing.T, src string, width uint8) {
		checkLines(t, src, int(width%120))
	})
}

// Nesting deeper than the width allows stops indenting but keeps the width
// for the text: at 12 columns a quote in a quote has 8 left, too few, so
// the inner one draws at 10 without its bar.
func TestDeepNestingKeepsTheWidth(t *testing.T) {
	require.Equal(t, []string{"> one two", "> three four", "> five"}, plain("> > one two three four five", 12))
}
