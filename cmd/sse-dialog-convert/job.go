package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

// job is one conversion: inputs read in order into one dialog, and where
// that dialog goes. Every way in is a job: FILEs, standard input, the
// dialogs a session folder holds, each file of --out-dir, --follow, run's
// agent, and view's and export's conversion in memory. run is the whole
// lifecycle, in this order: the inputs are opened; no output may be one
// of them (or of reads); the output is created; the input is read into
// the dialog, which is closed with the stop's ending as soon as ctx is
// cancelled (without waiting for a read that blocks); the output is closed
// (renamed into place, in a batch); and what went wrong comes back as one
// error carrying its exit code.
type job struct {
	name   string   // the input in messages: "t.jsonl", "standard input", "the agent's output"
	inputs []*input // read in order, unless feed is set
	// feed, when set, reads the input instead (--follow, run's agent).
	feed func(ctx context.Context, conv *dispatch.Converter) fed
	// waitOnStop: a stop does not cut the feed short, it ends by itself
	// (run passes the signal on to the agent and waits for it).
	waitOnStop bool
	reads      []namedFile // other files read (--prompt-file): no output may be one
	out        *output
	tee        io.Writer // --tee
	wopt       dialog.Options
	copt       dispatch.Options
	format     string // --format as given, to tell a wrong format; "" tells nothing
	strict     bool
	lines      string // what --strict counts: "input line", "output line"
	stderr     io.Writer
	// each: one of a batch: messages name the input, and nothing is said
	// about where the dialog went.
	each bool

	// What run leaves for the caller.
	conv    *dispatch.Converter
	stopped bool // a stop cut the conversion short
	written bool // the dialog is complete where it goes
}

// fed is how the reading of a job's input ended.
type fed struct {
	code   int            // the exit status it asks for (run: the agent's)
	ending *dialog.Ending // how the dialog ends, when not as its stream says
	errs   []error        // what went wrong reading, told after the dialog is closed
	outErr error          // the dialog could not be written
	whole  bool           // the input was read to its end: a wrong format is told
}

func (j *job) run(ctx context.Context) error {
	if err := j.open(ctx); err != nil {
		return err
	}
	if err := j.check(); err != nil {
		j.closeInputs()
		return err
	}
	w, err := j.out.create()
	if err != nil {
		j.closeInputs()
		return j.mention(err)
	}
	copt := j.copt
	copt.Stderr, copt.Tee = j.stderr, j.tee
	copt.ReadSize = j.readSize()
	wopt := j.wopt
	if wopt.Warn == nil {
		// The writer warns under the converter's lock, as dispatch reports.
		about := cli.DisplayPath(j.out.path)
		if j.each {
			about = j.name
		}
		wopt.Warn = cli.WarnTo(j.stderr, about)
	}
	conv := dispatch.New(w, wopt, copt)
	j.conv = conv

	// The inputs are closed by the goroutine that reads them, once it is
	// done: a stop may leave it blocked in a read, and a decoder must not
	// be closed under its reader.
	done := make(chan fed, 1)
	go func() {
		defer j.closeInputs()
		if j.feed != nil {
			done <- j.feed(ctx, conv)
			return
		}
		done <- j.readInputs(conv)
	}()
	var f fed
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
		j.stopped = true
		f = fed{code: s.ExitCode(), ending: s.Ending()}
	}

	outErr := f.outErr
	if f.ending == nil {
		f.ending = forcedEnding(conv, j.copt)
	}
	if err := conv.Close(f.ending); err != nil && outErr == nil {
		outErr = err
	}
	// An input that could not be read at all leaves no dialog where that
	// is up to us (a batch's temporary file): there is nothing to show.
	unread := len(f.errs) > 0 && conv.Stats().Lines == 0
	keep := outErr == nil && !j.stopped && !unread
	// Nor does a batch's file that fails (issue 27): what its dialog
	// holds is not the file's dialog, and a placeholder under the final
	// name would pass for one.
	failedFile := false
	if code, errs := j.verdict(f, conv); j.out.temp && (code != 0 || len(errs) > 0) {
		keep, failedFile = false, true
	}
	if err := j.out.finish(keep); err != nil && outErr == nil {
		outErr = err
	}
	j.written = outErr == nil && !j.stopped && !(unread && j.out.temp) && !failedFile
	if outErr != nil {
		var oe *dispatch.OutputError
		if errors.As(outErr, &oe) {
			outErr = oe.Err
		}
		if j.out.path == "-" && errors.Is(outErr, syscall.EPIPE) {
			// The reader of stdout went away (| head): end quietly, as filters do.
			return cli.Failed(failCode(f.code, 128+int(syscall.SIGPIPE)))
		}
		return cli.Failed(failCode(f.code, 1), append(f.errs, j.mention(j.out.failed(outErr)))...)
	}
	if !j.each {
		reportDone(j.stderr, j.out.path, conv)
	}
	if msg := nothingConverted(conv.Accounting()); msg != "" && !j.stopped {
		fmt.Fprintf(j.stderr, "%s: %s: warning: %s\n", name, j.name, msg)
	}
	if j.stopped {
		return cli.StopOf(ctx)
	}
	code, errs := j.verdict(f, conv)
	return cli.Failed(code, errs...)
}

// verdict is the job's exit code and errors once its dialog is closed:
// the feed's, a wrong format's, --strict's.
func (j *job) verdict(f fed, conv *dispatch.Converter) (int, []error) {
	code, errs := f.code, append([]error{}, f.errs...)
	if f.whole && j.format != "" {
		if msg := wrongFormat(conv, j.format, j.name); msg != "" {
			errs = append(errs, errors.New(msg))
			code = failCode(code, 1)
		}
	}
	if bad := conv.Stats().Bad; j.strict && code == 0 && bad > 0 {
		errs = append(errs, j.mention(fmt.Errorf("--strict: %s skipped as broken", cli.WasWere(bad, j.lines))))
		code = 1
	}
	return code, errs
}

// mention names the input in a message of a batch, where many are told.
func (j *job) mention(err error) error {
	if j.each {
		return fmt.Errorf("%s: %w", j.name, err)
	}
	return err
}

// open opens every input, in order, before the output exists. A stop
// while one blocks (a FIFO with no writer) ends the wait at once; what
// opens after that is closed.
func (j *job) open(ctx context.Context) error {
	done := make(chan error, 1)
	go func() {
		for _, in := range j.inputs {
			if err := in.openIt(j.copt.MaxLine); err != nil {
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
		return err
	case <-ctx.Done():
		go func() { <-done; j.closeInputs() }()
		j.stopped = true
		return cli.StopOf(ctx)
	}
}

func (j *job) closeInputs() {
	for _, in := range j.inputs {
		in.close()
	}
}

// check refuses an output that is one of the inputs.
func (j *job) check() error {
	inputs := append([]namedFile{}, j.reads...)
	for _, in := range j.inputs {
		inputs = append(inputs, in.file())
	}
	outputs := []namedFile{j.out.file()}
	if j.tee != nil {
		outputs = append(outputs, stdoutFile("the --tee copy", j.tee))
	}
	if err := refuseOverwrite(outputs, inputs); err != nil {
		return err
	}
	if j.copt.Forced && !j.each {
		return refuseFormatFile(outputs[0], &j.copt.Formats[0])
	}
	return nil
}

// readInputs converts every input in turn into the one dialog. An input
// that cannot be read is told (once the dialog is closed) and the others
// still convert.
func (j *job) readInputs(conv *dispatch.Converter) fed {
	f := fed{whole: true}
	for _, in := range j.inputs {
		err := feedInput(conv, in)
		var oe *dispatch.OutputError
		if errors.As(err, &oe) {
			f.outErr = err
			return f
		}
		if err != nil {
			f.errs = append(f.errs, err)
			f.code, f.whole = 1, false
		}
	}
	return f
}

// readSize is the read buffer the job's inputs need: as much as the
// largest of them, between 16 KiB and the default; the default for a
// stream, a feed or inputs of unknown size. A batch of small files then
// allocates little per file: a 256 KiB buffer each, and as much again for
// the dialog, were 97% of the memory a batch of 1,000 files of 9 KB
// allocated, and the collector's work that came with it.
func (j *job) readSize() int {
	if j.feed != nil || len(j.inputs) == 0 {
		return 0
	}
	var largest int64
	for _, in := range j.inputs {
		if in.info == nil || !in.info.Mode().IsRegular() {
			return 0
		}
		largest = max(largest, in.info.Size())
	}
	return int(min(max(largest+1, 16<<10), frame.DefaultReadSize))
}

func feedInput(conv *dispatch.Converter, in *input) error {
	r, release := in.r, func() {}
	var err error
	if in.stream {
		r, release, err = sessionfile.Decompressed(r)
	}
	if err == nil {
		err = conv.Feed(r, in.label)
		release()
	}
	var oe *dispatch.OutputError
	if err == nil || errors.As(err, &oe) {
		return err
	}
	return fmt.Errorf("reading %s: %w", in.name, cli.UnwrapPath(err))
}

// failCode is the exit code when something of ours failed: a code the
// job has already (the agent's failure, a stop) stays visible; a success
// becomes ours.
func failCode(code, ours int) int {
	if code == 0 {
		return ours
	}
	return code
}

// output is where a job's dialog goes: a file, created with its folder;
// standard output ("-"); a writer of the caller's (view's conversion in
// memory); or, in a batch, a hidden temporary file beside the dialog,
// renamed into place once complete, so a reader never sees half a dialog
// and a failure or a stop leaves no debris.
type output struct {
	path string    // the dialog's path; "-" for stdout
	w    io.Writer // stdout for "-", or the caller's writer
	temp bool

	f   *os.File
	tmp string
}

// fileOutput is the dialog at path, or stdout for "-".
func fileOutput(path string, stdout io.Writer) *output {
	if path == "-" {
		return &output{path: path, w: stdout}
	}
	return &output{path: path}
}

// file names the output for the same-file check.
func (o *output) file() namedFile {
	switch {
	case o.path == "-":
		return stdoutFile("the dialog", o.w)
	case o.w != nil:
		return namedFile{what: "the dialog"}
	}
	return statFile("the dialog", o.path)
}

func (o *output) create() (io.Writer, error) {
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
func (o *output) finish(keep bool) error {
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
func (o *output) failed(err error) error {
	return fmt.Errorf("writing the dialog to %s: %w", cli.DisplayPath(o.path), cli.UnwrapPath(err))
}

// reportDone tells where the dialog went, in one line, when a person
// watches stderr; scripts and logs get nothing.
func reportDone(stderr io.Writer, path string, conv *dispatch.Converter) {
	if cli.IsTerminal(stderr) {
		fmt.Fprintf(stderr, "%s: %s written to %s (%s)\n", name, cli.Plural(conv.Entries(), "entry"), cli.DisplayPath(path), conv.Status())
	}
}
