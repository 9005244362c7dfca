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
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

// followGrace is how long --follow goes on reading after the final event
// while lines still arrive: lines the agent writes in the same burst (a
// closing system line, a background task's last output) still get in, and
// a quiet file stops almost at once.
const followGrace = time.Second

// runFollow converts file while another process writes it (--follow).
func runFollow(ctx context.Context, o convertOptions, copt dispatch.Options, wopt dialog.Options, file string, stdout, stderr io.Writer) error {
	path := o.outputPath()
	if path != "-" && sameAbsPath(path, file) {
		return cli.Refusef("refusing to write the dialog to %s: it is the file followed", path)
	}
	if f, err := os.Open(file); err == nil {
		err = refuseCompressed(f, file)
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
	opt := follow.Options{Idle: idle, Grace: followGrace, Done: conv.Finished}
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

	if err := refuseCompressed(f, file); err != nil {
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

// refuseCompressed refuses to follow a compressed file: a compressed stream
// cannot be read while it is written (its blocks end only when the writer
// flushes them, and the reader cannot resume).
func refuseCompressed(f *os.File, file string) error {
	head := make([]byte, len(sessionfile.ZstdMagic))
	n, _ := f.ReadAt(head, 0)
	if kind := sessionfile.Compressed(head[:n]); kind != "" {
		return fmt.Errorf("cannot follow %s: it is %s-compressed (convert it without --follow)", file, kind)
	}
	return nil
}
