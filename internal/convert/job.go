package convert

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

// Job is one conversion: inputs read in order into one dialog, and where
// that dialog goes. Every way in is a job: FILEs, standard input, the
// dialogs a session folder holds, each file of --out-dir, --follow, run's
// agent, and view's and export's conversion in memory. New builds it from
// a Spec, whole; Run is the whole lifecycle, in this order: open (the
// inputs are opened; no output may be one of them, or of Reads; the output
// is created), convert (the input is read into the dialog, which is closed
// with the stop's ending as soon as ctx is cancelled, without waiting for a
// read that blocks), finish (the output is closed: renamed into place, in
// a batch), judge (what went wrong comes back as one error carrying its
// exit code). A Job runs once.
type Job struct {
	name       string
	inputs     []*inputs.Input
	feed       Feed
	waitOnStop bool
	reads      []inputs.NamedFile
	out        *Output
	tee        io.Writer
	wopt       dialog.Options
	copt       dispatch.Options
	format     string
	strict     bool
	lines      string
	stderr     io.Writer
	stderrTTY  bool
	each       bool
}

// Spec is what a Job is made of.
type Spec struct {
	Name   string          // the input in messages: "t.jsonl", "standard input", "the agent's output"
	Inputs []*inputs.Input // read in order, unless Feed is set
	// Feed, when set, reads the input instead (--follow, run's agent).
	Feed Feed
	// WaitOnStop: a stop does not cut the feed short, it ends by itself
	// (run passes the signal on to the agent and waits for it).
	WaitOnStop bool
	Reads      []inputs.NamedFile // other files read (--prompt-file): no output may be one
	Out        *Output
	Tee        io.Writer // --tee
	Writer     dialog.Options
	Converter  dispatch.Options
	Format     string // --format as given, to tell a wrong format; "" tells nothing
	Strict     bool
	Lines      string // what --strict counts: "input line", "output line"
	Stderr     io.Writer
	// StderrTerminal: a person watches Stderr (the line saying where the
	// dialog went is for them).
	StderrTerminal bool
	// Each: one of a batch: messages name the input, and nothing is said
	// about where the dialog went.
	Each bool
}

// New builds the job s describes.
func New(s Spec) *Job {
	return &Job{
		name: s.Name, inputs: s.Inputs, feed: s.Feed, waitOnStop: s.WaitOnStop, reads: s.Reads,
		out: s.Out, tee: s.Tee, wopt: s.Writer, copt: s.Converter, format: s.Format, strict: s.Strict,
		lines: s.Lines, stderr: s.Stderr, stderrTTY: s.StderrTerminal, each: s.Each,
	}
}

// SourceSpec is the conversion of src: in the format that claimed it,
// else as copt's formats say. format is --format as given ("": a wrong
// format is not told); Lines is "input line".
func SourceSpec(src inputs.Source, copt dispatch.Options, wopt dialog.Options, format string, stderr io.Writer) Spec {
	s := Spec{Name: src.Name, Inputs: src.Inputs, Writer: wopt, Converter: copt, Format: format, Lines: "input line", Stderr: stderr}
	if src.Format != nil {
		s.Converter.Formats, s.Converter.Forced, _ = inputs.PickFormats(src.Format.Name)
		s.Format = src.Format.Name
	}
	return s
}

// Feed reads a job's input in place of its Inputs.
type Feed func(ctx context.Context, conv *dispatch.Converter) Fed

// Fed is how the reading of a job's input ended.
type Fed struct {
	Code   int            // the exit status it asks for (run: the agent's)
	Ending *dialog.Ending // how the dialog ends, when not as its stream says
	Errs   []error        // what went wrong reading, told after the dialog is closed
	OutErr error          // the dialog could not be written
	Whole  bool           // the input was read to its end: a wrong format is told
}

// Result is what a job's run did.
type Result struct {
	// Converted: a converter ran (the inputs opened and the output was
	// created); the counts below are set only then.
	Converted  bool
	Entries    int                 // entries written
	Skipped    int                 // input lines skipped as broken
	Accounting dispatch.Accounting // what became of every record
	Format     string              // the format the input was read as; "" when none
	Stopped    bool                // a stop cut the conversion short
	Written    bool                // the dialog is complete where it goes
}

// Run runs the job: open, convert, finish, judge.
func (j *Job) Run(ctx context.Context) (Result, error) {
	var res Result
	conv, stopped, err := j.open(ctx)
	if conv == nil {
		res.Stopped = stopped
		return res, err
	}
	f, stopped := j.convert(ctx, conv)
	res.Stopped = stopped
	failedFile, unread, outErr := j.finish(conv, &f, stopped)
	res.Converted = true
	res.Entries, res.Skipped = conv.Entries(), conv.Stats().Bad
	res.Accounting, res.Format = conv.Accounting(), FormatOf(conv)
	res.Written = outErr == nil && !stopped && !(unread && j.out.temp) && !failedFile
	return res, j.judge(ctx, conv, f, stopped, outErr)
}

// open opens the inputs, checks that no output is one of them, creates the
// output and starts the converter on it. A nil converter: nothing was
// created, and the error says why; stopped, a stop came while an input
// was being opened.
func (j *Job) open(ctx context.Context) (_ *dispatch.Converter, stopped bool, _ error) {
	if stopped, err := j.openInputs(ctx); err != nil {
		return nil, stopped, err
	}
	if err := j.check(); err != nil {
		j.closeInputs()
		return nil, false, err
	}
	w, err := j.out.create()
	if err != nil {
		j.closeInputs()
		return nil, false, j.mention(err)
	}
	copt := j.copt
	copt.Stderr, copt.Tee = j.stderr, j.tee
	copt.ReadSize = j.readSize()
	wopt := j.wopt
	if wopt.Progress == nil {
		wopt.Progress = j.countInputs()
	}
	if wopt.Warn == nil {
		// The writer warns under the converter's lock, as dispatch reports.
		about := cli.DisplayPath(j.out.path)
		if j.each {
			about = j.name
		}
		wopt.Warn = cli.WarnTo(j.stderr, about)
	}
	return dispatch.New(w, wopt, copt), false, nil
}

// convert reads the input into the dialog, and reports whether a stop cut
// it short. The inputs are closed by the goroutine that reads them, once
// it is done: a stop may leave it blocked in a read, and a decoder must
// not be closed under its reader.
func (j *Job) convert(ctx context.Context, conv *dispatch.Converter) (f Fed, stopped bool) {
	done := make(chan Fed, 1)
	go func() {
		defer j.closeInputs()
		if j.feed != nil {
			done <- j.feed(ctx, conv)
			return
		}
		done <- ReadInputs(conv, j.inputs)
	}()
	select {
	case f = <-done:
	case <-ctx.Done():
		if j.waitOnStop {
			f = <-done
			break
		}
		// The read may block for ever (a FIFO, a terminal): the dialog is
		// closed now, and the feed stops at its next read (dispatch).
		s := cli.StopOf(ctx)
		stopped = true
		f = Fed{Code: s.ExitCode(), Ending: s.Ending()}
	}
	return f, stopped
}

// finish closes the dialog and its output: it returns failedFile, a
// batch's file that failed (its dialog is not put in place); unread, no
// input could be read at all; and the first failure to write the dialog.
func (j *Job) finish(conv *dispatch.Converter, f *Fed, stopped bool) (failedFile, unread bool, outErr error) {
	outErr = f.OutErr
	if f.Ending == nil {
		f.Ending = forcedEnding(conv, j.copt)
	}
	if err := conv.Close(f.Ending); err != nil && outErr == nil {
		outErr = err
	}
	// An input that could not be read at all leaves no dialog where that
	// is up to us (a batch's temporary file): there is nothing to show.
	unread = len(f.Errs) > 0 && conv.Stats().Lines == 0
	keep := outErr == nil && !stopped && !unread
	// Nor does a batch's file that fails (issue 27): what its dialog
	// holds is not the file's dialog, and a placeholder under the final
	// name would pass for one.
	if code, errs := j.verdict(*f, conv); j.out.temp && (code != 0 || len(errs) > 0) {
		keep, failedFile = false, true
	}
	if err := j.out.finish(keep); err != nil && outErr == nil {
		outErr = err
	}
	return failedFile, unread, outErr
}

// judge is the job's one error, carrying its exit code, once the dialog is
// closed; on the way it tells where the dialog went and that nothing was
// converted, when so.
func (j *Job) judge(ctx context.Context, conv *dispatch.Converter, f Fed, stopped bool, outErr error) error {
	if outErr != nil {
		var oe *dispatch.OutputError
		if errors.As(outErr, &oe) {
			outErr = oe.Err
		}
		if j.out.path == "-" && errors.Is(outErr, syscall.EPIPE) {
			// The reader of stdout went away (| head): end quietly, as filters do.
			return cli.Failed(FailCode(f.Code, 128+int(syscall.SIGPIPE)))
		}
		return cli.Failed(FailCode(f.Code, 1), append(f.Errs, j.mention(j.out.failed(outErr)))...)
	}
	if !j.each && j.stderrTTY {
		reportDone(j.stderr, j.out.path, conv)
	}
	if msg := NothingConverted(conv.Accounting()); msg != "" && !stopped {
		fmt.Fprintf(j.stderr, "%s: %s: warning: %s\n", cli.Program, j.name, msg)
	}
	if stopped {
		return cli.StopOf(ctx)
	}
	code, errs := j.verdict(f, conv)
	return cli.Failed(code, errs...)
}

// verdict is the job's exit code and errors once its dialog is closed:
// the feed's, a wrong format's, --strict's.
func (j *Job) verdict(f Fed, conv *dispatch.Converter) (int, []error) {
	code, errs := f.Code, append([]error{}, f.Errs...)
	if f.Whole && j.format != "" {
		if msg := wrongFormat(conv, j.format, j.name); msg != "" {
			errs = append(errs, errors.New(msg))
			code = FailCode(code, 1)
		}
	}
	if bad := conv.Stats().Bad; j.strict && code == 0 && bad > 0 {
		errs = append(errs, j.mention(fmt.Errorf("--strict: %s skipped as broken", cli.WasWere(bad, j.lines))))
		code = 1
	}
	return code, errs
}

// mention names the input in a message of a batch, where many are told.
func (j *Job) mention(err error) error {
	if j.each {
		return fmt.Errorf("%s: %w", j.name, err)
	}
	return err
}

// openInputs opens every input, in order, before the output exists. A stop
// while one blocks (a FIFO with no writer) ends the wait at once; what
// opens after that is closed, and stopped is true.
func (j *Job) openInputs(ctx context.Context) (stopped bool, _ error) {
	done := make(chan error, 1)
	go func() {
		for _, in := range j.inputs {
			if err := in.Open(j.copt.MaxLine); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			j.closeInputs()
		}
		return false, err
	case <-ctx.Done():
		go func() { <-done; j.closeInputs() }()
		return true, cli.StopOf(ctx)
	}
}

func (j *Job) closeInputs() {
	for _, in := range j.inputs {
		in.Close()
	}
}

// check refuses an output that is one of the inputs.
func (j *Job) check() error {
	ins := append([]inputs.NamedFile{}, j.reads...)
	for _, in := range j.inputs {
		ins = append(ins, in.File())
	}
	outputs := []inputs.NamedFile{j.out.file()}
	if j.tee != nil {
		outputs = append(outputs, inputs.StdoutFile("the --tee copy", j.tee))
	}
	if err := inputs.RefuseOverwrite(outputs, ins); err != nil {
		return err
	}
	if j.copt.Forced && !j.each {
		return inputs.RefuseFormatFile(outputs[0], &j.copt.Formats[0])
	}
	return nil
}

// ReadInputs converts every input in turn into the one dialog. An input
// that cannot be read is told (once the dialog is closed) and the others
// still convert.
func ReadInputs(conv *dispatch.Converter, ins []*inputs.Input) Fed {
	f := Fed{Whole: true}
	for _, in := range ins {
		err := feedInput(conv, in)
		var oe *dispatch.OutputError
		if errors.As(err, &oe) {
			f.OutErr = err
			return f
		}
		if err != nil {
			f.Errs = append(f.Errs, err)
			f.Code, f.Whole = 1, false
		}
	}
	return f
}

// readSize is the read buffer the job's inputs need: as much as the
// largest of them, between 16 KiB and the default; the default for a
// stream, a feed or inputs of unknown size. A batch of small files then
// allocates little per file, instead of a 256 KiB buffer each (and as much
// again for the dialog), which would be most of what it allocates.
func (j *Job) readSize() int {
	if j.feed != nil || len(j.inputs) == 0 {
		return 0
	}
	var largest int64
	for _, in := range j.inputs {
		if in.Info == nil || !in.Info.Mode().IsRegular() {
			return 0
		}
		largest = max(largest, in.Info.Size())
	}
	return int(min(max(largest+1, 16<<10), frame.DefaultReadSize))
}

// countInputs returns the fraction of the job's inputs read
// (dialog.Options.Progress) when every input is of known size: a saved
// file the job reads itself, whose bytes it counts, or a session a format
// opens and merges on its own, whose stream counts its files' bytes
// (adapter.ReadCounter). nil otherwise: standard input, a pipe, a feed.
// Bytes are counted before decompression, to compare with the sizes.
//
// What a buffer may still hold counts as unread, so the fraction stays
// below 1 while entries may still come: a saved file's read-ahead (the
// job's buffer) is added to its size; a session's (one buffer per file,
// which its ReadCount reports) is taken off what was read, since a merged
// session may fill many at once before its first entry, and hands the job
// one record a Read. Once more of a file is read than its size when
// counted (a session still being written), the fraction is 0: the rest is
// paced as a stream, where a fraction held at 1 would let each entry take
// all that is left.
func (j *Job) countInputs() func() float64 {
	if j.feed != nil || len(j.inputs) == 0 {
		return nil
	}
	var total, sizes int64
	var sessions []adapter.ReadCounter
	for _, in := range j.inputs {
		if rc, ok := in.R.(adapter.ReadCounter); ok && !in.Stream {
			sessions = append(sessions, rc)
			continue
		}
		if !in.Stream || in.Stdin || in.R == nil || in.Info == nil || !in.Info.Mode().IsRegular() {
			return nil
		}
		total += in.Info.Size() + frame.DefaultReadSize
		sizes += in.Info.Size()
	}
	read := new(atomic.Int64)
	for _, in := range j.inputs {
		if in.Stream {
			in.R = &countingReader{r: in.R, n: read}
		}
	}
	return func() float64 {
		done, all := read.Load(), total
		if done > sizes {
			return 0 // a file that grew since it was counted: its size is unknown now
		}
		for _, s := range sessions {
			n, size, ahead := s.ReadCount()
			if n > size {
				return 0 // as above
			}
			done += max(0, n-ahead)
			all += size
		}
		if all <= 0 {
			return 0
		}
		return float64(done) / float64(all)
	}
}

// countingReader adds the bytes each Read returns to n (the job's reader
// and a stop's closing of the dialog may both look).
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

func feedInput(conv *dispatch.Converter, in *inputs.Input) error {
	r, release := in.R, func() {}
	var err error
	if in.Stream {
		r, release, err = sessionfile.Decompressed(r)
	}
	if err == nil {
		err = conv.Feed(r, in.Label)
		release()
	}
	var oe *dispatch.OutputError
	if err == nil || errors.As(err, &oe) {
		return err
	}
	return fmt.Errorf("reading %s: %w", in.Name, cli.UnwrapPath(err))
}

// FailCode is the exit code when something of ours failed: a code the
// job has already (the agent's failure, a stop) stays visible; a success
// becomes ours.
func FailCode(code, ours int) int {
	if code == 0 {
		return ours
	}
	return code
}

// Output is where a job's dialog goes: a file, created with its folder;
// standard output ("-"); a writer of the caller's (view's conversion in
// memory); or, in a batch, a hidden temporary file beside the dialog,
// renamed into place once complete, so a reader never sees half a dialog
// and a failure or a stop leaves no debris.
type Output struct {
	path string    // the dialog's path; "-" for stdout
	w    io.Writer // stdout for "-", or the caller's writer
	temp bool

	f   *os.File
	tmp string
}

// FileOutput is the dialog at path, or stdout for "-".
func FileOutput(path string, stdout io.Writer) *Output {
	if path == "-" {
		return &Output{path: path, w: stdout}
	}
	return &Output{path: path}
}

// WriterOutput is the dialog written to w (view's conversion in memory);
// path names it in warnings.
func WriterOutput(path string, w io.Writer) *Output { return &Output{path: path, w: w} }

// batchOutput is a batch's dialog at path: written to a temporary file
// beside it, renamed into place once complete.
func batchOutput(path string) *Output { return &Output{path: path, temp: true} }

// Opened names the dialog's file as it is open, for a check of files opened
// later (run's transcript): false when no file of ours is open.
func (o *Output) Opened() (inputs.NamedFile, bool) {
	if o == nil || o.f == nil {
		return inputs.NamedFile{}, false
	}
	f := inputs.NamedFile{What: "the dialog", Path: o.path}
	f.Info, _ = o.f.Stat()
	return f, true
}

// file names the output for the same-file check.
func (o *Output) file() inputs.NamedFile {
	switch {
	case o.path == "-":
		return inputs.StdoutFile("the dialog", o.w)
	case o.w != nil:
		return inputs.NamedFile{What: "the dialog"}
	}
	return inputs.StatFile("the dialog", o.path)
}

func (o *Output) create() (io.Writer, error) {
	if o.w != nil {
		return o.w, nil
	}
	if o.temp {
		f, err := createBatchTemp(filepath.Dir(o.path))
		if err != nil {
			return nil, o.failed(err)
		}
		o.f, o.tmp = f, f.Name()
		return f, nil
	}
	if err := os.MkdirAll(filepath.Dir(o.path), 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the dialog's folder: %w", err)
	}
	f, err := os.Create(o.path)
	if err != nil {
		return nil, fmt.Errorf("cannot write the dialog: %w", err)
	}
	o.f = f
	return f, nil
}

// finish closes the dialog's file; a temporary one is renamed into place
// when keep, else removed.
func (o *Output) finish(keep bool) error {
	if o.f == nil {
		return nil
	}
	err := o.f.Close()
	o.f = nil
	if !o.temp {
		return err
	}
	if err == nil && keep {
		if err = os.Rename(o.tmp, o.path); err == nil {
			return nil
		}
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err // it names the temporary file, which means nothing to the user
		}
	}
	os.Remove(o.tmp)
	return err
}

// failed says that the dialog could not be written.
func (o *Output) failed(err error) error {
	return fmt.Errorf("writing the dialog to %s: %w", cli.DisplayPath(o.path), cli.UnwrapPath(err))
}

// reportDone tells where the dialog went, in one line, for a person who
// watches stderr (scripts and logs get nothing: Spec.StderrTerminal).
func reportDone(stderr io.Writer, path string, conv *dispatch.Converter) {
	fmt.Fprintf(stderr, "%s: %s written to %s (%s)\n", cli.Program, cli.Plural(conv.Entries(), "entry"), cli.DisplayPath(path), conv.Status())
}
