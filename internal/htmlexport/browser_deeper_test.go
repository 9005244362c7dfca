package htmlexport_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/htmlexport"
	"github.com/ssebench/sse-dialog-convert/internal/testskip"
)

// deeper is a dialog of two prompts, a subagent whose grep fails, parallel
// tool calls, per-message tokens, a data: image, a remote image and a code
// block. The expectations below were read off the file.
const deeper = "testdata/deeper.dialog.jsonl"

// click clicks the first element matching a CSS selector from the page's
// own script (the element may be off screen).
func (b *browser) click(t *testing.T, selector string) {
	t.Helper()
	var ok bool
	b.eval(t, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.click(); return true; })()`, selector), &ok)
	require.True(t, ok, "nothing matches %s", selector)
}

func (b *browser) text(t *testing.T, selector string) string {
	t.Helper()
	var s string
	b.eval(t, fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e ? e.textContent : '(none)'; })()`, selector), &s)
	return s
}

func (b *browser) selectValue(t *testing.T, id, value string) {
	t.Helper()
	b.eval(t, fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.value = %q; e.dispatchEvent(new Event('change')); return e.value; })()`, id, value), new(string))
}

// TestBrowserTokensAndTurns: each assistant message shows its response's
// tokens and the time since its thread's last input; the header sums them.
func TestBrowserTokensAndTurns(t *testing.T) {
	b, _ := browse(t, deeper)
	require.Equal(t, "↓1,200 ↑40 (cache read 1,000)", b.text(t, "#seq-2 > .hd .tok"))
	// seq 2 at 02.000, its prompt at 00.100.
	require.Equal(t, "took 1.9s", b.text(t, "#seq-2 > .hd .turn"))
	// In the subagent: its grep's error came at 04.500, the message at 05.000.
	require.Equal(t, "took 500ms", b.text(t, "#seq-8 > .hd .turn"))
	// In the main thread: the Task's result at 06.000, the message at 07.000
	// (the Read's result at 03.500 came earlier).
	require.Equal(t, "took 1.0s", b.text(t, "#seq-10 > .hd .turn"))
	require.Equal(t, "took 500ms", b.text(t, "#seq-14 > .hd .turn"))
	stats := b.text(t, "#stats")
	require.Contains(t, stats, "↓7,500 ↑140 (cache read 1,000, cache write 300) tokens summed over 4 messages", "1200+800+2500+3000, 40+30+60+10")
	require.Contains(t, stats, "3,000 tokens largest context")
	requireClean(t, b, "tokens")
}

// TestBrowserFindYourWay: the prompt index jumps, the timeline's lanes
// (threads, parallel calls) are clickable, and every entry is a heading.
func TestBrowserFindYourWay(t *testing.T) {
	b, _ := browse(t, deeper)

	var prompts []string
	b.eval(t, `Array.from(document.querySelectorAll('#prompts button')).map(b => b.textContent)`, &prompts)
	require.Equal(t, []string{"10:00:00.100 First prompt: find who calls parse_header.", "10:00:08.000 Second prompt: now run the tests."}, prompts)
	b.do(t, chromedp.Click(chromedp.ID("nav-btn")), chromedp.WaitVisible(chromedp.ID("nav")))
	b.do(t, chromedp.Click(chromedp.CSS(`#prompts li:nth-child(2) button`)))
	var cur, hash string
	b.eval(t, `document.querySelector('.entry.cur').id`, &cur)
	b.eval(t, `location.hash`, &hash)
	require.Equal(t, "seq-11", cur)
	require.Equal(t, "#seq-11", hash)

	// Lanes: the main thread has two rows (the Read at 03.0-03.5 and the
	// Task at 03.1-06.0 ran together), the subagent a row of its own.
	var marks []struct {
		Seq int     `json:"seq"`
		Row int     `json:"row"`
		X0  float64 `json:"x0"`
		X1  float64 `json:"x1"`
	}
	b.eval(t, `document.getElementById('lanes').marks`, &marks)
	row := map[int]int{}
	for _, m := range marks {
		row[m.Seq] = m.Row
	}
	require.Equal(t, 0, row[3], "Read")
	require.Equal(t, 1, row[4], "Task, beside the Read")
	require.Equal(t, 0, row[12], "the later Bash, alone again")
	require.Equal(t, 2, row[6], "the subagent's Bash, on the subagent's row")
	require.Equal(t, 2, row[8])
	// A real click on the subagent's Bash mark goes to it.
	var box struct{ X, Y, Row, Pad float64 }
	b.eval(t, `(() => { const r = document.getElementById('lanes').getBoundingClientRect(); const c = document.getElementById('lanes'); return {x: r.left, y: r.top, row: c.rowHeight, pad: c.pad}; })()`, &box)
	for _, m := range marks {
		if m.Seq == 6 {
			b.do(t, chromedp.MouseClickXY(box.X+(m.X0+m.X1)/2, box.Y+box.Pad+2.5*box.Row))
		}
	}
	b.eval(t, `document.querySelector('.entry.cur').id`, &cur)
	require.Equal(t, "seq-6", cur)

	// By keyboard: in time order the marks are seq 0, 1, 2, 3 (the Read),
	// 4 (the Task); four steps right and Enter go to the Task.
	b.do(t, chromedp.Focus(chromedp.ID("lanes")), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight),
		chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.Enter))
	b.eval(t, `document.querySelector('.entry.cur').id`, &cur)
	require.Equal(t, "seq-4", cur)
	require.Equal(t, "Task #4 at 10:00:03.100, 2.9s", b.text(t, "#lanes-cur"))

	// Headings: one per entry, nested as the entries are.
	var heads struct {
		Entries, Headings int
		Level             string
	}
	b.eval(t, `({entries: document.querySelectorAll('#timeline .entry').length, headings: document.querySelectorAll('#timeline .entry > [role=heading]').length, level: document.querySelector('#seq-6 > .hd').getAttribute('aria-level')})`, &heads)
	require.Equal(t, heads.Entries, heads.Headings)
	require.Equal(t, "3", heads.Level, "under the page's h1 and the Task's level 2")
	requireClean(t, b, "find your way")
}

// visibleIDs is in browser_test.go.

// TestBrowserToolAndSubagentFilters: the tool-name and subagent filters,
// the worst status on a subagent's call, and errors only opening it.
func TestBrowserToolAndSubagentFilters(t *testing.T) {
	b, _ := browse(t, deeper)
	var opts []string
	b.eval(t, `Array.from(document.querySelectorAll('#f-name option')).map(o => o.value + '=' + o.textContent)`, &opts)
	require.Equal(t, []string{"=every tool", "Bash=Bash · 2", "Read=Read · 1", "Task=Task · 1"}, opts)

	var ids []string
	b.selectValue(t, "f-name", "Bash")
	b.eval(t, visibleIDs, &ids)
	require.Equal(t, []string{"seq-4", "seq-6", "seq-12"}, ids, "both Bash calls, and the Task holding one")
	b.selectValue(t, "f-name", "")
	b.eval(t, `Array.from(document.querySelectorAll('#f-sub option')).map(o => o.textContent)`, &opts)
	require.Equal(t, []string{"every agent", "Task: Find the callers (#4, 2 entries)"}, opts)
	b.eval(t, `(() => { const e = document.getElementById('f-sub'); e.selectedIndex = 1; e.dispatchEvent(new Event('change')); return 1; })()`, new(int))
	b.eval(t, visibleIDs, &ids)
	require.Equal(t, []string{"seq-4", "seq-6", "seq-8"}, ids, "the subagent's call and its entries")
	b.selectValue(t, "f-name", "Bash")
	b.eval(t, visibleIDs, &ids)
	require.Equal(t, []string{"seq-4", "seq-6"}, ids, "both filters: the subagent's Bash")
	b.selectValue(t, "f-name", "")
	b.selectValue(t, "f-sub", "")
	b.eval(t, visibleIDs, &ids)
	_, blocks := expectedBlocks(t, deeper)
	require.Len(t, ids, blocks)

	// The Task succeeded, its grep failed: its badge says both, in red.
	var badge struct{ Text, Class string }
	b.eval(t, `(() => { const e = document.querySelector('#seq-4 > .hd .badge'); return {text: e.textContent, class: e.className}; })()`, &badge)
	require.Equal(t, "success · 1 error inside", badge.Text)
	require.Equal(t, "badge st-error", badge.Class)

	// Errors only, with the subagents collapsed: the failed grep shows.
	b.click(t, "#toggle-subagents")
	b.eval(t, visibleIDs, &ids)
	require.NotContains(t, ids, "seq-6")
	b.click(t, "#f-errors")
	b.eval(t, visibleIDs, &ids)
	require.Equal(t, []string{"seq-4", "seq-6"}, ids)
	requireClean(t, b, "filters")
}

// TestBrowserShowsWhatIsThere: a data: image drawn (a remote one named,
// not fetched), the subagent's result as Markdown, copy buttons.
func TestBrowserShowsWhatIsThere(t *testing.T) {
	b, _ := browse(t, deeper)
	var img struct {
		N, Width int
		Alt      string
	}
	b.eval(t, `(() => { const i = document.querySelectorAll('#seq-10 img'); return {n: i.length, width: i[0] && i[0].naturalWidth, alt: i[0] && i[0].alt}; })()`, &img)
	require.Equal(t, 1, img.N, "the data: image only")
	require.Equal(t, 1, img.Width, "decoded: the 1x1 PNG")
	require.Equal(t, "call graph", img.Alt)
	var named []string
	b.eval(t, `Array.from(document.querySelectorAll('#seq-10 .img')).map(e => e.textContent)`, &named)
	require.Equal(t, []string{"[image: remote]", "[image: svg, 42 characters of data: URL, not a PNG, JPEG, GIF or WebP]"}, named)

	require.Equal(t, "Callers", b.text(t, "#seq-4 > .end .md h4"))
	require.Equal(t, "a.c", b.text(t, "#seq-4 > .end .md li strong"))

	// Copy: what each button hands the clipboard.
	b.eval(t, `(() => { window.__copied = []; Object.defineProperty(navigator, 'clipboard', {value: {writeText: t => { window.__copied.push(t); return Promise.resolve(); }}, configurable: true}); return 1; })()`, new(int))
	b.click(t, "#seq-10 .code button.copy")
	b.click(t, "#seq-12 details.args button.copy")
	b.click(t, "#seq-12 .label button.copy")
	b.click(t, "#seq-6 .label.err button.copy")
	var copied []string
	b.eval(t, `window.__copied`, &copied)
	require.Equal(t, []string{"make test", "{\n  \"command\": \"make test\"\n}", "ok", "grep: srcx: No such file or directory"}, copied)
	var open bool
	b.eval(t, `document.querySelector('#seq-12 details.args').open`, &open)
	require.False(t, open, "copying the args does not open them")
	requireClean(t, b, "images, markdown, copy")
}

// TestBrowserPhoneHeader: at 390x844 the sticky header takes at most 15%
// of the screen; opened, the filters make it taller (the measure works).
func TestBrowserPhoneHeader(t *testing.T) {
	b := newBrowser(t)
	p := exportFile(t, "../../testdata/view/showcase.dialog.jsonl", t.TempDir())
	b.do(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	b.open(t, p, "")
	var h struct{ Head, Screen float64 }
	measure := `({head: document.getElementById('top').getBoundingClientRect().height, screen: window.innerHeight})`
	b.eval(t, measure, &h)
	require.Equal(t, 844.0, h.Screen)
	require.LessOrEqual(t, h.Head/h.Screen, 0.15, "header %v px of %v", h.Head, h.Screen)
	closed := h.Head
	b.click(t, "#more-tools")
	b.eval(t, measure, &h)
	require.Greater(t, h.Head, closed)
	requireClean(t, b, "phone")
}

// TestBrowserPrintGivesEveryEntry prints a long dialog to PDF: the body of
// its last entry, far below the screen and never drawn before, is in it.
func TestBrowserPrintGivesEveryEntry(t *testing.T) {
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		testskip.Missing(t, "pdftotext (poppler-utils: apt-get install -y poppler-utils) is missing")
	}
	dir := t.TempDir()
	var in strings.Builder
	in.WriteString(`{"seq":0,"ts":"2026-06-01T10:00:00.000Z","type":"init","data":{"task":"print","cwd":"/","model":"m","agent":"a"}}` + "\n")
	const n = 400
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, `{"seq":%d,"ts":"2026-06-01T10:00:01.000Z","type":"message","role":"assistant","content":"body of entry %d: words words words words words words words words words words"}`+"\n", i, i)
	}
	// Last, a call whose args are folded away and whose result is longer
	// than a fold.
	var result []string
	for i := 1; i <= 30; i++ {
		result = append(result, fmt.Sprintf("result line %d", i))
	}
	fmt.Fprintf(&in, `{"seq":%d,"ts":"2026-06-01T10:00:01.500Z","type":"tool","tool_id":"t1","name":"Bash","status":"running","args":{"command":"make check-everything"}}`+"\n", n+1)
	fmt.Fprintf(&in, `{"seq":%d,"ts":"2026-06-01T10:00:01.900Z","type":"tool","tool_id":"t1","name":"Bash","status":"success","result":%q}`+"\n", n+2, strings.Join(result, "\n"))
	fmt.Fprintf(&in, `{"seq":%d,"ts":"2026-06-01T10:00:02.000Z","type":"complete","status":"success","message":"the run's final word","turns":%d,"duration_ms":2000}`+"\n", n+3, n)
	src := filepath.Join(dir, "long.dialog.jsonl")
	require.NoError(t, os.WriteFile(src, []byte(in.String()), 0o644))
	d, err := dialogread.Read(strings.NewReader(in.String()), nil)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, htmlexport.Write(&buf, d, htmlexport.Options{Source: "long.dialog.jsonl"}))
	html := filepath.Join(dir, "long.html")
	require.NoError(t, os.WriteFile(html, buf.Bytes(), 0o644))

	b := newBrowser(t)
	b.open(t, html, "")
	var filled int
	b.eval(t, `Array.from(document.querySelectorAll('#timeline .entry > .bd')).filter(e => e.childNodes.length).length`, &filled)
	require.Less(t, filled, n, "the test needs bodies not drawn before printing")

	ctx, cancel := b.step(stepTimeout)
	defer cancel()
	res, err := chromedp.Call(ctx, cdppage.PrintToPDF, cdppage.PrintToPDFParams{})
	require.NoError(t, err)
	require.NotEmpty(t, res.Data)
	pdf := filepath.Join(dir, "long.pdf")
	require.NoError(t, os.WriteFile(pdf, res.Data, 0o644))
	out, err := exec.CommandContext(ctx, pdftotext, pdf, "-").Output()
	require.NoError(t, err)
	text := strings.Join(strings.Fields(string(out)), " ")
	for _, want := range []string{"body of entry 1:", "body of entry 200:", fmt.Sprintf("body of entry %d:", n), `"command": "make check-everything"`, "result line 30", "the run's final word"} {
		require.True(t, strings.Contains(text, want), "the PDF's %d characters of text lack %q", len(text), want)
	}
	requireClean(t, b, "print")
}

// TestBrowserDrawsCarriedImages: the images a dialog carries in tool
// results (the writer's Markdown data-URL images, docs/dialog.md) are
// drawn as <img> with a data: src under the page's policy, the text
// around them stays plain, and no base64 is shown as text.
func TestBrowserDrawsCarriedImages(t *testing.T) {
	b, _ := browse(t, "../../testdata/claude/tool-result-images.out.jsonl")
	type shown struct {
		N, Width int
		Alt, Src string
		Text     string
	}
	look := func(seq int) shown {
		var s shown
		b.eval(t, fmt.Sprintf(`(() => { const s = document.querySelector('#seq-%d'); const i = s.querySelectorAll('img');
			return {n: i.length, width: i[0] ? i[0].naturalWidth : 0, alt: i[0] ? i[0].alt : '', src: i[0] ? i[0].src.slice(0, 22) : '', text: s.textContent}; })()`, seq), &s)
		return s
	}
	png := look(1)
	require.Equal(t, 1, png.N)
	require.Equal(t, 1, png.Width, "decoded: the 1x1 PNG")
	require.Equal(t, "image/png 73 bytes", png.Alt)
	require.Equal(t, "data:image/png;base64,", png.Src)

	shot := look(2)
	require.Equal(t, 1, shot.N)
	require.Equal(t, 1, shot.Width, "the \\/ of the source decodes to the same PNG")
	require.Contains(t, shot.Text, "Screenshot of http://localhost:3000 (1 x 1)")

	svg := look(3)
	require.Equal(t, 0, svg.N, "an SVG is never drawn")
	require.Contains(t, svg.Text, "[image image/svg+xml 71 bytes: not shown, only PNG, JPEG, GIF and WebP images are]")

	var body string
	b.eval(t, `document.getElementById("timeline").textContent`, &body)
	require.NotContains(t, body, "iVBOR", "no base64 as text")
	requireClean(t, b, "carried images")

	// A screenshot pasted in the user's turn: drawn under the prompt's text.
	b.open(t, exportFile(t, "../../testdata/claude-session/open-call-at-end.out.jsonl", t.TempDir()), "")
	prompt := look(1)
	require.Equal(t, 1, prompt.N)
	require.Equal(t, 1, prompt.Width, "the 1x1 PNG of the prompt")
	require.Contains(t, prompt.Text, "what is in this screenshot?")
	require.NotContains(t, prompt.Text, "iVBOR")
	requireClean(t, b, "a prompt's image")
}
