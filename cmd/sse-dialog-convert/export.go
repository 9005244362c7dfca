package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/command"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/htmlexport"
	"github.com/ssebench/sse-dialog-convert/internal/runstats"
)

type exportOptions struct {
	html   bool
	output string
	outDir string
	redact []string
	// maxText cuts the texts of a FILE converted on the fly (<= 0: no cap).
	maxText int
}

func newExportCmd(streams *cli.Streams) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export --html [-o OUT.html | --out-dir DIR] FILE...",
		Short: "Write dialogs as self-contained HTML pages that work offline",
		Long: `export --html writes each dialog as one HTML file that needs nothing else: its
style and script are inline, a strict Content-Security-Policy lets nothing load,
and it works from file://. It has the timeline with subagents nested, tool calls
merged with their results, edits as diffs, search across all text, filters
(by kind, tool name, subagent, errors), each response's tokens and time, a
prompt index and a timeline of lanes (i), keyboard navigation (j/k, /), copy
buttons, a permalink per entry (#seq-42), and a print or PDF with every entry.

FILE is a dialog.jsonl, or any input the converter reads, converted on the fly.
One FILE goes to -o OUT.html (- for stdout), else to its base name with .html
in the current folder. With --out-dir each FILE becomes DIR/<name>.html, plus
DIR/index.html: the stats command's table of the runs with their totals,
sortable, filterable, each row linking to its page. --redact masks every
match of a regular expression in every string before anything is written.`,
		Example: `  sse-dialog-convert export --html -o run.html "$SSE_ARCHIVE/dialog.jsonl"
  sse-dialog-convert export --html --out-dir report/ runs/*/dialog.jsonl
  sse-dialog-convert export --html --redact 'sk-[A-Za-z0-9_-]+' --redact '/home/[^/]+' transcript.jsonl`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.Usagef("export needs at least one FILE")
			}
			return nil
		},
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), o, args, streams)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.html, "html", false, "write HTML (the only format for now; required)")
	f.StringVarP(&o.output, "output", "o", "", "write the page to `PATH` (- for stdout); one FILE only")
	f.StringVar(&o.outDir, "out-dir", "", "write one page per FILE into `DIR`, plus index.html")
	f.StringArrayVar(&o.redact, "redact", nil, "mask every match of `REGEX` in every string (repeatable)")
	o.maxText = dialog.DefaultMaxText
	f.Var(cli.SizeValue[int]{P: &o.maxText}, "max-text", command.MaxTextUsage)
	return cmd
}

func runExport(ctx context.Context, o exportOptions, files []string, streams *cli.Streams) error {
	stdin, stderr := streams.In, streams.ErrOut
	if !o.html {
		return cli.Usagef("export needs a format: --html")
	}
	if o.output != "" && o.outDir != "" {
		return cli.Usagef("-o and --out-dir cannot both be given")
	}
	if o.output != "" && len(files) > 1 {
		return cli.Usagef("-o takes one FILE; use --out-dir for several")
	}
	red, err := dialogread.NewRedactor(o.redact)
	if err != nil {
		return cli.Usagef("--redact: %v", err)
	}
	if err := command.CheckMaxText(o.maxText); err != nil {
		return err
	}
	// A folder of several sessions is a page per session: in --out-dir,
	// where they are named apart; elsewhere it is refused, saying so.
	var each []string
	for _, file := range files {
		sessions := folderSessions(file, stdin)
		switch {
		case sessions == nil:
			each = append(each, file)
		case o.outDir == "":
			return cli.Refusef("%s holds %d sessions, a page each: give --out-dir DIR (%s export --html --out-dir DIR %s)", file, len(sessions), name, file)
		default:
			each = append(each, sessions...)
		}
	}
	files = each
	// The pages' names come from the inputs' paths: masked like the rest,
	// before clashes are told apart, so that no name or link holds what
	// --redact hides.
	names := pageNames(redactPaths(files, red), o.outDir != "")
	outs := make([]string, len(files))
	for i := range files {
		switch {
		case o.output != "":
			outs[i] = o.output
		case o.outDir != "":
			outs[i] = filepath.Join(o.outDir, names[i])
		default:
			outs[i] = names[i]
		}
	}
	// No page may be written over an input (a typo in -o, a page named
	// like a FILE): the export is refused before anything is written.
	var inputs, pages []namedFile
	for i, file := range files {
		if file == "-" {
			inputs = append(inputs, stdinFile(stdin))
		} else {
			inputs = append(inputs, statFile("the input", file))
		}
		if outs[i] != "-" {
			pages = append(pages, statFile("the page", outs[i]))
		}
	}
	if o.outDir != "" {
		pages = append(pages, statFile("the index", filepath.Join(o.outDir, "index.html")))
	}
	if err := refuseOverwrite(pages, inputs); err != nil {
		return err
	}
	// A stop writes no further page and leaves no half-written one.
	ctx, release := cli.CatchStops(ctx)
	defer release()
	var runs []htmlexport.Run
	failed := false
	for i, file := range files {
		if ctx.Err() != nil {
			return cli.StopOf(ctx)
		}
		out := outs[i]
		run := htmlexport.Run{Href: pageHref(names[i]), Source: red.String(file)}
		if err := exportOne(ctx, file, out, o.maxText, red, streams, &run); err != nil {
			cli.Tell(stderr, err)
			run.Href, run.Err = "", red.String(err.Error())
			failed = true
		}
		runs = append(runs, run)
	}
	if o.outDir != "" {
		index := filepath.Join(o.outDir, "index.html")
		if err := writeFileAtomic(ctx, index, func(w io.Writer) error {
			return htmlexport.WriteIndex(w, "dialogs · "+strconv.Itoa(len(runs))+" runs", runs)
		}); err != nil {
			return err
		}
	}
	if failed {
		return &cli.ExitError{Code: 1} // each failure was told
	}
	return nil
}

// exportOne reads one FILE and writes its page to out ("-": stdout), and
// fills in the run's row for the index.
func exportOne(ctx context.Context, file, out string, maxText int, red *dialogread.Redactor, streams *cli.Streams, run *htmlexport.Run) error {
	src, err := dialogSourceText(ctx, file, streams.In, streams.InTerminal, streams.ErrOut, maxText)
	if err != nil {
		return err
	}
	d, err := command.ReadSource(src, file, red)
	if err != nil {
		return err
	}
	if d.Init != nil {
		run.Init = d.Init.Init
	}
	run.Summary = d.Summary()
	stats := runstats.FromDialog(d, file)
	run.Stats = &stats
	opt := htmlexport.Options{Source: red.String(filepath.Base(file))}
	if out == "-" {
		return htmlexport.Write(streams.Out, d, opt)
	}
	return writeFileAtomic(ctx, out, func(w io.Writer) error { return htmlexport.Write(w, d, opt) })
}

// writeFileAtomic writes path through a temporary file renamed into place,
// so that a page is never seen half-written; a stop (ctx) while it is
// written leaves nothing.
func writeFileAtomic(ctx context.Context, path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, cli.UnwrapPath(err))
	}
	// A short name of its own: a page's name may be near the 255-byte limit.
	tmp, err := os.CreateTemp(dir, batchTempPrefix+strconv.Itoa(os.Getpid())+"-*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, cli.UnwrapPath(err))
	}
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && ctx.Err() != nil {
		os.Remove(tmp.Name())
		return cli.StopOf(ctx)
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, cli.UnwrapPath(err))
	}
	return nil
}

// redactPaths masks each path's absolute form (its folders name the page
// when names clash); a path the mask made relative is kept absolute, so
// that it is not taken as relative to the working directory. "-" stays.
func redactPaths(files []string, red *dialogread.Redactor) []string {
	if red == nil {
		return files
	}
	out := make([]string, len(files))
	for i, f := range files {
		if f == "-" {
			out[i] = f
			continue
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			abs = f
		}
		masked := red.String(abs)
		if !filepath.IsAbs(masked) {
			masked = string(filepath.Separator) + masked
		}
		out[i] = masked
	}
	return out
}

// pageHref is the index's link to a page named name, in the same folder:
// the name as one path segment, so that a legal name holding #, ?, % or :
// is not read as a fragment, a query, an escape or a scheme.
func pageHref(name string) string {
	return strings.ReplaceAll(url.PathEscape(name), ":", "%3A")
}

// pageNames gives each FILE its page's name: the name the batch mode gives
// its dialog (clashes told apart the same way), without .dialog.jsonl (and
// a .dialog the input already had), plus .html. In a folder "index" stays
// the index's.
func pageNames(files []string, inDir bool) []string {
	names := dialogNames(files)
	for i, n := range names {
		n = strings.TrimSuffix(strings.TrimSuffix(n, dialogSuffix), ".dialog")
		if files[i] == "-" {
			n = "stdin"
		}
		if inDir && strings.EqualFold(n, "index") {
			n += "-page"
		}
		names[i] = n + ".html"
	}
	return names
}
