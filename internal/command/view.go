package command

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/follow"
	"github.com/ssebench/sse-dialog-convert/internal/view"
)

// ViewOptions are view's flags.
type ViewOptions struct {
	Width       int
	Full        bool
	NoPager     bool
	Color       string // auto, always, never
	Follow      bool
	IdleTimeout time.Duration
	Redact      []string
	MaxText     int
}

// Sources is the conversion view and export need: input discovery and the
// conversion job, which main passes in.
type Sources struct {
	// Dialog returns the dialog of file ("-": stdin) as JSON lines, read as
	// they are needed: a dialog as it is, any other input converted on the
	// fly, with texts cut to maxText bytes (<= 0: no cap). Close ends the
	// reading and returns the conversion's failure. stdinTerminal: stdin
	// is a terminal (it says how to end it).
	Dialog func(ctx context.Context, file string, stdin io.Reader, stdinTerminal bool, stderr io.Writer, maxText int) (io.ReadCloser, error)
	// Sessions lists the sessions of a file that is a folder holding more
	// than one: nil for anything else.
	Sessions func(file string, stdin io.Reader) []string
	// Live converts a transcript being written (view --follow).
	Live LiveDialog
}

// LiveDialog converts in, the start of file while another process writes
// it, passing each line of its dialog to fn as it is converted (for a line
// longer than dialogread.DefaultMaxBytes, an empty one and its length);
// once the conversion runs it calls started with whether the stream's
// final event was read. It returns fn's error, or the reading's.
type LiveDialog func(ctx context.Context, in io.Reader, file string, stderr io.Writer, maxText int, started func(finished func() bool), fn func(line []byte, long int64) error) error

// View draws the dialog of file ("-": standard input) on streams.Out: see
// view's help. conv converts what is no dialog.
func View(ctx context.Context, o ViewOptions, file string, streams *cli.Streams, conv Sources) error {
	stdin, stdout, stderr := streams.In, streams.Out, streams.ErrOut
	red, err := dialogread.NewRedactor(o.Redact)
	if err != nil {
		return cli.Usagef("--redact: %v", err)
	}
	if o.IdleTimeout < 0 {
		return cli.Usagef("--idle-timeout cannot be negative")
	}
	if err := CheckMaxText(o.MaxText); err != nil {
		return err
	}
	tty, width, height := streams.OutTerminal, 80, 0
	if tty && streams.OutWidth > 0 {
		width, height = streams.OutWidth, streams.OutHeight
	}
	color := false
	switch o.Color {
	case "auto":
		color = tty
	case "always":
		color = true
	case "never":
	default:
		return cli.Usagef("unknown --color %q (want auto, always or never)", o.Color)
	}
	if streams.Getenv("NO_COLOR") != "" || streams.Getenv("TERM") == "dumb" {
		color = false
	}
	if o.Width > 0 {
		width = o.Width
	}
	vopt := view.Options{Width: width, Color: color, Full: o.Full}

	if o.Follow {
		if file == "-" {
			return cli.Usagef("--follow needs a FILE")
		}
		s := view.NewStream(stdout, vopt)
		// What is not shown is counted, and said before the closing line.
		unshown := dialogread.Dialog{LeftOut: dialogread.LeftOut{Limits: dialogread.DefaultLimits()}}
		err := followDialog(ctx, file, o.IdleTimeout, o.MaxText, stderr, conv.Live, func(line []byte, n int64) error {
			if e, ok := unshown.ReadLine(line, n, red); ok {
				return s.Add(e)
			}
			return nil
		})
		if msg := unshown.Banner(); msg != "" {
			s.Note(msg)
		}
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		return err
	}

	if sessions := conv.Sessions(file, stdin); sessions != nil {
		return cli.Refusef("%s holds %d sessions and view shows one: name it (%s view %s), or export them all (%s export --html --out-dir DIR %s)",
			file, len(sessions), cli.Program, sessions[0], cli.Program, file)
	}
	// Drawn as it is read: the first screen shows before the rest is
	// read, and what is held is what waits to be merged, not the dialog.
	pageAt := 0
	if tty && !o.NoPager && height > 0 {
		pageAt = height
	}
	out := view.NewPager(stdout, stderr, pageAt, strings.TrimSpace(streams.Getenv("PAGER")))
	src, err := conv.Dialog(ctx, file, stdin, streams.InTerminal, out.Notes(), o.MaxText)
	if err != nil {
		return err
	}
	err = view.DrawFrom(out, src, red, dialogread.DefaultMaxBytes, vopt, view.DefaultHold())
	cerr := src.Close()
	perr := out.Close()
	switch {
	case errors.Is(err, view.ErrPagerQuit) || errors.Is(perr, view.ErrPagerQuit):
		return nil // quitting a pager early is not our failure
	case cerr != nil:
		return cerr // the conversion's failure, before the read error it caused
	case out.WriteErr() != nil:
		return out.WriteErr() // writing the view failed, not reading the dialog
	case err != nil:
		return fmt.Errorf("reading %s: %w", cli.QuoteName(file), err)
	}
	return perr
}

// MaxTextUsage is view's and export's --max-text: it caps what a
// conversion on the fly keeps; a dialog is shown as it was written.
const MaxTextUsage = "when FILE is converted, cut tool results, errors and args strings to `BYTES` (16k, 2M: KiB, MiB) with a marker (0 or -1: no cap)"

// CheckMaxText refuses a --max-text below -1.
func CheckMaxText(n int) error {
	if n < -1 {
		return cli.Usagef("--max-text %d: want a size in bytes, or 0 or -1 for no cap", n)
	}
	return nil
}

// FirstLineCapped reads the first line of br, newline included, or its
// first max bytes and a few more when it is longer (0: whatever its length).
func FirstLineCapped(br *bufio.Reader, max int) ([]byte, error) {
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

// ReadSource reads a dialog from src within dialogread's limits; the
// conversion's failure comes before the read error it caused.
func ReadSource(src io.ReadCloser, file string, red *dialogread.Redactor) (*dialogread.Dialog, error) {
	d, err := dialogread.ReadLimited(src, red, dialogread.DefaultLimits())
	if cerr := src.Close(); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", cli.QuoteName(file), err)
	}
	return d, nil
}

// followDialog passes each line of a growing dialog to fn: FILE itself when
// it is a dialog, else its live conversion (live). It ends at the dialog's
// complete entry, or after idle without new data.
//
// fn gets each line, or for a line longer than dialogread.DefaultMaxBytes,
// read without being kept, an empty one and its length.
func followDialog(ctx context.Context, file string, idle time.Duration, maxText int, stderr io.Writer, live LiveDialog, fn func(line []byte, long int64) error) error {
	ctx, stop := context.WithCancel(ctx) // done on return: the reading and the conversion end with it
	defer stop()
	opt := follow.Options{Idle: idle, Grace: follow.Grace}
	f, err := follow.Open(ctx, file, opt)
	if errors.Is(err, follow.ErrGaveUp) {
		return fmt.Errorf("%s did not appear within %v", file, idle)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := follow.RefuseCompressed(f, file); err != nil {
		return err
	}
	var finished func() bool
	opt.Done = func() bool { return finished != nil && finished() }
	br := bufio.NewReaderSize(follow.New(ctx, f, opt), 64<<10)
	first, err := FirstLineCapped(br, dialogread.DefaultMaxBytes)
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

	return live(ctx, in, file, stderr, maxText, func(f func() bool) { finished = f }, fn)
}
