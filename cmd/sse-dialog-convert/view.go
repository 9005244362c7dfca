package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/follow"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
	"github.com/ssebench/sse-dialog-convert/internal/view"
)

type viewOptions struct {
	width       int
	full        bool
	noPager     bool
	color       string
	follow      bool
	idleTimeout time.Duration
	redact      []string
	maxText     int
}

func newViewCmd() *cobra.Command {
	var o viewOptions
	cmd := &cobra.Command{
		Use:   "view [FILE]",
		Short: "Show a dialog (or any transcript the converter reads) in the terminal",
		Long: `view draws a dialog in the terminal: one block per entry, a tool call merged
with its result (status icon, args on one line, the result folded to a few
lines; --full unfolds), a subagent's entries indented under its call, thinking
dimmed, messages as Markdown, and a closing line with turns, duration, tokens
and cost.

FILE is a dialog.jsonl, or any input the converter reads (its formats are
listed by sse-dialog-convert --help; compressed too; a session file or a folder
holding one session), converted on the fly; standard input when absent or "-".
Colour only on a terminal, never with NO_COLOR. The width is the terminal's
(80 when not a terminal). The dialog is drawn as it is read, the closing line
last; a call whose result comes more than 1,000 entries later is drawn running,
and its result where it comes. Output longer than the screen goes through
$PAGER, else less -R. --follow draws a dialog (or transcript) as it is written.`,
		Example: `  sse-dialog-convert view "$SSE_ARCHIVE/dialog.jsonl"
  sse-dialog-convert view --full transcript.jsonl
  sse-dialog-convert view --follow run/dialog.jsonl
  sse-dialog-convert view --redact 'sk-[A-Za-z0-9]+' --no-pager dialog.jsonl > run.txt`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return cli.Usagef("view takes one FILE")
			}
			return nil
		},
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runView(cmd.Context(), o, args, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.width, "width", 0, "wrap at `COLUMNS` (default: the terminal's width, else 80)")
	f.BoolVar(&o.full, "full", false, "show tool results in full instead of folded")
	f.BoolVar(&o.noPager, "no-pager", false, "never page the output")
	f.StringVar(&o.color, "color", "auto", "`WHEN` to colour: auto (on a terminal), always, never; NO_COLOR always wins")
	f.BoolVar(&o.follow, "follow", false, "draw the dialog as another process writes it, until its complete entry")
	o.idleTimeout = 5 * time.Minute
	f.Var((*cli.DurationValue)(&o.idleTimeout), "idle-timeout", "with --follow, stop after `DURATION` without new data: seconds or a duration (0: never)")
	f.StringArrayVar(&o.redact, "redact", nil, "mask every match of `REGEX` in every string (repeatable)")
	o.maxText = dialog.DefaultMaxText
	f.Var(cli.SizeValue[int]{P: &o.maxText}, "max-text", maxTextUsage)
	_ = cmd.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runView(ctx context.Context, o viewOptions, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	file := "-"
	if len(args) == 1 {
		file = args[0]
	}
	red, err := dialogread.NewRedactor(o.redact)
	if err != nil {
		return cli.Usagef("--redact: %v", err)
	}
	if o.idleTimeout < 0 {
		return cli.Usagef("--idle-timeout cannot be negative")
	}
	if err := checkMaxText(o.maxText); err != nil {
		return err
	}
	tty, width, height := terminal(stdout)
	color := false
	switch o.color {
	case "auto":
		color = tty
	case "always":
		color = true
	case "never":
	default:
		return cli.Usagef("unknown --color %q (want auto, always or never)", o.color)
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		color = false
	}
	if o.width > 0 {
		width = o.width
	}
	vopt := view.Options{Width: width, Color: color, Full: o.full}

	if o.follow {
		if file == "-" {
			return cli.Usagef("--follow needs a FILE")
		}
		s := view.NewStream(stdout, vopt)
		// What is not shown is counted, and said before the closing line.
		unshown := dialogread.Dialog{LeftOut: dialogread.LeftOut{Limits: dialogread.DefaultLimits()}}
		err := followDialog(file, o.idleTimeout, o.maxText, stderr, func(line []byte, n int64) error {
			if n > 0 {
				unshown.LeftOut.LongLines++
				unshown.LeftOut.LongBytes += n
				return nil
			}
			e, perr := dialogread.ParseLine(line, red)
			if perr != nil {
				if len(bytes.TrimSpace(line)) > 0 {
					unshown.Skipped++
				}
				return nil
			}
			return s.Add(e)
		})
		if msg := unshown.Banner(); msg != "" {
			s.Note(msg)
		}
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		return err
	}

	if sessions := folderSessions(file, stdin); sessions != nil {
		return cli.Refusef("%s holds %d sessions and view shows one: name it (%s view %s), or export them all (%s export --html --out-dir DIR %s)",
			file, len(sessions), name, sessions[0], name, file)
	}
	// Drawn as it is read: the first screen shows before the rest is
	// read, and what is held is what waits to be merged, not the dialog.
	out := &pagedOutput{stdout: stdout, stderr: stderr, notes: pagerNotes{w: stderr}}
	if tty && !o.noPager && height > 0 {
		out.height = height
	}
	src, err := dialogSourceText(ctx, file, stdin, &out.notes, o.maxText)
	if err != nil {
		return err
	}
	err = view.DrawFrom(out, src, red, dialogread.DefaultMaxBytes, vopt, view.DefaultHold())
	cerr := src.Close()
	perr := out.Close()
	switch {
	case errors.Is(err, errPagerQuit) || errors.Is(perr, errPagerQuit):
		return nil // quitting a pager early is not our failure
	case cerr != nil:
		return cerr // the conversion's failure, before the read error it caused
	case out.werr != nil:
		return out.werr // writing the view failed, not reading the dialog
	case err != nil:
		return fmt.Errorf("reading %s: %w", cli.QuoteName(file), err)
	}
	return perr
}

// maxTextUsage is view's and export's --max-text: it caps what a
// conversion on the fly keeps; a dialog is shown as it was written.
const maxTextUsage = "when FILE is converted, cut tool results, errors and args strings to `BYTES` (16k, 2M: KiB, MiB) with a marker (0 or -1: no cap)"

// checkMaxText refuses a --max-text below -1.
func checkMaxText(n int) error {
	if n < -1 {
		return cli.Usagef("--max-text %d: want a size in bytes, or 0 or -1 for no cap", n)
	}
	return nil
}

// terminal reports whether w is a terminal, and its size (80 columns when
// it is not).
func terminal(w io.Writer) (tty bool, width, height int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, 80, 0
	}
	width, height, err := term.GetSize(int(f.Fd()))
	if err != nil || width <= 0 {
		return true, 80, 0
	}
	return true, width, height
}

// pagedOutput is view's output: held until it fills a screen (height
// lines), then piped to $PAGER (run by the shell, as git does), else
// less -R, as it is written; shorter output, or output with no height, is
// written as it is. A pager that cannot start leaves the output printed.
type pagedOutput struct {
	stdout, stderr io.Writer
	height         int // 0: never page
	held           bytes.Buffer
	lines          int
	direct         bool
	pager          *exec.Cmd
	pipe           io.WriteCloser
	werr           error // stdout's write error: ours to tell, not the input's
	notes          pagerNotes
}

// pagerNotes is the conversion's stderr while a view is drawn: written
// through until a pager owns the terminal, then kept (up to maxPagerNotes)
// and written once the pager is quit, so that no warning lands inside the
// pager's screen and is gone with it. The conversion writes from its own
// goroutine.
type pagerNotes struct {
	mu     sync.Mutex
	w      io.Writer
	paging bool
	kept   bytes.Buffer
	lost   int
}

// maxPagerNotes bounds what is kept of the conversion's stderr while the
// pager runs.
const maxPagerNotes = 64 << 10

func (n *pagerNotes) Write(b []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.paging {
		return n.w.Write(b)
	}
	if n.kept.Len()+len(b) > maxPagerNotes {
		n.lost += len(b)
		return len(b), nil
	}
	return n.kept.Write(b)
}

// page marks the pager started.
func (n *pagerNotes) page() {
	n.mu.Lock()
	n.paging = true
	n.mu.Unlock()
}

// flush writes what was kept while the pager ran.
func (n *pagerNotes) flush() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.paging = false
	n.w.Write(n.kept.Bytes())
	if n.lost > 0 {
		fmt.Fprintf(n.w, "%s: %d more bytes of warnings left out while the pager ran\n", name, n.lost)
	}
	n.kept.Reset()
}

// errPagerQuit: the pager was quit before the dialog was all drawn.
var errPagerQuit = errors.New("the pager was quit")

func (p *pagedOutput) Write(b []byte) (int, error) {
	switch {
	case p.pipe != nil:
		if _, err := p.pipe.Write(b); err != nil {
			return 0, errPagerQuit
		}
		return len(b), nil
	case p.height == 0 || p.direct:
		n, err := p.stdout.Write(b)
		if err != nil && p.werr == nil {
			p.werr = err
		}
		return n, err
	}
	p.held.Write(b)
	p.lines += bytes.Count(b, []byte("\n"))
	if p.lines < p.height {
		return len(b), nil
	}
	if err := p.startPager(); err != nil {
		p.direct = true
	}
	held := p.held.Bytes()
	p.held = bytes.Buffer{}
	if _, err := p.Write(held); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (p *pagedOutput) startPager() error {
	if s := strings.TrimSpace(os.Getenv("PAGER")); s != "" {
		p.pager = exec.Command("sh", "-c", s)
	} else {
		p.pager = exec.Command("less", "-R")
	}
	p.pager.Stdout, p.pager.Stderr = p.stdout, p.stderr
	pipe, err := p.pager.StdinPipe()
	if err != nil {
		return err
	}
	if p.notes.w == nil {
		p.notes.w = p.stderr
	}
	p.notes.page()
	if err := p.pager.Start(); err != nil {
		p.notes.flush()
		return err
	}
	p.pipe = pipe
	return nil
}

// Close writes what is held (output shorter than a screen), or ends the
// pager's input and waits for the reader to quit it.
func (p *pagedOutput) Close() error {
	if p.pipe == nil {
		_, err := p.stdout.Write(p.held.Bytes())
		p.held = bytes.Buffer{}
		return err
	}
	p.pipe.Close()
	err := p.pager.Wait()
	p.notes.flush()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil // quitting a pager early is not our failure
		}
		return err
	}
	return nil
}

// dialogSource returns the dialog of FILE ("-": stdin) as JSON lines, read
// as they are needed: a dialog is read as it is; any other input is
// converted on the fly the way the root command converts it (a session
// file, or a folder holding one, the way its format reads it). Nothing is
// held whole: what a viewer keeps is bounded by dialogread's limits. Close
// ends the reading (and the conversion) and returns what failed, which
// comes before a read error it caused. It is the one place where view and
// export call the converter.
func dialogSource(ctx context.Context, file string, stdin io.Reader, stderr io.Writer) (io.ReadCloser, error) {
	return dialogSourceText(ctx, file, stdin, stderr, dialog.DefaultMaxText)
}

// dialogSourceText is dialogSource converting with tool results, errors
// and args strings cut to maxText bytes (--max-text; <= 0: no cap).
func dialogSourceText(ctx context.Context, file string, stdin io.Reader, stderr io.Writer, maxText int) (io.ReadCloser, error) {
	src := source{Name: "<stdin>", Inputs: []*input{stdinInput(stdin)}}
	if file == "-" && cli.IsTerminal(stdin) {
		fmt.Fprintf(stderr, "%s: reading a dialog or transcript from standard input (a terminal); Ctrl-D ends it\n", name)
	}
	closeFile := func() {}
	if file != "-" {
		if st, err := os.Stat(file); err == nil && st.IsDir() {
			return convertSources(ctx, sources([]string{file}, registry.All(), false, stdin, 1), stderr, maxText)
		}
		f, err := openInput(file)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", cli.QuoteName(file), cli.UnwrapPath(err))
		}
		closeFile = func() { f.Close() }
		src = source{Name: file, Inputs: []*input{{Name: file, Label: file, R: f, Stream: true}}}
	}
	r, release, err := sessionfile.Decompressed(src.Inputs[0].R)
	if err != nil {
		closeFile()
		return nil, fmt.Errorf("reading %s: %w", cli.QuoteName(src.Name), cli.UnwrapPath(err))
	}
	done := func() { release(); closeFile() }
	br := bufio.NewReaderSize(r, 64<<10)
	// A first line longer than a dialog's line cap is no dialog to show.
	first, err := firstLineCapped(br, dialogread.DefaultMaxBytes)
	if err != nil {
		done()
		return nil, fmt.Errorf("reading %s: %w", cli.QuoteName(src.Name), cli.UnwrapPath(err))
	}
	in := io.MultiReader(bytes.NewReader(first), br)
	if dialogread.IsDialog(first) {
		return &sourceReader{r: in, done: done}, nil
	}
	if file != "-" {
		if srcs := sources([]string{file}, registry.All(), false, stdin, 1); srcs[0].Format != nil {
			done()
			return convertSources(ctx, srcs, stderr, maxText) // a session: read as its format says
		}
	}
	src.Inputs = []*input{readerInput(in, src.Name)}
	rc, err := convertSourceText(ctx, src, stderr, maxText)
	if err != nil {
		done()
		return nil, err
	}
	rc.(*sourceReader).done = done
	return rc, nil
}

// sourceReader is a dialog being read: a file's, or a conversion's
// running in its own goroutine.
type sourceReader struct {
	r      io.Reader
	pipe   *io.PipeReader // the conversion's output, nil for a file
	result chan error     // the conversion's end
	done   func()         // closes what was opened
}

func (s *sourceReader) Read(p []byte) (int, error) { return s.r.Read(p) }

// Close stops the conversion if it still runs, waits for its end, closes
// what was opened and returns what the conversion failed with.
func (s *sourceReader) Close() error {
	var err error
	if s.pipe != nil {
		s.pipe.CloseWithError(errViewClosed)
		err = <-s.result
		if errors.Is(err, errViewClosed) {
			err = nil
		}
	}
	if s.done != nil {
		s.done()
	}
	return err
}

// errViewClosed ends a conversion whose dialog is no longer read.
var errViewClosed = errors.New("the dialog is no longer read")

// readSource reads a dialog from src within dialogread's limits; the
// conversion's failure comes before the read error it caused.
func readSource(src io.ReadCloser, file string, red *dialogread.Redactor) (*dialogread.Dialog, error) {
	d, err := dialogread.ReadLimited(src, red, dialogread.DefaultLimits())
	if cerr := src.Close(); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", cli.QuoteName(file), err)
	}
	return d, nil
}

// folderSessions lists the sessions of a FILE that is a folder holding
// more than one (each a dialog of its own, which view and export cannot
// join): nil for anything else.
func folderSessions(file string, stdin io.Reader) []string {
	if st, err := os.Stat(file); err != nil || !st.IsDir() {
		return nil
	}
	srcs := sources([]string{file}, registry.All(), false, stdin, 1)
	if len(srcs) < 2 {
		return nil
	}
	names := make([]string, len(srcs))
	for i, s := range srcs {
		if s.Err != nil || s.Format == nil {
			return nil
		}
		names[i] = s.Name
	}
	return names
}

// convertSources converts the sources of a FILE (a session file, or a
// folder holding one session) as it is read.
func convertSources(ctx context.Context, srcs []source, stderr io.Writer, maxText int) (io.ReadCloser, error) {
	src, err := oneDialog(srcs)
	if err != nil {
		return nil, err
	}
	return convertSourceText(ctx, src, stderr, maxText)
}

// convertSource converts src into a dialog as it is read, with the
// converter's defaults (its clock pinned by SOURCE_DATE_EPOCH).
func convertSource(ctx context.Context, src source, stderr io.Writer) (io.ReadCloser, error) {
	return convertSourceText(ctx, src, stderr, dialog.DefaultMaxText)
}

// convertSourceText is convertSource with texts cut to maxText bytes
// (<= 0: no cap).
func convertSourceText(ctx context.Context, src source, stderr io.Writer, maxText int) (io.ReadCloser, error) {
	pr, pw := io.Pipe()
	s, err := viewJob(src, pw, stderr, maxText)
	if err != nil {
		return nil, err
	}
	s.Writer.Saved = true
	result := make(chan error, 1)
	go func() {
		_, err := convert.New(s).Run(ctx)
		pw.CloseWithError(err)
		result <- err
	}()
	return &sourceReader{r: pr, pipe: pr, result: result}, nil
}

// viewJob converts src into w with the converter's defaults (its clock
// pinned by SOURCE_DATE_EPOCH), in the format that claimed it, else any.
// Tool results, errors and args strings are cut to maxText bytes (<= 0:
// no cap).
func viewJob(src source, w io.Writer, stderr io.Writer, maxText int) (convert.Spec, error) {
	clock, err := envClock()
	if err != nil {
		return convert.Spec{}, err
	}
	if maxText <= 0 {
		maxText = -1 // dialog.Options: < 0 is no cap, 0 its default
	}
	opt := dialog.Options{Clock: clock, MaxText: maxText}
	_, opt.PinnedClock = clock.(dialog.FixedClock)
	if wd, err := os.Getwd(); err == nil {
		opt.DefaultCWD = wd
	}
	copt := dispatch.Options{Formats: registry.All()}
	s := convert.SourceSpec(src, copt, opt, "", stderr) // shown as it converts: not judged
	s.Format = ""
	s.Out = convert.WriterOutput(src.Name, w)
	s.Each = true
	return s, nil
}

// firstLineCapped reads the first line of br, newline included, or its
// first max bytes and a few more when it is longer (0: whatever its length).
func firstLineCapped(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) && max > 0 && len(line) > max {
			return line, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return line, nil
	}
}

// followDialog passes each line of a growing dialog to fn: FILE itself when
// it is a dialog, else its live conversion. It ends at the dialog's
// complete entry, or after idle without new data.
//
// fn gets each line, or for a line longer than dialogread.DefaultMaxBytes,
// read without being kept, an empty one and its length.
func followDialog(file string, idle time.Duration, maxText int, stderr io.Writer, fn func(line []byte, long int64) error) error {
	stop := make(chan struct{})
	defer close(stop)
	opt := follow.Options{Idle: idle, Grace: followGrace, Stop: stop}
	f, err := follow.Open(file, opt)
	if errors.Is(err, follow.ErrGaveUp) {
		return fmt.Errorf("%s did not appear within %v", file, idle)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := refuseCompressed(f, file); err != nil {
		return err
	}
	var finished func() bool
	opt.Done = func() bool { return finished != nil && finished() }
	br := bufio.NewReaderSize(follow.New(f, opt), 64<<10)
	first, err := firstLineCapped(br, dialogread.DefaultMaxBytes)
	if err != nil {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	in := io.MultiReader(bytes.NewReader(first), br)

	if dialogread.IsDialog(first) {
		complete := false
		finished = func() bool { return complete }
		return dialogread.EachLineCapped(in, dialogread.DefaultMaxBytes, func(line []byte, long int64) error {
			if !complete && bytes.Contains(line, []byte(`"complete"`)) {
				if e, err := dialogread.ParseLine(line, nil); err == nil && e.Type == "complete" {
					complete = true
				}
			}
			return fn(line, long)
		})
	}

	pr, pw := io.Pipe()
	followed := readerInput(in, file)
	followed.Stream = false // a followed file is never compressed (refused above)
	s, err := viewJob(source{Name: file, Inputs: []*input{followed}}, pw, stderr, maxText)
	if err != nil {
		return err
	}
	s.Feed = func(_ context.Context, conv *dispatch.Converter) fed {
		finished = conv.Finished
		return convert.ReadInputs(conv, s.Inputs)
	}
	go func() {
		_, err := convert.New(s).Run(context.Background())
		pw.CloseWithError(err)
	}()
	err = dialogread.EachLineCapped(pr, dialogread.DefaultMaxBytes, fn)
	pr.CloseWithError(errors.New("view stopped"))
	return err
}
