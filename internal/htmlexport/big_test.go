package htmlexport_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/claude"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/htmlexport"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
	"github.com/ssebench/sse-dialog-convert/internal/sessiongen"
	"github.com/ssebench/sse-dialog-convert/internal/testskip"
)

// bigDialog converts a generated Claude session (built from our fixtures)
// into a dialog of at least minSize bytes, texts uncapped and no file
// budget (the budget cuts texts more as the file nears it: the dialog
// would approach minSize and never reach it). A dialog is about half its
// input, so the first session built is big enough; more are built only
// if the generator changes, each a quarter bigger.
func bigDialog(t *testing.T, minSize int) []byte {
	t.Helper()
	size := minSize * 2
	for built := 1; ; built++ {
		in, err := sessiongen.Claude(sessiongen.Options{Size: size, Seed: 1, Testdata: "../../testdata"})
		require.NoError(t, err)
		var out bytes.Buffer
		c := dispatch.New(&out, dialog.Options{MaxText: -1, MaxBytes: -1, Clock: dialog.FixedClock(time.Unix(1767225600, 0).UTC()), CWD: "/fixture"},
			dispatch.Options{Formats: []adapter.Format{claude.Format()}, Forced: true})
		require.NoError(t, c.Feed(bytes.NewReader(in), "generated"))
		require.NoError(t, c.Close(nil))
		if out.Len() >= minSize {
			return out.Bytes()
		}
		require.Less(t, built, 4, "%d sessions built, the last of %d bytes gave a dialog of %d: the generator no longer grows the dialog with its size", built, size, out.Len())
		size += size / 4
	}
}

// Deadlines of the big page's steps, generous for a loaded 2-core machine
// (the page itself is meant to show its first screen within 2 s).
const (
	bigLoadTimeout   = 3 * time.Minute // navigate until the first screen
	bigBuildTimeout  = 3 * time.Minute // then until every block is built
	bigSearchTimeout = 2 * time.Minute
)

// TestBrowserBigDialog opens the page of a 30 MiB dialog. It logs how long
// the first screen took (the acceptance bound is 2 s in Chromium; time is
// not asserted here, the machine is shared) and checks that every block
// is built and that search finds a string from a tool result. -short
// skips it. The dialog and its page are built before the browser starts,
// and each step has its own deadline.
//
//	go test -run TestBrowserBigDialog -v ./internal/htmlexport/
//
// BIG_DIALOG=path measures that dialog instead of the generated one.
func TestBrowserBigDialog(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 30 MiB page is skipped")
	}
	chromiumPath(t) // before the dialog is built: skip at once without it
	dir := t.TempDir()
	var err error
	dialogPath := os.Getenv("BIG_DIALOG")
	var raw []byte
	if dialogPath != "" {
		raw, err = os.ReadFile(dialogPath)
		require.NoError(t, err)
	} else {
		raw = bigDialog(t, 30<<20)
		dialogPath = filepath.Join(dir, "big.dialog.jsonl")
		require.NoError(t, os.WriteFile(dialogPath, raw, 0o644))
	}
	d, err := dialogread.Read(bytes.NewReader(raw), nil)
	require.NoError(t, err)
	var html bytes.Buffer
	require.NoError(t, htmlexport.Write(&html, d, htmlexport.Options{Source: "big"}))
	pagePath := filepath.Join(dir, "big.html")
	require.NoError(t, os.WriteFile(pagePath, html.Bytes(), 0o644))
	t.Logf("dialog %.1f MiB, %d entries; page %.1f MiB", float64(len(raw))/(1<<20), d.Count, float64(html.Len())/(1<<20))

	_, blocks := expectedBlocks(t, dialogPath)
	var needle string // a string from the last tool result with text
	for i := len(d.Nodes) - 1; i >= 0 && needle == ""; i-- {
		if n := d.Nodes[i]; n.IsTool() && n.Result != nil && len(n.Result.Result) > 10 {
			needle = n.Result.Result[:min(40, len(n.Result.Result))]
		}
	}
	require.NotEmpty(t, needle)

	b := newBrowser(t)
	u := fileURL(t, pagePath)
	b.reset(u)
	start := time.Now()
	b.within(t, bigLoadTimeout, chromedp.Navigate(u), chromedp.WaitVisible(chromedp.CSS(`body[data-first-screen]`)))
	wall := time.Since(start)
	var first string
	b.eval(t, `document.body.getAttribute('data-first-screen')`, &first)
	ms, err := strconv.Atoi(first)
	require.NoError(t, err)
	t.Logf("first screen: %d ms after navigation start (performance.now), %v wall clock from Navigate to seeing it", ms, wall.Round(time.Millisecond))

	b.within(t, bigBuildTimeout, chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)))
	t.Logf("every block built: %v after Navigate", time.Since(start).Round(time.Millisecond))
	var got int
	b.eval(t, `document.querySelectorAll('#timeline .entry').length`, &got)
	require.Equal(t, blocks, got)
	var filledOnScreen int
	b.eval(t, `Array.from(document.querySelectorAll('#timeline .page > .entry')).slice(0, 5).filter(e => e.querySelector('.bd').childNodes.length > 0).length`, &filledOnScreen)
	require.Positive(t, filledOnScreen, "the first screen has bodies")

	searchStart := time.Now()
	b.evalWithin(t, bigSearchTimeout, `(() => { const s = document.getElementById('search'); s.value = `+strconv.Quote(needle)+`; s.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); return document.getElementById('search-count').textContent; })()`, new(string))
	t.Logf("search over every entry: %v", time.Since(searchStart).Round(time.Millisecond))
	var hits int
	b.eval(t, `document.querySelectorAll('#timeline .entry.hit').length`, &hits)
	require.Positive(t, hits)
	requireClean(t, b, "big page")
}

// convertFile converts a Claude or Codex capture into a dialog.
func convertFile(t *testing.T, path string) []byte {
	t.Helper()
	in, err := os.ReadFile(path)
	require.NoError(t, err)
	var out bytes.Buffer
	c := dispatch.New(&out, dialog.Options{Clock: dialog.FixedClock(time.Unix(1767225600, 0).UTC()), CWD: "/fixture", Saved: true},
		dispatch.Options{Formats: registry.All()})
	require.NoError(t, c.Feed(bytes.NewReader(in), path))
	require.NoError(t, c.Close(nil))
	return out.Bytes()
}

// TestBrowserCorpus opens the page of every real Claude and Codex capture
// in ../shared/corpus: no error, no request, every entry there.
func TestBrowserCorpus(t *testing.T) {
	var files []string
	for _, f := range []string{"claude", "codex"} {
		for _, ext := range []string{"*.jsonl", "*.ndjson"} {
			m, _ := filepath.Glob(filepath.Join("../../../shared/corpus", f, ext))
			files = append(files, m...)
		}
	}
	if len(files) == 0 {
		testskip.Missing(t, "no Claude or Codex captures in ../shared/corpus (the shared corpus beside the repo)")
	}
	b := newBrowser(t)
	dir := t.TempDir()
	for _, f := range files {
		path := filepath.Join(dir, filepath.Base(f)+".dialog.jsonl")
		require.NoError(t, os.WriteFile(path, convertFile(t, f), 0o644))
		page := exportFile(t, path, dir)
		b.open(t, page, "")
		requireClean(t, b, f)
		requireEveryEntry(t, b, path, f)
	}
}
