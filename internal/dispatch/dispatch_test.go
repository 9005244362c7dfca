package dispatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dialogcheck"
	_ "github.com/ssebench/sse-dialog-convert/internal/golden" // registers -update
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// testFormat is a toy input format, so these tests pin the pipeline and not
// an adapter: {"t":"say","text":…}, {"t":"tool","id":…}, {"t":"done","id":…},
// {"t":"end"}, {"t":"bad"} (malformed) and {"t":"panic"} (an adapter bug).
// An event with "t" is surely its own; one with "maybe_t" might be.
var testFormat = adapter.Format{
	Name:  "t",
	Title: "the test format",
	Detect: func(ev adapter.Event) adapter.Claim {
		switch {
		case ev.Get("t").Exists():
			return adapter.Yes
		case ev.Get("maybe_t").Exists():
			return adapter.Maybe
		}
		return adapter.No
	},
	New: func(w *dialog.Writer) adapter.Adapter { return &testAdapter{w: w} },
}

type testAdapter struct {
	w *dialog.Writer
	s dialog.Summary
}

func (a *testAdapter) Event(ev adapter.Event) error {
	switch ev.Get("t").Str() {
	case "say":
		a.w.Message(dialog.Message{Content: dialog.Lit(ev.Get("text").Lit())})
	case "tool":
		a.w.ToolStart(dialog.ToolCall{ID: ev.Get("id").Str(), Name: "Bash"})
	case "done":
		a.w.ToolEnd(dialog.ToolResult{ID: ev.Get("id").Str(), Output: dialog.Lit(ev.Get("out").Lit())})
	case "end":
		a.s.Status = dialog.StatusSuccess
	case "bad":
		return errors.New("bad event")
	case "panic":
		panic("a bug in the adapter")
	}
	return nil
}

func (a *testAdapter) Summary() dialog.Summary { return a.s }

var testClock = dialog.FixedClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

// convertAll converts in and returns the dialog, the diagnostics and the stats.
func convertAll(t *testing.T, in string, opt Options) (string, string, Stats) {
	t.Helper()
	var out, diag bytes.Buffer
	if opt.Formats == nil {
		opt.Formats = []adapter.Format{testFormat}
	}
	opt.Stderr = &diag
	c := New(&out, dialog.Options{Clock: testClock}, opt)
	require.NoError(t, c.Feed(strings.NewReader(in), "in"))
	require.NoError(t, c.Close(nil))
	requireValidDialog(t, out.Bytes())
	return out.String(), diag.String(), c.Stats()
}

func requireValidDialog(t testing.TB, out []byte) {
	t.Helper()
	var findings []string
	_, err := dialogcheck.Validate(bytes.NewReader(out), func(f dialogcheck.Finding) { findings = append(findings, f.String()) })
	require.NoError(t, err)
	require.Empty(t, findings, "the dialog breaks the contract:\n%s", out)
}

// entryTypes lists the type (and tool status) of each entry.
func entryTypes(t *testing.T, dialogText string) []string {
	t.Helper()
	var got []string
	for _, line := range strings.Split(strings.TrimSuffix(dialogText, "\n"), "\n") {
		var e struct{ Type, Status string }
		require.NoError(t, json.Unmarshal([]byte(line), &e))
		if e.Type == "tool" || e.Type == "complete" {
			e.Type += ":" + e.Status
		}
		got = append(got, e.Type)
	}
	return got
}

func TestFeedSkipsWhatIsNotAnEventAndGoesOn(t *testing.T) {
	tests := []struct {
		name, line, problem string
	}{
		{"not JSON", "hello world", `in:2: skipped: not valid JSON ("hello world"…)`},
		{"ANSI codes", "\x1b[31mred\x1b[0m", `in:2: skipped: not valid JSON ("\x1b[31mred\x1b[0m"…)`},
		{"a number", "42", `in:2: skipped: a JSON value that is not an object ("42"…)`},
		{"a string", `"s"`, `in:2: skipped: a JSON value that is not an object ("\"s\""…)`},
		{"null", "null", `in:2: skipped: a JSON value that is not an object ("null"…)`},
		{"an array of numbers", "[1,2]", `in:2: skipped: a JSON value that is not an object ("1"…)`},
		{"NUL bytes", "\x00\x00", `in:2: skipped: not valid JSON ("\x00\x00"…)`},
		{"raw control byte in a string", "{\"t\":\"say\",\"text\":\"a\x01\"}", `in:2: skipped: not valid JSON ("{\"t\":\"say\",\"text\":\"a\x01\"}"…)`},
		{"malformed event", `{"t":"bad"}`, "in:2: skipped: bad event"},
		{"adapter bug", `{"t":"panic"}`, "in:2: skipped: internal error, please report it: a bug in the adapter"},
		{"too deep", strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), "in:2: skipped: nested too deep"},
		{"long line previewed briefly", strings.Repeat("z", 1000), `in:2: skipped: not valid JSON ("` + strings.Repeat("z", 40) + `"…)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := `{"t":"say","text":"one"}` + "\n" + tt.line + "\n" + `{"t":"say","text":"two"}` + "\n" + `{"t":"end"}` + "\n"
			out, diag, st := convertAll(t, in, Options{})
			assert.Equal(t, tt.problem+"\n", diag)
			assert.Equal(t, 1, st.Bad)
			assert.Equal(t, []string{"init", "message", "message", "complete:success"}, entryTypes(t, out))
		})
	}
}

func TestFeedAcceptsWhatIsAnEvent(t *testing.T) {
	deep := strings.Repeat(`{"a":`, MaxDepth-1) + "1" + strings.Repeat("}", MaxDepth-1)
	tests := []struct{ name, in string }{
		{"CRLF", "{\"t\":\"say\",\"text\":\"one\"}\r\n{\"t\":\"end\"}\r\n"},
		{"BOM", "\xef\xbb\xbf{\"t\":\"say\",\"text\":\"one\"}\n{\"t\":\"end\"}\n"},
		{"no final newline", "{\"t\":\"say\",\"text\":\"one\"}\n{\"t\":\"end\"}"},
		{"blank lines", "\n\n{\"t\":\"say\",\"text\":\"one\"}\n  \n\r\n{\"t\":\"end\"}\n\n"},
		{"pretty-printed", "{\n  \"t\": \"say\",\n  \"text\": \"one\"\n}\n{\n  \"t\": \"end\"\n}\n"},
		{"an array of events", `[{"t":"say","text":"one"},{"t":"end"}]` + "\n"},
		{"nested to the limit", `{"t":"say","text":"one","x":` + deep + "}\n" + `{"t":"end"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, diag, st := convertAll(t, tt.in, Options{})
			assert.Empty(t, diag)
			assert.Zero(t, st.Bad)
			assert.Equal(t, []string{"init", "message", "complete:success"}, entryTypes(t, out))
			assert.Contains(t, out, `"content":"one"`)
		})
	}
}

// Bad lines are reported one by one up to maxReports per input, then
// counted in one line: stderr stays short however broken the input.
func TestFeedReportsBadLinesBriefly(t *testing.T) {
	var in strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&in, "noise %d\n{\"t\":\"say\",\"text\":\"m%d\"}\n", i, i)
	}
	out, diag, st := convertAll(t, in.String(), Options{})
	lines := strings.Split(strings.TrimSuffix(diag, "\n"), "\n")
	require.Len(t, lines, maxReports+1)
	assert.Equal(t, `in:1: skipped: not valid JSON ("noise 0"…)`, lines[0])
	assert.Equal(t, `in:19: skipped: not valid JSON ("noise 9"…)`, lines[maxReports-1])
	assert.Equal(t, "in: 990 more bad lines skipped (1000 in all)", lines[maxReports])
	assert.Equal(t, Stats{Lines: 2000, Records: 1000, Bad: 1000, Recognised: 1}, st)
	assert.Equal(t, 1000, strings.Count(out, `"type":"message"`))
}

func TestFeedCountsLinesAcrossInputs(t *testing.T) {
	var out bytes.Buffer
	c := New(&out, dialog.Options{Clock: testClock}, Options{Formats: []adapter.Format{testFormat}})
	require.NoError(t, c.Feed(strings.NewReader("{}\n{}\n"), "a"))
	require.NoError(t, c.Feed(strings.NewReader("{}\n{}\n{}"), "b"))
	assert.Equal(t, 5, c.Stats().Lines)
}

// Records of no known format are held until the format shows, then replayed
// in order; at most maxHeld of them.
func TestFeedReplaysRecordsHeldBeforeDetection(t *testing.T) {
	other := adapter.Format{
		Name: "o",
		Detect: func(ev adapter.Event) adapter.Claim {
			return map[bool]adapter.Claim{true: adapter.Yes}[ev.Get("o").Exists()]
		},
		New: func(w *dialog.Writer) adapter.Adapter { return &testAdapter{w: w} },
	}
	in := `{"text":"held"}` + "\n" + `{"t":"say","text":"first"}` + "\n"
	_, _, st := convertAll(t, in, Options{Formats: []adapter.Format{other, testFormat}})
	assert.Equal(t, Stats{Lines: 2, Records: 2, Recognised: 1}, st)

	var many strings.Builder
	for range maxHeld + 10 {
		many.WriteString(`{"x":1}` + "\n")
	}
	many.WriteString(`{"t":"end"}` + "\n")
	_, _, st = convertAll(t, many.String(), Options{Formats: []adapter.Format{other, testFormat}})
	assert.Equal(t, Stats{Lines: maxHeld + 11, Records: maxHeld + 1, Unknown: 10, Recognised: 1}, st)

	// Held records are bounded in bytes too: memory follows the longest
	// line, not the input.
	big := `{"x":"` + strings.Repeat("x", maxHeldBytes/3) + `"}` + "\n"
	_, _, st = convertAll(t, strings.Repeat(big, 5)+`{"t":"end"}`, Options{Formats: []adapter.Format{other, testFormat}})
	assert.Equal(t, Stats{Lines: 6, Records: 3, Unknown: 3, Recognised: 1}, st)
}

// Events only Maybe-claimed wait for a Yes; when none comes, the format
// with the most claims takes them at the end (or when the held events fill up).
func TestDetectionByClaims(t *testing.T) {
	maybeOther := adapter.Format{
		Name: "o", Title: "the other format",
		Detect: func(ev adapter.Event) adapter.Claim {
			if ev.Get("maybe_o").Exists() || ev.Get("maybe_t").Exists() {
				return adapter.Maybe
			}
			return adapter.No
		},
		New: func(w *dialog.Writer) adapter.Adapter { return &testAdapter{w: w} },
	}
	formats := []adapter.Format{maybeOther, testFormat}

	// Two formats claim the first event alike; the second is only testFormat's.
	in := `{"maybe_t":1,"t":"say","text":"a"}` + "\n"
	out, _, st := convertAll(t, `{"maybe_t":1}`+"\n"+in, Options{Formats: formats})
	assert.Equal(t, Stats{Lines: 2, Records: 2, Recognised: 1}, st)
	assert.Contains(t, out, `"content":"a"`)

	// Only Maybe claims, testFormat's more often: it wins at the end.
	out, _, st = convertAll(t, `{"maybe_t":1}`+"\n"+`{"maybe_t":2,"t2":"x"}`+"\n"+`{"maybe_o":1}`+"\n", Options{Formats: []adapter.Format{maybeOther, {
		Name: "t", Detect: func(ev adapter.Event) adapter.Claim {
			if ev.Get("maybe_t").Exists() {
				return adapter.Maybe
			}
			return adapter.No
		}, New: testFormat.New}}})
	assert.Equal(t, 3, st.Records)
	assert.Equal(t, []string{"init", "complete:error"}, entryTypes(t, out))
}

// A forced format that claims none of the input's events: the input says
// what it looks like.
func TestLooksLike(t *testing.T) {
	other := adapter.Format{
		Name: "o", Title: "the other format",
		Detect: func(ev adapter.Event) adapter.Claim {
			return map[bool]adapter.Claim{true: adapter.Yes}[ev.Get("o").Exists()]
		},
		New: func(w *dialog.Writer) adapter.Adapter { return &testAdapter{w: w} },
	}
	unread := adapter.Format{
		Name: "u", Title: "a format not read yet",
		Detect: func(ev adapter.Event) adapter.Claim {
			return map[bool]adapter.Claim{true: adapter.Yes}[ev.Get("u").Exists()]
		},
	}
	all := []adapter.Format{testFormat, other, unread}
	run := func(in string, opt Options) *Converter {
		t.Helper()
		var out bytes.Buffer
		c := New(&out, dialog.Options{Clock: testClock}, opt)
		require.NoError(t, c.Feed(strings.NewReader(in), "in"))
		require.NoError(t, c.Close(nil))
		requireValidDialog(t, out.Bytes())
		return c
	}
	// Forced to testFormat, the input is the other format's.
	c := run(`{"o":1}`+"\n"+`{"o":2}`+"\n", Options{Formats: all, Forced: true})
	assert.Zero(t, c.Stats().Recognised)
	f, ok := c.LooksLike()
	require.True(t, ok)
	assert.Equal(t, "o", f.Name)

	// Forced right: nothing to say.
	c = run(`{"t":"say","text":"x"}`+"\n", Options{Formats: all, Forced: true})
	assert.Equal(t, 1, c.Stats().Recognised)

	// Auto, and the input is a format recognised but not read.
	c = run(`{"u":1}`+"\n"+`{"u":2}`+"\n", Options{Formats: all})
	assert.Equal(t, 2, c.Stats().Unknown)
	f, ok = c.LooksLike()
	require.True(t, ok)
	assert.Equal(t, "u", f.Name)

	// Auto, and no format knows the input.
	c = run(`{"z":1}`+"\n", Options{Formats: all})
	_, ok = c.LooksLike()
	assert.False(t, ok)
	_, ok = c.Format()
	assert.False(t, ok)
}

func TestTeeCopiesTheInputByteForByte(t *testing.T) {
	in := "\xef\xbb\xbf{\"t\":\"say\",\"text\":\"a\"}\r\n\n  \nnoise \x1b[0m\x00\xff\n{\n  \"t\": \"end\"\n}\n{\"t\":\"sa"
	var tee bytes.Buffer
	_, _, _ = convertAll(t, in, Options{Tee: &tee})
	assert.Equal(t, in, tee.String())
}

type failAfter struct {
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	f.n--
	return len(p), nil
}

// A reader of --tee that goes away costs the copy, never the dialog.
func TestTeeFailureKeepsTheDialog(t *testing.T) {
	epipe := errors.New("broken pipe")
	var out bytes.Buffer
	c := New(&out, dialog.Options{Clock: testClock}, Options{Formats: []adapter.Format{testFormat}, Tee: &failAfter{1, epipe}})
	in := `{"t":"say","text":"a"}` + "\n" + `{"t":"say","text":"b"}` + "\n" + `{"t":"end"}` + "\n"
	require.NoError(t, c.Feed(iotest.OneByteReader(strings.NewReader(in)), "in")) // several reads: the copy fails after the first
	require.NoError(t, c.Close(nil))
	assert.ErrorIs(t, c.TeeErr(), epipe)
	requireValidDialog(t, out.Bytes())
	assert.Equal(t, []string{"init", "message", "message", "complete:success"}, entryTypes(t, out.String()))
}

// stallWriter blocks every Write until released, like a pipe whose reader
// stopped reading.
type stallWriter struct {
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (s *stallWriter) Write(p []byte) (int, error) {
	s.once.Do(func() { close(s.entered) })
	<-s.release
	return len(p), nil
}

// A signal closes the dialog while Feed is stuck writing --tee: the copy is
// written outside the lock Close needs.
func TestCloseWhileTeeStalls(t *testing.T) {
	tee := &stallWriter{entered: make(chan struct{}), release: make(chan struct{})}
	defer close(tee.release)
	// A plain buffer: the dialog is written under the converter's lock,
	// and read here only after Close returned (Feed stays held in the
	// stalled tee until the test ends), so a write the race detector
	// finds concurrent with the read is a bug of Close.
	var out bytes.Buffer
	c := New(&out, dialog.Options{Clock: testClock}, Options{Formats: []adapter.Format{testFormat}, Tee: tee})
	pr, pw := io.Pipe()
	go func() { _ = c.Feed(pr, "in") }()
	defer pw.Close()
	_, err := io.WriteString(pw, `{"t":"tool","id":"x"}`+"\n"+`{"t":"say","text":"b"}`+"\n")
	require.NoError(t, err)
	<-tee.entered

	closed := make(chan error, 1)
	go func() {
		closed <- c.Close(&dialog.Ending{Status: dialog.StatusTimeout, Reason: dialog.ReasonSignal, Message: "stopped by SIGTERM"})
	}()
	select {
	case err := <-closed:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Close waited for the stalled --tee reader")
	}
	got := out.String()
	requireValidDialog(t, []byte(got))
	assert.Contains(t, got, `"status":"timeout"`)
}

func TestFeedStopsAtAnOutputError(t *testing.T) {
	full := errors.New("no space left on device")
	c := New(&failAfter{0, full}, dialog.Options{Clock: testClock}, Options{Formats: []adapter.Format{testFormat}, SinkSize: 100})
	in := strings.Repeat(`{"t":"say","text":"aaaaaaaaaaaaaaaaaaaaa"}`+"\n", 100)
	err := c.Feed(strings.NewReader(in), "in")
	var oe *OutputError
	require.ErrorAs(t, err, &oe)
	assert.ErrorIs(t, err, full)
	assert.Less(t, c.Stats().Lines, 10, "reading stops soon after the first write that fails")
}

// chunkWriter passes each write to a channel.
type chunkWriter chan string

func (l chunkWriter) Write(p []byte) (int, error) {
	l <- string(p)
	return len(p), nil
}

// Each entry is written before the converter waits for the next input line:
// the test writes a line into a pipe and waits for its entry before it
// writes the next. Entries are whole in every write.
func TestFeedIsLive(t *testing.T) {
	writes := make(chunkWriter, 16)
	c := New(writes, dialog.Options{Clock: testClock}, Options{Formats: []adapter.Format{testFormat}})
	pr, pw := io.Pipe()
	fed := make(chan error, 1)
	go func() { fed <- c.Feed(pr, "in") }()
	steps := []struct{ line, want string }{
		{`{"t":"say","text":"one"}`, `"content":"one"`},
		{`{"t":"tool","id":"a"}`, `"status":"running"`},
		{`noise`, ""},
		{`{"t":"done","id":"a","out":"ok"}`, `"result":"ok"`},
		{"{\r\n  \"t\": \"say\", \"text\": \"two\"\r\n}\r", ""},
		{"", `"content":"two"`},
		// The next line arrives in two pieces: its entry waits for its end,
		// and the one before it does not wait for it.
		{`{"t":"say","text":"three"}` + "\n" + `{"t":"say",`, `"content":"three"`},
		{`"text":"four"}`, `"content":"four"`},
	}
	for i, s := range steps {
		if s.line != "" {
			end := "\n"
			if strings.HasSuffix(s.line, ",") {
				end = ""
			}
			_, err := io.WriteString(pw, s.line+end)
			require.NoError(t, err, "step %d", i)
		}
		if s.want == "" {
			continue
		}
		select {
		case w := <-writes:
			assert.Contains(t, w, s.want, "step %d", i)
			assert.True(t, strings.HasSuffix(w, "}\n"), "step %d: a write ends with a whole entry: %q", i, w)
		case <-time.After(30 * time.Second):
			t.Fatalf("step %d: no entry after the line %q", i, s.line)
		}
	}
	select {
	case w := <-writes:
		t.Fatalf("a write nobody asked for: %s", w)
	default:
	}
	require.NoError(t, pw.Close())
	require.NoError(t, <-fed)
}

// A record over MaxLine is skipped as too long, counted and reported, and
// the rest of the input converts; --tee still gets every byte.
func TestFeedMaxLine(t *testing.T) {
	long := `{"t":"say","text":"` + strings.Repeat("x", 600<<10) + `"}`
	in := `{"t":"say","text":"before"}` + "\n" + long + "\n" + `{"t":"say","text":"after"}` + "\n" + `{"t":"end"}` + "\n"
	var tee bytes.Buffer
	out, diag, st := convertAll(t, in, Options{MaxLine: 100, Tee: &tee})
	assert.Equal(t, "in:2: skipped: longer than the line limit of 100 bytes (--max-line)\n", diag)
	assert.Equal(t, 1, st.Bad)
	assert.Equal(t, []string{"init", "message", "message", "complete:success"}, entryTypes(t, out))
	assert.Contains(t, out, `"after"`)
	assert.Equal(t, in, tee.String())

	// The default holds it.
	out, diag, _ = convertAll(t, in, Options{})
	assert.Empty(t, diag)
	assert.Equal(t, []string{"init", "message", "message", "message", "complete:success"}, entryTypes(t, out))
}

// Status is what the complete entry said.
func TestStatus(t *testing.T) {
	for in, want := range map[string]dialog.Status{
		`{"t":"end"}`:     dialog.StatusSuccess,
		`{"t":"say"}`:     dialog.StatusError, // no ending: incomplete
		`{"t":"timeout"}`: dialog.StatusError,
	} {
		c := New(io.Discard, dialog.Options{Clock: testClock}, Options{Formats: []adapter.Format{testFormat}})
		require.NoError(t, c.Feed(strings.NewReader(in), "in"))
		assert.Empty(t, c.Status(), "not closed yet")
		require.NoError(t, c.Close(nil))
		assert.Equal(t, want, c.Status(), in)
	}
	c := New(io.Discard, dialog.Options{Clock: testClock}, Options{Formats: []adapter.Format{testFormat}})
	require.NoError(t, c.Close(&dialog.Ending{Status: dialog.StatusTimeout, Reason: dialog.ReasonSignal}))
	assert.Equal(t, dialog.StatusTimeout, c.Status())
}

// convert skips checkProblem for an object the checker found good: it
// must have nothing to say about one.
func TestCheckProblemNoneForAGoodObject(t *testing.T) {
	for _, v := range []jsonraw.Verdict{jsonraw.Clean, jsonraw.Dirty} {
		assert.Empty(t, checkProblem(v, []byte(`{"a":1}`)))
		assert.NotEmpty(t, checkProblem(v, []byte(`1`)))
	}
	for _, v := range []jsonraw.Verdict{jsonraw.Invalid, jsonraw.TooDeep} {
		assert.NotEmpty(t, checkProblem(v, []byte(`{"a":1}`)))
	}
}

// A conversion that runs on a Scratch another conversion used first makes
// the dialog, diagnostics and counts a conversion of its own makes: nothing
// of the first input (a line cut short, a pretty object left open, bad
// lines, pending entries, a tool still open, a line longer than the
// scratch keeps) shows in the second; and the second reuses the memory.
func TestScratchCarriesNothingToTheNextConversion(t *testing.T) {
	firsts := map[string]string{
		"cut line":        `{"t":"say","text":"first"}` + "\n" + `{"t":"tool","id":"a"}` + "\n" + `{"t":"say","te`,
		"open pretty":     `{"t":"say","text":"first"}` + "\n{\n  \"t\": \"say\",\n",
		"bad lines":       strings.Repeat("not json\n", maxReports+2) + `{"t":"bad"}` + "\n",
		"unknown format":  `{"x":1}` + "\n",
		"long line":       `{"t":"say","text":"` + strings.Repeat("x", 2<<20) + `"}` + "\n",
		"many entries":    strings.Repeat(`{"t":"say","text":"`+strings.Repeat("y", 1000)+`"}`+"\n", 200),
		"empty":           "",
		"no final object": "{}\n[1,2]\n",
	}
	seconds := []string{
		`{"t":"say","text":"second"}` + "\n" + `{"t":"tool","id":"a"}` + "\n" + `{"t":"done","id":"a","out":"ok"}` + "\n" + `{"t":"end"}` + "\n",
		"{\n  \"t\": \"say\",\n  \"text\": \"pretty\"\n}\nnot json\n" + `{"t":"end"}`,
		`{"t":"say","text":"` + strings.Repeat("z", 40<<10) + `"}` + "\n",
	}
	for name, first := range firsts {
		for i, second := range seconds {
			for _, readSizes := range [][2]int{{16 << 10, 16 << 10}, {16 << 10, 0}, {0, 16 << 10}} {
				opt := Options{ReadSize: readSizes[1]}
				want, wantDiag, wantStats := convertAll(t, second, opt)

				var s Scratch
				_, _, _ = convertAll(t, first, Options{ReadSize: readSizes[0], Scratch: &s})
				opt.Scratch = &s
				got, diag, stats := convertAll(t, second, opt)
				what := fmt.Sprintf("%s, then input %d, read sizes %v", name, i, readSizes)
				assert.Equal(t, want, got, what)
				assert.Equal(t, wantDiag, diag, what)
				assert.Equal(t, wantStats, stats, what)
			}
		}
	}

	// The second conversion takes the first's memory: it allocates less.
	in := strings.Repeat(`{"t":"say","text":"`+strings.Repeat("y", 100)+`"}`+"\n", 50)
	var s Scratch
	alone := testing.AllocsPerRun(5, func() { convertQuiet(in, Options{ReadSize: 16 << 10}) })
	reused := testing.AllocsPerRun(5, func() { convertQuiet(in, Options{ReadSize: 16 << 10, Scratch: &s}) })
	assert.Less(t, reused, alone)
}

// convertQuiet converts in, for counting allocations.
func convertQuiet(in string, opt Options) {
	opt.Formats = []adapter.Format{testFormat}
	c := New(io.Discard, dialog.Options{Clock: testClock}, opt)
	_ = c.Feed(strings.NewReader(in), "in")
	_ = c.Close(nil)
}
