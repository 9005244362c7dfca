package convert

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/follow"
)

// FollowFeed converts file while another process writes it: it waits for
// the file to appear, reads new lines as they are written (a line waits
// for its newline), and ends at the stream's final event, after idle
// without new data, when the file is truncated, or when ctx is done.
func FollowFeed(file string, idle time.Duration, stderr io.Writer) Feed {
	return func(ctx context.Context, conv *dispatch.Converter) Fed {
		return feedFollow(ctx, conv, file, idle, stderr)
	}
}

func feedFollow(ctx context.Context, conv *dispatch.Converter, file string, idle time.Duration, stderr io.Writer) Fed {
	opt := follow.Options{Idle: idle, Grace: follow.Grace, Done: conv.Finished}
	fail := func(err error) Fed { return Fed{Code: 1, Errs: []error{err}} }
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "%s: waiting for %s to appear\n", cli.Program, cli.QuoteName(file))
	}
	f, err := follow.Open(ctx, file, opt)
	if errors.Is(err, follow.ErrGaveUp) {
		if ctx.Err() != nil {
			return Fed{} // the stop's ending says it all
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
			return Fed{OutErr: err}
		}
		return fail(fmt.Errorf("reading %s: %w", file, cli.UnwrapPath(err)))
	}
	switch r.Why() {
	case follow.Idle:
		fmt.Fprintf(stderr, "%s: %s: no new data for %v; the dialog ends here\n", cli.Program, cli.QuoteName(file), idle)
	case follow.Truncated:
		fmt.Fprintf(stderr, "%s: %s was truncated while followed; the dialog ends here\n", cli.Program, cli.QuoteName(file))
	}
	return Fed{Whole: true}
}
