// Package dispatch runs a conversion: it takes the records of the input
// (internal/frame), checks each one (jsonraw.Checker), finds the input's
// format among those it is given (detection), hands each event to that
// format's adapter, and makes sure bad input is skipped, counted and
// reported briefly without ever stopping the run. The dialog's entries go
// through a sink.Sink that is flushed right before the input is waited on.
package dispatch

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
	"github.com/ssebench/sse-dialog-convert/internal/sink"
)

// Stats counts what a conversion saw.
type Stats struct {
	Lines   int // input lines read
	Records int // events handed to the adapter
	Bad     int // records skipped as broken (not JSON, not an object, malformed)
	Unknown int // JSON objects of no format the conversion reads
	// Recognised is more than 0 once the chosen (or forced) format has
	// claimed an event as its own.
	Recognised int
}

// maxReports is how many bad records are reported one by one per input;
// the rest are counted in one closing line.
const maxReports = 10

// maxHeld bounds the records kept while the format is still unknown, to be
// replayed once it is known; maxHeldBytes bounds their size, so that a
// stream of huge unknown records cannot make memory follow the input.
const (
	maxHeld      = 64
	maxHeldBytes = 1 << 20
)

// Options configure a Converter.
type Options struct {
	// Formats are the formats the input may be in, in the order detection
	// prefers them.
	Formats []adapter.Format
	// CountKinds counts every record by its kind in Accounting.Kinds
	// (--stats); without it only the totals and the skips are counted.
	CountKinds bool
	// Forced says the input is in Formats[0]: no detection.
	Forced bool
	// Stderr receives the diagnostics for bad input.
	Stderr io.Writer
	// Tee, when set, receives every input byte unchanged as it is read.
	Tee io.Writer
	// SinkSize is how many bytes of entries may wait to be written while
	// input is still buffered (sink.DefaultSize when 0).
	SinkSize int
	// MaxLine is the longest record held in memory, line endings aside: a
	// longer one is read on to its end without being held, and skipped as
	// bad (frame.Options.MaxLine: 0 means frame.DefaultMaxLine, < 0 none).
	MaxLine int64
	// ReadSize is the size of the input's read buffer
	// (frame.Options.ReadSize: 0 means frame.DefaultReadSize).
	ReadSize int
	// Scratch, when set, is memory handed on from the conversion before,
	// kept for the one after (see Scratch).
	Scratch *Scratch
}

// Scratch is the memory a conversion can hand on to the next, when
// conversions run one after another (a batch worker's files): the read
// buffer, the checker's record of a line, the buffer of pending entries.
// A batch of small files would otherwise allocate them anew for each
// file, and collect them after. Its zero value is ready to
// use. It serves one Converter at a time: the next may start once Feed
// has returned and Close was called.
type Scratch struct {
	fr  *frame.Reader
	chk jsonraw.Checker
	out []byte // the sink's buffer, handed back by Close
}

// Converter converts one or more inputs into one dialog. Feed and Close
// may be called from different goroutines (a signal handler closes the
// dialog while Feed waits for input): a mutex keeps each record whole.
type Converter struct {
	mu      sync.Mutex
	w       *dialog.Writer
	clock   *readClock
	sink    *sink.Sink
	opt     Options
	format  *adapter.Format // decided, or forced
	adapter adapter.Adapter
	claims  []int    // Maybe claims per format while undecided
	looks   []int    // claims per format, for LooksLike
	held    [][]byte // records held while the format is unknown, checked again on replay
	heldLen int
	stats   Stats
	acct    accounts
	closed  bool
	status  dialog.Status // the complete entry's, once closed
	teeErr  error
	at      *adapter.LineError // where the record's problem is, when the adapter said
}

// New returns a Converter that writes the dialog to out.
func New(out io.Writer, wopt dialog.Options, opt Options) *Converter {
	if opt.Stderr == nil {
		opt.Stderr = io.Discard
	}
	var s *sink.Sink
	if opt.Scratch != nil {
		s = sink.NewBuffer(out, opt.SinkSize, opt.Scratch.out)
		opt.Scratch.out = nil
	} else {
		s = sink.New(out, opt.SinkSize)
	}
	if wopt.Clock == nil {
		wopt.Clock = dialog.SystemClock{}
	}
	clock := &readClock{clock: wopt.Clock}
	wopt.Clock = clock
	c := &Converter{
		clock:  clock,
		sink:   s,
		opt:    opt,
		claims: make([]int, len(opt.Formats)),
		looks:  make([]int, len(opt.Formats)),
	}
	c.acct.init()
	c.acct.kinds = opt.CountKinds
	skipped := wopt.Skipped
	wopt.Skipped = func(kind, reason string) {
		c.acct.skip(kind, reason)
		if skipped != nil {
			skipped(kind, reason)
		}
	}
	held := wopt.Held
	wopt.Held = func() {
		c.acct.held = true
		if held != nil {
			held()
		}
	}
	c.w = dialog.NewWriter(s, wopt)
	if opt.Forced && len(opt.Formats) > 0 {
		c.choose(0)
	}
	return c
}

// OutputError is a failure to write the dialog: it ends the run.
type OutputError struct{ Err error }

func (e *OutputError) Error() string { return e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// Feed converts everything r holds; name is used in diagnostics. It returns
// a read error, or an *OutputError when the dialog cannot be written.
// What it made is in the output before it waits for more input.
//
// Feed holds the converter's lock while it converts, and lets go of it
// only while it waits for input (see input): one lock a read of the input,
// not one a line, and a signal's Close still gets in whenever the input is
// slow to come.
func (c *Converter) Feed(r io.Reader, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	f := &feed{c: c, name: name, linesBefore: c.stats.Lines, teeing: c.opt.Tee != nil && c.teeErr == nil}
	rs := c.records(&input{f: f, r: r})
	for {
		rec, err := rs.Next()
		switch {
		case c.closed: // closed while this feed waited for input
			return nil
		case errors.Is(err, io.EOF):
			f.summarise()
			return c.flush()
		case err != nil:
			if ferr := c.flush(); ferr != nil {
				return ferr
			}
			return err
		}
		if done, err := f.convert(rec, rs.Lines()); done {
			return err
		}
	}
}

// records reads in: with the Scratch's reader and checker when it has
// them and they fit, else new ones (kept in the Scratch for the next
// input).
func (c *Converter) records(in *input) Records {
	opt := frame.Options{MaxLine: c.opt.MaxLine, ReadSize: c.opt.ReadSize}
	s := c.opt.Scratch
	if s == nil {
		return Records{fr: frame.NewReader(in, opt), chk: new(jsonraw.Checker)}
	}
	if s.fr == nil || !s.fr.Reset(in, opt) {
		s.fr = frame.NewReader(in, opt)
		s.chk = jsonraw.Checker{} // nor the checker's record of a long line
	}
	return Records{fr: s.fr, chk: &s.chk}
}

// input is the input as the framing reads it. Before each read, which may
// wait, the entries made so far are written out and the converter's lock
// is let go; what is read goes to --tee as it comes, outside the lock, so a
// --tee reader that stalls never holds up a signal's Close.
type input struct {
	f *feed
	r io.Reader
}

// errClosed ends the framing's reading when the dialog was closed while
// the feed waited for input.
var errClosed = errors.New("the dialog was closed")

func (in *input) Read(p []byte) (int, error) {
	c := in.f.c
	_ = c.sink.Flush() // an error stays in the sink; Feed reports it
	c.mu.Unlock()
	n, err := in.r.Read(p)
	in.f.tee(p[:n])
	c.mu.Lock()
	c.clock.arrived()
	if c.closed {
		return 0, errClosed
	}
	return n, err
}

func (c *Converter) flush() error {
	if err := c.sink.Flush(); err != nil {
		return &OutputError{err}
	}
	return nil
}

// feed is one call of Feed: its input's name, counts and --tee state.
type feed struct {
	c             *Converter
	name          string
	linesBefore   int
	teeing        bool
	reported, bad int
}

// convert converts one record and reports what was wrong with it. done is
// true when the feed must stop: the dialog cannot be written (err).
func (f *feed) convert(rec *Record, lines int) (done bool, err error) {
	c := f.c
	c.at = nil
	problem := rec.Problem
	c.stats.Lines = f.linesBefore + lines
	switch {
	case problem != "":
		c.stats.Bad++
		c.acct.dropped(ReasonBroken)
	case rec.Value.Exists():
		problem = c.record(rec)
	}
	werr := c.sink.Err()
	if problem != "" {
		f.bad++
		if f.reported < maxReports {
			f.reported++
			switch {
			case c.at != nil && c.at.Line > 0:
				fmt.Fprintf(c.opt.Stderr, "%s:%d: %s\n", c.at.File, c.at.Line, problem)
			case c.at != nil:
				fmt.Fprintf(c.opt.Stderr, "%s: %s\n", c.at.File, problem)
			default:
				fmt.Fprintf(c.opt.Stderr, "%s:%d: %s\n", f.name, rec.Line, problem)
			}
		}
	}
	if werr != nil {
		return true, &OutputError{werr}
	}
	return false, nil
}

// summarise reports the bad records that were not reported one by one.
func (f *feed) summarise() {
	if n := f.bad - f.reported; n == 1 {
		fmt.Fprintf(f.c.opt.Stderr, "%s: 1 more bad line skipped (%d in all)\n", f.name, f.bad)
	} else if n > 1 {
		fmt.Fprintf(f.c.opt.Stderr, "%s: %d more bad lines skipped (%d in all)\n", f.name, n, f.bad)
	}
}

// tee copies the input to --tee as it is read, outside the converter's
// lock; a reader of --tee that went away must not cost the dialog: copying
// stops.
func (f *feed) tee(b []byte) {
	if !f.teeing || len(b) == 0 {
		return
	}
	if _, err := f.c.opt.Tee.Write(b); err != nil {
		f.teeing = false
		f.c.mu.Lock()
		f.c.teeErr = err
		f.c.mu.Unlock()
	}
}

// record converts the events of one checked record, and returns the first
// thing wrong with them, if any.
func (c *Converter) record(rec *Record) string {
	if rec.Value.IsObject() { // its one event, as Events has it, without the walk
		return c.object(adapter.Event{Value: rec.Value})
	}
	problem, bad, events := "", c.stats.Bad, 0
	for e := rec.Events(); e.Next(); {
		events++
		p := e.Problem
		if p != "" {
			c.stats.Bad++
			c.acct.dropped(ReasonBroken)
		} else {
			p = c.object(e.Event)
		}
		if p != "" && problem == "" {
			problem = p
		}
	}
	if events == 0 {
		c.acct.dropped(dialog.SkipEmpty) // [] is a record, of nothing
	}
	c.stats.Bad = min(c.stats.Bad, bad+1) // one line, one count, as it is one report
	return problem
}

// object converts one event, and returns what was wrong with it, if
// anything.
func (c *Converter) object(ev adapter.Event) string {
	if c.format == nil && !c.detect(ev) {
		c.stats.Unknown++
		c.acct.dropped(ReasonUnknown)
		return ""
	}
	if c.adapter == nil { // a format recognised but not read
		c.stats.Unknown++
		c.acct.dropped(ReasonUnread)
		return ""
	}
	if c.stats.Recognised == 0 {
		c.recognise(ev)
	}
	c.stats.Records++
	c.acct.begin(ev.Value)
	before := c.w.Entries()
	err := c.event(ev)
	if err != nil {
		c.stats.Bad++
		reason := ReasonBroken
		if _, ok := err.(panicError); ok {
			reason = ReasonPanic
		}
		c.acct.skip("", reason)
	}
	c.acct.end(c.w.Entries() - before)
	if err != nil {
		return "skipped: " + err.Error()
	}
	return ""
}

// recognise is called until the chosen format claims an event: it notes
// what the other formats claim meanwhile, to say what the input looks like
// when the format was forced wrong.
func (c *Converter) recognise(ev adapter.Event) {
	if c.format.Detect(ev) != adapter.No {
		c.stats.Recognised++
		return
	}
	c.tally(ev, c.looks)
}

// tally adds the claims of every format on ev to counts (a Yes weighs more
// than a Maybe) and returns the first format that says Yes, or -1.
func (c *Converter) tally(ev adapter.Event, counts []int) int {
	yes := -1
	for i, f := range c.opt.Formats {
		switch f.Detect(ev) {
		case adapter.Yes:
			counts[i] += 4
			if yes < 0 {
				yes = i
			}
		case adapter.Maybe:
			counts[i]++
		}
	}
	return yes
}

// event hands ev to the adapter. A panic there is a bug, but one event must
// not cost the whole dialog (the writer keeps it valid whatever happens
// between its calls): it is reported as that event's problem, in one line.
func (c *Converter) event(ev adapter.Event) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError{fmt.Errorf("internal error, please report it: %v", r)}
		}
	}()
	c.w.BeginLine()
	err = c.adapter.Event(ev)
	if err != nil {
		var le *adapter.LineError
		if errors.As(err, &le) {
			c.at = le // reported where it is, not at the stream's line
		}
	}
	return err
}

// panicError is an adapter's panic on one event, as its error.
type panicError struct{ error }

// detect looks at an event while the format is unknown. The first event a
// format claims with Yes decides; events before it are held, to be
// replayed. When the held events fill up, the format with the most claims
// decides (see decide). It reports whether the format is now known.
func (c *Converter) detect(ev adapter.Event) bool {
	if yes := c.tally(ev, c.claims); yes >= 0 {
		c.choose(yes)
		c.replay()
		return true
	}
	if len(c.held) < maxHeld && c.heldLen+len(ev.Bytes()) <= maxHeldBytes {
		c.held = append(c.held, append([]byte(nil), ev.Bytes()...))
		c.heldLen += len(ev.Bytes())
		return false // held: counted as unknown until replayed
	}
	return c.decide()
}

// decide picks the format with the most claims, if any format has made
// one, and replays the held events.
func (c *Converter) decide() bool {
	best := -1
	for i, n := range c.claims {
		if n > 0 && (best < 0 || n > c.claims[best]) {
			best = i
		}
	}
	if best < 0 {
		return false
	}
	c.choose(best)
	c.replay()
	return true
}

func (c *Converter) choose(i int) {
	f := c.opt.Formats[i]
	c.format = &f
	if f.New != nil {
		c.adapter = f.Start(c.w)
	}
}

// replay converts the events held while the format was unknown.
func (c *Converter) replay() {
	held := c.held
	c.held, c.heldLen = nil, 0
	var chk jsonraw.Checker
	for _, h := range held {
		c.stats.Unknown--
		c.acct.undrop(ReasonUnknown)
		v, _ := chk.Value(h, MaxDepth)
		_ = c.object(adapter.Event{Value: v}) // problems with held events were not reported when they came; they are skipped alike
	}
}

// Close ends the dialog with the adapter's summary; ending, if not nil,
// overrides its status (a signal, a timeout). Only the first call writes.
func (c *Converter) Close(ending *dialog.Ending) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return c.flush()
	}
	if c.format == nil {
		c.decide() // the input ended with only Maybe claims
	}
	c.closed = true
	c.clock.arrived()
	c.w.BeginLine()
	if f, ok := c.adapter.(adapter.Finisher); ok {
		f.Finish()
	}
	var s dialog.Summary
	if c.adapter != nil {
		s = c.adapter.Summary()
	}
	err := c.w.Close(s, ending)
	c.status = c.w.Status()
	if err != nil {
		return &OutputError{err}
	}
	err = c.flush()
	if c.opt.Scratch != nil {
		c.opt.Scratch.out = c.sink.Release()
	}
	return err
}

// Status is the status the complete entry gave, once Close has written it.
func (c *Converter) Status() dialog.Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// Stats returns the counts so far.
func (c *Converter) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Accounting returns what became of the records read so far.
func (c *Converter) Accounting() Accounting {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.acct.copy()
}

// Entries returns the number of entries written so far.
func (c *Converter) Entries() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.w.Entries()
}

// Format returns the input's format once it is known (forced or detected).
func (c *Converter) Format() (adapter.Format, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.format == nil {
		return adapter.Format{}, false
	}
	return *c.format, true
}

// LooksLike names the format the input's events look most like, when the
// conversion read none of them as events of its format: a forced format
// that was wrong, or a format recognised but not read yet.
func (c *Converter) LooksLike() (adapter.Format, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.format != nil && c.adapter == nil {
		return *c.format, true
	}
	counts := c.looks
	if c.format == nil {
		counts = c.claims
	}
	best := -1
	for i, n := range counts {
		if n > 0 && (best < 0 || n > counts[best]) && (c.format == nil || c.opt.Formats[i].Name != c.format.Name) {
			best = i
		}
	}
	if best < 0 {
		return adapter.Format{}, false
	}
	return c.opt.Formats[best], true
}

// Summary returns what the complete entry would say now.
func (c *Converter) Summary() dialog.Summary {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.adapter == nil {
		return dialog.Summary{}
	}
	return c.adapter.Summary()
}

// Finished reports whether the stream has reached a terminal event (the
// adapter's summary has a status), so a follower can stop waiting for more.
func (c *Converter) Finished() bool {
	return c.Summary().Status != ""
}

// TeeErr returns the error that stopped --tee, if any.
func (c *Converter) TeeErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.teeErr
}
