package command

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/htmlexport"
	"github.com/ssebench/sse-dialog-convert/internal/runstats"
)

// ExportOptions are export's flags.
type ExportOptions struct {
	HTML   bool
	Output string
	OutDir string
	Redact []string
	// MaxText cuts the texts of a FILE converted on the fly (<= 0: no cap).
	MaxText int
}

// ExportPages is what export asks of the batch's naming and guarding, which
// main passes in.
type ExportPages struct {
	// Names gives each FILE its page's name (inDir: pages in --out-dir).
	Names func(files []string, inDir bool) []string
	// RefuseOverwrite refuses pages (outs, "-" for stdout; and index when
	// not "") that would be written over an input (files, "-" for stdin).
	RefuseOverwrite func(files, outs []string, index string, stdin io.Reader) error
	// TempPrefix starts the name of a page being written (a batch's
	// temporary files, which a later batch may clean up).
	TempPrefix string
}

// Export writes each dialog of files as an HTML page: see export's help.
// conv converts what is no dialog; pages names the pages and guards the
// inputs.
func Export(ctx context.Context, o ExportOptions, files []string, streams *cli.Streams, conv Sources, pages ExportPages) error {
	stdin, stderr := streams.In, streams.ErrOut
	if !o.HTML {
		return cli.Usagef("export needs a format: --html")
	}
	if o.Output != "" && o.OutDir != "" {
		return cli.Usagef("-o and --out-dir cannot both be given")
	}
	if o.Output != "" && len(files) > 1 {
		return cli.Usagef("-o takes one FILE; use --out-dir for several")
	}
	red, err := dialogread.NewRedactor(o.Redact)
	if err != nil {
		return cli.Usagef("--redact: %v", err)
	}
	if err := CheckMaxText(o.MaxText); err != nil {
		return err
	}
	// A folder of several sessions is a page per session: in --out-dir,
	// where they are named apart; elsewhere it is refused, saying so.
	var each []string
	for _, file := range files {
		sessions := conv.Sessions(file, stdin)
		switch {
		case sessions == nil:
			each = append(each, file)
		case o.OutDir == "":
			return cli.Refusef("%s holds %d sessions, a page each: give --out-dir DIR (%s export --html --out-dir DIR %s)", file, len(sessions), cli.Program, file)
		default:
			each = append(each, sessions...)
		}
	}
	files = each
	// The pages' names come from the inputs' paths: masked like the rest,
	// before clashes are told apart, so that no name or link holds what
	// --redact hides.
	names := pages.Names(redactPaths(files, red), o.OutDir != "")
	outs := make([]string, len(files))
	for i := range files {
		switch {
		case o.Output != "":
			outs[i] = o.Output
		case o.OutDir != "":
			outs[i] = filepath.Join(o.OutDir, names[i])
		default:
			outs[i] = names[i]
		}
	}
	// No page may be written over an input (a typo in -o, a page named
	// like a FILE): the export is refused before anything is written.
	index := ""
	if o.OutDir != "" {
		index = filepath.Join(o.OutDir, "index.html")
	}
	if err := pages.RefuseOverwrite(files, outs, index, stdin); err != nil {
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
		if err := exportOne(ctx, file, out, o.MaxText, red, streams, conv, pages.TempPrefix, &run); err != nil {
			cli.Tell(stderr, err)
			run.Href, run.Err = "", red.String(err.Error())
			failed = true
		}
		runs = append(runs, run)
	}
	if o.OutDir != "" {
		index := filepath.Join(o.OutDir, "index.html")
		if err := writeFileAtomic(ctx, index, pages.TempPrefix, func(w io.Writer) error {
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
func exportOne(ctx context.Context, file, out string, maxText int, red *dialogread.Redactor, streams *cli.Streams, conv Sources, tempPrefix string, run *htmlexport.Run) error {
	src, err := conv.Dialog(ctx, file, streams.In, streams.InTerminal, streams.ErrOut, maxText)
	if err != nil {
		return err
	}
	d, err := ReadSource(src, file, red)
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
	return writeFileAtomic(ctx, out, tempPrefix, func(w io.Writer) error { return htmlexport.Write(w, d, opt) })
}

// writeFileAtomic writes path through a temporary file renamed into place,
// so that a page is never seen half-written; a stop (ctx) while it is
// written leaves nothing.
func writeFileAtomic(ctx context.Context, path, tempPrefix string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, cli.UnwrapPath(err))
	}
	// A short name of its own: a page's name may be near the 255-byte limit.
	tmp, err := os.CreateTemp(dir, tempPrefix+strconv.Itoa(os.Getpid())+"-*.tmp")
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
