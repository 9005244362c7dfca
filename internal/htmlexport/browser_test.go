package htmlexport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/htmlexport"
	"github.com/ssebench/sse-dialog-convert/internal/runstats"
	"github.com/ssebench/sse-dialog-convert/internal/testskip"
)

// chromiumPath is Debian's chromium (CHROMIUM overrides). Without it the
// browser tests skip, except in CI, where they fail: .ci/run installs it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		testskip.Missing(t, "no chromium at "+p+": the browser tests need Debian's chromium (apt-get install -y chromium)")
	}
	return p
}

// stepTimeout bounds each step of a browser test (start the browser, open
// a page, run a script): a deadline per step, not one for the whole test,
// so that a slow machine only makes a test slower and a stuck step is
// named. Pages that take long on purpose get more (browser.within).
const stepTimeout = time.Minute

// browser is one headless Chromium for a test, with what its pages did.
type browser struct {
	ctx      context.Context // the browser's; steps run under a deadline derived from it (step)
	mu       sync.Mutex
	errors   []string // console errors, exceptions, CSP and other log errors
	requests []string // requests other than the page's own file
	page     string   // the file:// URL being shown, without its fragment
}

// startBrowser starts chromium and its first tab. A chromium that exits
// while it starts ("chrome failed to start": seen once in a full test run
// on a loaded 2-core machine, its crash handler's lines the only output)
// is started again, up to three times: what the tests check is the page,
// not the browser's start.
func startBrowser(t *testing.T, opts []chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	for attempt := 1; ; attempt++ {
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(allocCtx)
		// The first call starts the browser and its tab; events are listened
		// to from then on. A deadline on its context would end the browser
		// with it (chromedp.Run), so the start is bounded by a timer that
		// does.
		startTimer := time.AfterFunc(stepTimeout, cancelCtx)
		err := chromedp.Do(ctx, chromedp.Navigate("about:blank"))
		require.True(t, startTimer.Stop(), "chromium did not start within %v", stepTimeout)
		if err != nil && attempt < 3 && strings.Contains(err.Error(), "chrome failed to start") {
			t.Logf("chromium exited while starting (attempt %d), starting it again: %v", attempt, err)
			cancelCtx()
			cancelAlloc()
			continue
		}
		t.Cleanup(func() { cancelCtx(); cancelAlloc() })
		require.NoError(t, err)
		return ctx
	}
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	if testing.Short() {
		t.Skip("a browser test: skipped under -short")
	}
	exe := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
	}
	ctx := startBrowser(t, opts)
	b := &browser{ctx: ctx}
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.addError("console." + string(ev.Type) + ": " + strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.addError("exception: " + msg)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				b.addError("log " + string(ev.Entry.Source) + ": " + ev.Entry.Text + " " + ev.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			b.request(ev.Request.URL)
		case *fetch.EventRequestPaused:
			// Every request is held here: the page's own file goes on,
			// anything else is recorded and failed. (A command cannot be
			// sent from the listener itself.)
			id, u := ev.RequestID, ev.Request.URL
			go func() {
				if b.isPage(u) {
					_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
					return
				}
				b.request(u)
				_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonBlockedByClient})
			}()
		}
	}))
	stepCtx, cancel := b.step(stepTimeout)
	defer cancel()
	_, err := chromedp.Call(stepCtx, runtime.Enable, cdp.Empty{})
	require.NoError(t, err)
	_, err = chromedp.Call(stepCtx, cdplog.Enable, cdp.Empty{})
	require.NoError(t, err)
	_, err = chromedp.Call(stepCtx, network.Enable, network.EnableParams{})
	require.NoError(t, err)
	_, err = chromedp.Call(stepCtx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}})
	require.NoError(t, err)
	return b
}

// step is the context of one step: the browser's, with its own deadline.
func (b *browser) step(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(b.ctx, d)
}

func (b *browser) addError(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errors = append(b.errors, s)
}

func (b *browser) isPage(u string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	base, _, _ := strings.Cut(u, "#")
	return base == b.page
}

func (b *browser) request(u string) {
	// A data: URL is the page's own bytes (an image the dialog holds, which
	// the policy allows): nothing is asked of anyone.
	if b.isPage(u) || strings.HasPrefix(u, "data:") {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.requests = append(b.requests, u)
}

// reset forgets what earlier pages did.
func (b *browser) reset(page string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errors, b.requests, b.page = nil, nil, page
}

func (b *browser) problems() (errs, reqs []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...), append([]string(nil), b.requests...)
}

// fileURL is the file:// URL of a path.
func fileURL(t *testing.T, path string) string {
	abs, err := filepath.Abs(path)
	require.NoError(t, err)
	return (&url.URL{Scheme: "file", Path: abs}).String()
}

// open shows a page and waits until its script has built every entry.
func (b *browser) open(t *testing.T, path, fragment string) {
	t.Helper()
	u := fileURL(t, path)
	b.reset(u)
	ctx, cancel := b.step(stepTimeout)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(u+fragment),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)),
	), "page %s not ready within %v", path, stepTimeout)
}

// eval runs a JS expression and decodes its value into out.
func (b *browser) eval(t *testing.T, expr string, out any) {
	t.Helper()
	b.evalWithin(t, stepTimeout, expr, out)
}

// evalWithin is eval for a script that may take up to d.
func (b *browser) evalWithin(t *testing.T, d time.Duration, expr string, out any) {
	t.Helper()
	ctx, cancel := b.step(d)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr))
	require.NoError(t, err, expr)
	require.NoError(t, json.Unmarshal(raw, out), "%s gave %s", expr, raw)
}

// do runs actions, within stepTimeout.
func (b *browser) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	b.within(t, stepTimeout, steps...)
}

// within runs actions that may take up to d.
func (b *browser) within(t *testing.T, d time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := b.step(d)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, steps...), "not done within %v", d)
}

// typeInto replaces the value of the input with id and tells the page, as
// typing does.
func (b *browser) typeInto(t *testing.T, id, value string) {
	t.Helper()
	v, err := json.Marshal(value)
	require.NoError(t, err)
	b.eval(t, fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.value = %s; e.dispatchEvent(new Event('input')); e.dispatchEvent(new Event('change')); return 1; })()`, id, v), new(int))
}

// settle gives the page's timers (search debounce, chunked building) time.
func (b *browser) settle(t *testing.T) {
	t.Helper()
	b.do(t, chromedp.Sleep(100*time.Millisecond))
}

// requireEveryEntry checks that the page b shows holds a block for every
// block of the dialog at path (expectedBlocks) and an element for every
// seq; name names the input in messages.
func requireEveryEntry(t *testing.T, b *browser, path, name string) {
	t.Helper()
	seqs, blocks := expectedBlocks(t, path)
	var got int
	b.eval(t, `document.querySelectorAll('#timeline .entry').length`, &got)
	require.Equal(t, blocks, got, "%s: blocks", name)
	var missing []int64
	b.eval(t, jsonInts(seqs)+`.filter(s => !document.getElementById('seq-' + s))`, &missing)
	require.Empty(t, missing, "%s: seqs without an element", name)
}

// expectedBlocks reads a dialog file the way a reader of the protocol
// would, without the package under test: every seq, and how many blocks
// the page should show (every entry, less tool results merged into a call
// that was started and not yet ended).
func expectedBlocks(t *testing.T, path string) (seqs []int64, blocks int) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	open := map[string]bool{}
	for _, line := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, err := dialogread.ParseLine(line, nil)
		require.NoError(t, err)
		seqs = append(seqs, e.Seq)
		if e.Type == "tool" && e.Status != "running" && open[e.ToolID] {
			delete(open, e.ToolID)
			continue // merged into its call
		}
		if e.Type == "tool" && e.Status == "running" {
			open[e.ToolID] = true
		}
		blocks++
	}
	return seqs, blocks
}

func exportFile(t *testing.T, dialogPath, dir string) string {
	t.Helper()
	d := adaptertest.ReadDialog(t, dialogPath, nil)
	out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(dialogPath), ".jsonl")+".html")
	var page bytes.Buffer
	require.NoError(t, htmlexport.Write(&page, d, htmlexport.Options{Source: filepath.Base(dialogPath)}))
	require.NoError(t, os.WriteFile(out, page.Bytes(), 0o644))
	return out
}

// browse opens the page of the dialog at dialogPath in a new browser; it
// returns the browser and the page's path.
func browse(t *testing.T, dialogPath string) (*browser, string) {
	t.Helper()
	b := newBrowser(t)
	page := exportFile(t, dialogPath, t.TempDir())
	b.open(t, page, "")
	return b, page
}

func requireClean(t *testing.T, b *browser, what string) {
	t.Helper()
	errs, reqs := b.problems()
	require.Empty(t, errs, "%s: errors in the page", what)
	require.Empty(t, reqs, "%s: the page made requests", what)
}

// TestBrowserEveryFixture opens the page of every dialog in testdata (the
// converter's goldens and the view fixtures): no error, no request, and
// every entry there, tool halves merged.
func TestBrowserEveryFixture(t *testing.T) {
	b := newBrowser(t)
	dialogs, err := filepath.Glob("../../testdata/*/*.out.jsonl")
	require.NoError(t, err)
	more, err := filepath.Glob("../../testdata/view/*.dialog.jsonl")
	require.NoError(t, err)
	dialogs = append(dialogs, more...)
	require.NotEmpty(t, dialogs)
	dir := t.TempDir()
	for _, path := range dialogs {
		page := exportFile(t, path, dir)
		b.open(t, page, "")
		requireClean(t, b, path)
		requireEveryEntry(t, b, path, path)
	}
}

func jsonInts(v []int64) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = fmt.Sprint(n)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// visibleIDs lists the ids of the entries a person can see (not hidden by
// a filter, a search or a collapsed subagent).
const visibleIDs = `Array.from(document.querySelectorAll('#timeline .entry')).filter(e => e.getClientRects().length > 0).map(e => e.id)`

// TestBrowserSearchFiltersKeys works the showcase page as a person would.
// Its expectations were read off testdata/view/showcase.dialog.jsonl.
func TestBrowserSearchFiltersKeys(t *testing.T) {
	b, page := browse(t, "../../testdata/view/showcase.dialog.jsonl")

	// Search: "all 2 tests passed" is only in the result of seq 20, merged
	// into the call at seq 19.
	b.do(t, chromedp.SendKeys(chromedp.ID("search"), "All 2 TESTS passed"), chromedp.WaitVisible(chromedp.CSS(`#timeline.searching`)))
	var ids []string
	b.eval(t, visibleIDs, &ids)
	require.Equal(t, []string{"seq-19"}, ids)
	var count, marked string
	b.eval(t, `document.getElementById('search-count').textContent`, &count)
	require.Equal(t, "1 entry", count)
	b.eval(t, `Array.from(document.querySelectorAll('#seq-19 mark')).map(m => m.textContent).join('|')`, &marked)
	require.Equal(t, "all 2 tests passed", marked)

	// A string inside a subagent's tool result shows the call it is under.
	b.eval(t, `(() => { const s = document.getElementById('search'); s.value = 'util.c:57'; s.dispatchEvent(new Event('input')); return 1; })()`, new(int))
	b.do(t, chromedp.Sleep(400*time.Millisecond))
	b.eval(t, visibleIDs, &ids)
	require.Equal(t, []string{"seq-5", "seq-7", "seq-9"}, ids, "the Task call (its result says it too), its Grep and its message")

	// Escape clears the search: every block is back.
	b.do(t, chromedp.Focus(chromedp.ID("search")), chromedp.KeyEvent("\x1b"))
	b.settle(t)
	b.eval(t, visibleIDs, &ids)
	_, blocks := expectedBlocks(t, "../../testdata/view/showcase.dialog.jsonl")
	require.Len(t, ids, blocks)

	// Filters: without tools, the Task call's head goes but its subagent's
	// message stays; the four assistant messages remain.
	b.eval(t, `(() => { const c = document.getElementById('f-tool'); c.click(); return c.checked; })()`, new(bool))
	b.eval(t, visibleIDs, &ids)
	require.Equal(t, []string{"seq-0", "seq-1", "seq-2", "seq-3", "seq-5", "seq-9", "seq-11", "seq-18", "seq-21", "seq-22"}, ids)
	b.eval(t, `(() => { document.getElementById('f-tool').click(); document.getElementById('f-thinking').click(); document.getElementById('f-message').click(); return 1; })()`, new(int))
	b.eval(t, visibleIDs, &ids)
	require.NotContains(t, ids, "seq-2")
	require.NotContains(t, ids, "seq-3")
	require.Contains(t, ids, "seq-16")
	b.eval(t, `(() => { document.getElementById('f-thinking').click(); document.getElementById('f-message').click(); document.getElementById('f-errors').click(); return 1; })()`, new(int))
	b.eval(t, visibleIDs, &ids)
	require.Equal(t, []string{"seq-16"}, ids, "errors only: the failed make")
	b.eval(t, `(() => { document.getElementById('f-errors').click(); return 1; })()`, new(int))

	// Keys: on a fresh page, j twice from the top lands on the prompt, and
	// the URL says so.
	b.open(t, page, "")
	b.do(t, chromedp.Click(chromedp.CSS("h1")), chromedp.KeyEvent("j"), chromedp.KeyEvent("j"))
	var cur, hash string
	b.eval(t, `document.querySelector('.entry.cur').id`, &cur)
	b.eval(t, `location.hash`, &hash)
	require.Equal(t, "seq-1", cur)
	require.Equal(t, "#seq-1", hash)
	b.do(t, chromedp.KeyEvent("k"))
	b.eval(t, `document.querySelector('.entry.cur').id`, &cur)
	require.Equal(t, "seq-0", cur)
	// "/" goes to the search box.
	b.do(t, chromedp.KeyEvent("/"))
	var focused string
	b.eval(t, `document.activeElement.id`, &focused)
	require.Equal(t, "search", focused)

	// Collapsing the subagent hides its entries, not the call.
	b.eval(t, `(() => { document.querySelector('#seq-5 .toggle').click(); return 1; })()`, new(int))
	b.eval(t, visibleIDs, &ids)
	require.Contains(t, ids, "seq-5")
	require.NotContains(t, ids, "seq-7")
	requireClean(t, b, "showcase")

	// Permalinks: the result's seq (17) lands on its call (16); an entry
	// inside a subagent is reached too.
	b.open(t, page, "#seq-17")
	b.eval(t, `document.querySelector('.entry.cur').id`, &cur)
	require.Equal(t, "seq-16", cur)
	b.open(t, page, "#seq-9")
	b.eval(t, `document.querySelector('.entry.cur').id`, &cur)
	require.Equal(t, "seq-9", cur)
	requireClean(t, b, "permalinks")
}

// TestBrowserHostileDialogIsInert opens a dialog made of markup, script
// and javascript: links in every field: nothing runs, nothing loads, and
// the markup is shown as text.
func TestBrowserHostileDialogIsInert(t *testing.T) {
	b, _ := browse(t, "../../testdata/view/xss.dialog.jsonl")
	check := func(when string) {
		var state struct {
			XSS      bool     `json:"xss"`
			Scripts  int      `json:"scripts"`
			Tags     int      `json:"tags"`
			BadLinks []string `json:"badLinks"`
			Handlers int      `json:"handlers"`
		}
		b.eval(t, `({
			xss: window.__xss !== undefined,
			scripts: document.scripts.length,
			tags: document.querySelectorAll('img, iframe, svg, object, embed, b[onmouseover]').length,
			badLinks: Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href')).filter(h => !/^(https?:|#)/.test(h)),
			handlers: Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length,
		})`, &state)
		require.False(t, state.XSS, "%s: a probe ran", when)
		require.Equal(t, 2, state.Scripts, "%s: the data block and the page's script only", when)
		require.Zero(t, state.Tags, "%s: markup from the dialog became elements", when)
		require.Empty(t, state.BadLinks, "%s", when)
		require.Zero(t, state.Handlers, "%s: inline handlers", when)
		requireClean(t, b, when)
	}
	check("loaded")
	var text string
	// textContent, not innerText: blocks off screen are skipped by
	// content-visibility and innerText leaves them out.
	b.eval(t, `document.getElementById('timeline').textContent`, &text)
	for _, s := range []string{"<script>window.__xss=1</script>", `<img src=x onerror="window.__xss=2">`, "<svg onload=window.__xss=8>", "</script><script>window.__xss=17</script>"} {
		require.Contains(t, text, s, "shown as text")
	}
	// Everything unfolded and highlighted by a search goes through the
	// same paths again.
	b.do(t, chromedp.SendKeys(chromedp.ID("search"), "__xss"), chromedp.WaitVisible(chromedp.CSS(`#timeline.searching`)))
	b.eval(t, `(() => { document.querySelectorAll('button.more, details').forEach(e => e.tagName === 'DETAILS' ? e.open = true : e.click()); document.querySelectorAll('a').forEach(a => a.href.startsWith('https:') || a.click()); return 1; })()`, new(int))
	b.settle(t)
	check("searched and unfolded")
}

// TestBrowserTamperedScriptIsBlocked checks the checker: a script that no
// longer matches its hash in the policy must not run, and the test's
// listeners must see the refusal. Without this, "no errors" above could
// mean "no listener".
func TestBrowserTamperedScriptIsBlocked(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	page := exportFile(t, "../../testdata/view/showcase.dialog.jsonl", dir)
	raw, err := os.ReadFile(page)
	require.NoError(t, err)
	tampered := bytes.Replace(raw, []byte("'use strict';"), []byte("'use strict'; window.__tampered = 1;"), 1)
	require.NotEqual(t, raw, tampered)
	bad := filepath.Join(dir, "tampered.html")
	require.NoError(t, os.WriteFile(bad, tampered, 0o644))
	u := fileURL(t, bad)
	b.reset(u)
	b.do(t, chromedp.Navigate(u), chromedp.Sleep(500*time.Millisecond))
	var ran bool
	b.eval(t, `window.__tampered !== undefined || document.body.hasAttribute('data-state')`, &ran)
	require.False(t, ran, "the tampered script ran")
	errs, _ := b.problems()
	require.NotEmpty(t, errs, "the refusal was not reported to the test")

	// Likewise a page that loads an image must be seen doing it (the
	// request is failed before it leaves, and goes to a closed local port).
	leaky := filepath.Join(dir, "leaky.html")
	require.NoError(t, os.WriteFile(leaky, []byte(`<!DOCTYPE html><img src="http://127.0.0.1:9/pixel.png">`), 0o644))
	u = fileURL(t, leaky)
	b.reset(u)
	b.do(t, chromedp.Navigate(u), chromedp.Sleep(500*time.Millisecond))
	_, reqs := b.problems()
	require.Contains(t, reqs, "http://127.0.0.1:9/pixel.png", "the request was not seen")
}

// TestBrowserIndexSortsFilters opens an index of three runs (and one that
// failed), sorts it, filters it, and follows a row's link.
func TestBrowserIndexSortsFilters(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	var runs []htmlexport.Run
	for i, p := range []string{"../../testdata/view/showcase.dialog.jsonl", "../../testdata/claude/tool-result-shapes.out.jsonl", "../../testdata/codex/file-change.out.jsonl"} {
		d := adaptertest.ReadDialog(t, p, nil)
		row := runstats.FromDialog(d, p)
		runs = append(runs, htmlexport.Run{Href: fmt.Sprintf("run%d.html", i), Source: filepath.Base(p), Init: d.Init.Init, Summary: d.Summary(), Stats: &row})
		exportFile(t, p, dir)
		require.NoError(t, os.Rename(filepath.Join(dir, strings.TrimSuffix(filepath.Base(p), ".jsonl")+".html"), filepath.Join(dir, fmt.Sprintf("run%d.html", i))))
	}
	runs = append(runs, htmlexport.Run{Source: "broken.jsonl", Err: "reading broken.jsonl: line 1: not JSON"})
	var buf bytes.Buffer
	require.NoError(t, htmlexport.WriteIndex(&buf, "runs", runs))
	index := filepath.Join(dir, "index.html")
	require.NoError(t, os.WriteFile(index, buf.Bytes(), 0o644))
	u := fileURL(t, index)
	b.reset(u)
	b.do(t, chromedp.Navigate(u), chromedp.WaitVisible(chromedp.ID("runs")))
	var rows []string
	files := `Array.from(document.querySelectorAll('#runs tbody tr')).filter(r => !r.hidden).map(r => r.querySelector('td:first-child').textContent.trim())`
	col := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Click(chromedp.CSS(`#runs th[data-col="` + name + `"]`))
	}
	// Turns, read off the files: showcase 5, tool-result-shapes 2,
	// file-change 4; the unreadable run has none known and sorts last.
	b.do(t, col("turns"))
	b.eval(t, files, &rows)
	require.Equal(t, []string{"showcase.dialog.jsonl", "file-change.out.jsonl", "tool-result-shapes.out.jsonl", "broken.jsonl"}, rows, "most turns first")
	b.do(t, col("turns"))
	b.eval(t, files, &rows)
	require.Equal(t, []string{"tool-result-shapes.out.jsonl", "file-change.out.jsonl", "showcase.dialog.jsonl", "broken.jsonl"}, rows, "fewest first; unknown still last")
	var total struct {
		Turns, Runs, File string
	}
	totals := `(() => { const c = n => document.querySelector('#totals').cells[Array.from(document.querySelectorAll('#runs th')).findIndex(h => h.dataset.col === n)].textContent; return {turns: c('turns'), runs: c('prompt'), file: c('file')}; })()`
	b.eval(t, totals, &total)
	require.Equal(t, "11", total.Turns, "5 + 2 + 4")
	require.Equal(t, "4 runs", total.Runs)
	var broken []string
	b.eval(t, `Array.from(Array.from(document.querySelectorAll('#runs tbody tr')).find(r => r.textContent.includes('broken.jsonl')).cells).slice(5, 16).map(c => c.textContent)`, &broken)
	require.Equal(t, []string{"—", "—", "—", "—", "—", "—", "—", "—", "—", "—", "—"}, broken, "the unreadable run's figures are unknown, not 0")

	// The filter keeps the rows holding every word; the totals follow.
	b.do(t, chromedp.SendKeys(chromedp.ID("filter"), "codex"))
	b.eval(t, files, &rows)
	require.Equal(t, []string{"file-change.out.jsonl"}, rows)
	b.eval(t, totals, &total)
	require.Equal(t, "4", total.Turns)
	require.Equal(t, "1 of 4 runs", total.Runs)
	require.Equal(t, "total shown", total.File)
	b.typeInto(t, "filter", "unreadable")
	b.eval(t, files, &rows)
	require.Equal(t, []string{"broken.jsonl"}, rows)
	requireClean(t, b, "index")

	// A row's link opens its page.
	b.typeInto(t, "filter", "showcase")
	page := filepath.Join(dir, "run0.html")
	b.reset(fileURL(t, page))
	b.do(t, chromedp.Click(chromedp.CSS(`#runs tbody tr:not([hidden]) a`)), chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)))
	var loc string
	b.eval(t, `location.pathname`, &loc)
	require.True(t, strings.HasSuffix(loc, "/run0.html"), loc)
}

// TestBrowserShowsWhatTextHides: in the browser a progress bar keeps its
// last state after the mark ␍, and bidi controls and invisible characters
// are drawn as marks: the page's text holds none of them.
func TestBrowserShowsWhatTextHides(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "hidden.dialog.jsonl")
	require.NoError(t, os.WriteFile(src, []byte(`{"seq":0,"ts":"2026-01-01T00:00:00Z","type":"init","data":{"task":"t","cwd":"/","model":"m","agent":"a"}}
{"seq":1,"ts":"2026-01-01T00:00:01Z","type":"message","role":"assistant","content":"abc\u202edef"}
{"seq":2,"ts":"2026-01-01T00:00:02Z","type":"tool","tool_id":"a","name":"Bash","status":"running","args":{"command":"echo \u2066x"}}
{"seq":3,"ts":"2026-01-01T00:00:03Z","type":"tool","tool_id":"a","name":"Bash","status":"success","result":"10%\r50%\r100%\nd\u200bone"}
{"seq":4,"ts":"2026-01-01T00:00:04Z","type":"complete","status":"success","turns":1,"duration_ms":4,"total_tokens":{"in":1,"out":1}}
`), 0o644))
	b.open(t, exportFile(t, src, dir), "")
	b.eval(t, `(() => { document.querySelectorAll('button.more, details').forEach(e => e.tagName === 'DETAILS' ? e.open = true : e.click()); return 1; })()`, new(int))
	b.settle(t)
	var text string
	b.eval(t, `document.getElementById('timeline').textContent`, &text)
	for _, want := range []string{"abc⟨U+202E⟩def", "␍100%", "d⟨U+200B⟩one", "echo ⟨U+2066⟩x"} {
		require.Contains(t, text, want)
	}
	require.NotContains(t, text, "50%")
	for _, raw := range []string{"\u202e", "\u2066", "\u200b", "\r"} {
		require.NotContains(t, text, raw)
	}
	requireClean(t, b, "loaded")
}
