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
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

// FollowGrace is how long --follow goes on reading after the final event
// while lines still arrive: lines the agent writes in the same burst (a
// closing system line, a background task's last output) still get in, and
// a quiet file stops almost at once.
const FollowGrace = time.Second

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
	opt := follow.Options{Idle: idle, Grace: FollowGrace, Done: conv.Finished, Stop: ctx.Done()}
	fail := func(err error) Fed { return Fed{Code: 1, Errs: []error{err}} }
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "%s: waiting for %s to appear\n", cli.Program, cli.QuoteName(file))
	}
	f, err := follow.Open(file, opt)
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

	if err := RefuseCompressed(f, file); err != nil {
		return fail(err) // the file appeared compressed after the output was made
	}

	r := follow.New(f, opt)
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

// RefuseCompressed refuses to follow a compressed file: a compressed stream
// cannot be read while it is written (its blocks end only when the writer
// flushes them, and the reader cannot resume).
func RefuseCompressed(f *os.File, file string) error {
	head := make([]byte, len(sessionfile.ZstdMagic))
	n, _ := f.ReadAt(head, 0)
	if kind := sessionfile.Compressed(head[:n]); kind != "" {
		return fmt.Errorf("cannot follow %s: it is %s-compressed (convert it without --follow)", file, kind)
	}
	return nil
}
