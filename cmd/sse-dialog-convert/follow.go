package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/follow"
)

// runFollow converts file while another process writes it (--follow).
func runFollow(ctx context.Context, o convertOptions, copt dispatch.Options, wopt dialog.Options, file string, stdout, stderr io.Writer) error {
	path := o.outputPath()
	if path != "-" && sameAbsPath(path, file) {
		return cli.Refusef("refusing to write the dialog to %s: it is the file followed", path)
	}
	if f, err := os.Open(file); err == nil {
		err = follow.RefuseCompressed(f, file)
		f.Close()
		if err != nil {
			return err // before the output is created: it stays as it was
		}
	}
	j := o.job(source{name: file}, copt, wopt, stderr)
	j.out = fileOutput(path, stdout)
	j.reads = append(o.reads(nil), statFile("the input", file)) // it may not exist yet
	j.feed = func(ctx context.Context, conv *dispatch.Converter) fed {
		return feedFollow(ctx, conv, file, o.idleTimeout, stderr)
	}
	ctx, release := cli.CatchStops(ctx)
	defer release()
	return j.run(ctx)
}

// feedFollow converts file while another process writes it: it waits for
// the file to appear, reads new lines as they are written (a line waits
// for its newline), and ends at the stream's final event, after idle
// without new data, when the file is truncated, or when ctx is done.
func feedFollow(ctx context.Context, conv *dispatch.Converter, file string, idle time.Duration, stderr io.Writer) fed {
	opt := follow.Options{Idle: idle, Grace: follow.Grace, Done: conv.Finished}
	fail := func(err error) fed { return fed{code: 1, errs: []error{err}} }
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "%s: waiting for %s to appear\n", name, cli.QuoteName(file))
	}
	f, err := follow.Open(ctx, file, opt)
	if errors.Is(err, follow.ErrGaveUp) {
		if ctx.Err() != nil {
			return fed{} // the stop's ending says it all
		}
		return fail(fmt.Errorf("%s did not appear within %v", file, idle))
	}
	if err != nil {
		return fail(err)
	}
	defer f.Close()

	if err := follow.RefuseCompressed(f, file); err != nil {
		return fail(err) // the file appeared compressed after the output was made
	}

	r := follow.New(ctx, f, opt)
	if err := conv.Feed(r, file); err != nil {
		var oe *dispatch.OutputError
		if errors.As(err, &oe) {
			return fed{outErr: err}
		}
		return fail(fmt.Errorf("reading %s: %w", file, cli.UnwrapPath(err)))
	}
	switch r.Why() {
	case follow.Idle:
		fmt.Fprintf(stderr, "%s: %s: no new data for %v; the dialog ends here\n", name, cli.QuoteName(file), idle)
	case follow.Truncated:
		fmt.Fprintf(stderr, "%s: %s was truncated while followed; the dialog ends here\n", name, cli.QuoteName(file))
	}
	return fed{whole: true}
}
