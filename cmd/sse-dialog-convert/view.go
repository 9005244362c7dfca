package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/command"
	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

func newViewCmd(streams *cli.Streams) *cobra.Command {
	var o command.ViewOptions
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
			file := "-"
			if len(args) == 1 {
				file = args[0]
			}
			return command.View(cmd.Context(), o, file, streams, viewSources(streams))
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Width, "width", 0, "wrap at `COLUMNS` (default: the terminal's width, else 80)")
	f.BoolVar(&o.Full, "full", false, "show tool results in full instead of folded")
	f.BoolVar(&o.NoPager, "no-pager", false, "never page the output")
	f.StringVar(&o.Color, "color", "auto", "`WHEN` to colour: auto (on a terminal), always, never; NO_COLOR always wins")
	f.BoolVar(&o.Follow, "follow", false, "draw the dialog as another process writes it, until its complete entry")
	o.IdleTimeout = 5 * time.Minute
	f.Var((*cli.DurationValue)(&o.IdleTimeout), "idle-timeout", "with --follow, stop after `DURATION` without new data: seconds or a duration (0: never)")
	f.StringArrayVar(&o.Redact, "redact", nil, "mask every match of `REGEX` in every string (repeatable)")
	o.MaxText = dialog.DefaultMaxText
	f.Var(cli.SizeValue[int]{P: &o.MaxText}, "max-text", command.MaxTextUsage)
	_ = cmd.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// dialogSource returns the dialog of FILE ("-": stdin) as JSON lines, read
// as they are needed: a dialog is read as it is; any other input is
// converted on the fly the way the root command converts it (a session
// file, or a folder holding one, the way its format reads it). Nothing is
// held whole: what a viewer keeps is bounded by dialogread's limits. Close
// ends the reading (and the conversion) and returns what failed, which
// comes before a read error it caused. It is the one place where view and
// export call the converter.
func (c conversions) dialogSource(ctx context.Context, file string, stdin io.Reader, stderr io.Writer) (io.ReadCloser, error) {
	return c.dialogSourceText(ctx, file, stdin, c.streams.InTerminal, stderr, dialog.DefaultMaxText)
}

// dialogSourceText is dialogSource converting with tool results, errors
// and args strings cut to maxText bytes (--max-text; <= 0: no cap).
func (c conversions) dialogSourceText(ctx context.Context, file string, stdin io.Reader, stdinTerminal bool, stderr io.Writer, maxText int) (io.ReadCloser, error) {
	src := inputs.Source{Name: "<stdin>", Inputs: []*inputs.Input{inputs.StdinInput(stdin)}}
	if file == "-" && stdinTerminal {
		fmt.Fprintf(stderr, "%s: reading a dialog or transcript from standard input (a terminal); Ctrl-D ends it\n", name)
	}
	closeFile := func() {}
	if file != "-" {
		if st, err := os.Stat(file); err == nil && st.IsDir() {
			return c.convertSources(ctx, inputs.Sources([]string{file}, registry.All(), false, stdin, 1), stderr, maxText)
		}
		f, err := inputs.OpenFile(file)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", cli.QuoteName(file), cli.UnwrapPath(err))
		}
		closeFile = func() { f.Close() }
		src = inputs.Source{Name: file, Inputs: []*inputs.Input{{Name: file, Label: file, R: f, Stream: true}}}
	}
	r, release, err := sessionfile.Decompressed(src.Inputs[0].R)
	if err != nil {
		closeFile()
		return nil, fmt.Errorf("reading %s: %w", cli.QuoteName(src.Name), cli.UnwrapPath(err))
	}
	done := func() { release(); closeFile() }
	br := bufio.NewReaderSize(r, 64<<10)
	// A first line longer than a dialog's line cap is no dialog to show.
	first, err := command.FirstLineCapped(br, dialogread.DefaultMaxBytes)
	if err != nil {
		done()
		return nil, fmt.Errorf("reading %s: %w", cli.QuoteName(src.Name), cli.UnwrapPath(err))
	}
	in := io.MultiReader(bytes.NewReader(first), br)
	if dialogread.IsDialog(first) {
		return &sourceReader{r: in, done: done}, nil
	}
	if file != "-" {
		if srcs := inputs.Sources([]string{file}, registry.All(), false, stdin, 1); srcs[0].Format != nil {
			done()
			return c.convertSources(ctx, srcs, stderr, maxText) // a session: read as its format says
		}
	}
	src.Inputs = []*inputs.Input{inputs.ReaderInput(in, src.Name)}
	rc, err := c.convertSourceText(ctx, src, stderr, maxText)
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

// folderSessions lists the sessions of a FILE that is a folder holding
// more than one (each a dialog of its own, which view and export cannot
// join): nil for anything else.
func folderSessions(file string, stdin io.Reader) []string {
	if st, err := os.Stat(file); err != nil || !st.IsDir() {
		return nil
	}
	srcs := inputs.Sources([]string{file}, registry.All(), false, stdin, 1)
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
func (c conversions) convertSources(ctx context.Context, srcs []inputs.Source, stderr io.Writer, maxText int) (io.ReadCloser, error) {
	src, err := inputs.OneDialog(srcs)
	if err != nil {
		return nil, err
	}
	return c.convertSourceText(ctx, src, stderr, maxText)
}

// convertSource converts src into a dialog as it is read, with the
// converter's defaults (its clock pinned by SOURCE_DATE_EPOCH).
func (c conversions) convertSource(ctx context.Context, src inputs.Source, stderr io.Writer) (io.ReadCloser, error) {
	return c.convertSourceText(ctx, src, stderr, dialog.DefaultMaxText)
}

// convertSourceText is convertSource with texts cut to maxText bytes
// (<= 0: no cap).
func (c conversions) convertSourceText(ctx context.Context, src inputs.Source, stderr io.Writer, maxText int) (io.ReadCloser, error) {
	pr, pw := io.Pipe()
	s, err := c.viewJob(src, pw, stderr, maxText)
	if err != nil {
		return nil, err
	}
	// A pipe on standard input is live, as for convert: its entries are
	// drawn as they come, never held for a time a later line may give.
	s.Writer.Saved = src.Saved()
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
func (c conversions) viewJob(src inputs.Source, w io.Writer, stderr io.Writer, maxText int) (convert.Spec, error) {
	clock, err := convert.EnvClock(c.streams.Getenv("SOURCE_DATE_EPOCH"))
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

// conversions convert what is no dialog yet for view, export and stats:
// with the converter's defaults, the clock the environment of streams pins
// (SOURCE_DATE_EPOCH).
type conversions struct{ streams *cli.Streams }

// viewSources is the conversion view and export use: input discovery and
// the job.
func viewSources(streams *cli.Streams) command.Sources {
	c := conversions{streams: streams}
	return command.Sources{Dialog: c.dialogSourceText, Sessions: folderSessions, Live: c.liveDialog}
}

// liveDialog is command.LiveDialog: the live conversion of a followed
// transcript (view --follow).
func (c conversions) liveDialog(ctx context.Context, in io.Reader, file string, stderr io.Writer, maxText int, started func(finished func() bool), fn func(line []byte, long int64) error) error {
	pr, pw := io.Pipe()
	followed := inputs.ReaderInput(in, file)
	followed.Stream = false // a followed file is never compressed (refused above)
	s, err := c.viewJob(inputs.Source{Name: file, Inputs: []*inputs.Input{followed}}, pw, stderr, maxText)
	if err != nil {
		return err
	}
	s.Feed = func(_ context.Context, conv *dispatch.Converter) convert.Fed {
		started(conv.Finished)
		return convert.ReadInputs(conv, s.Inputs)
	}
	go func() {
		_, err := convert.New(s).Run(ctx)
		pw.CloseWithError(err)
	}()
	err = dialogread.EachLineCapped(pr, dialogread.DefaultMaxBytes, fn)
	pr.CloseWithError(errors.New("view stopped"))
	return err
}
