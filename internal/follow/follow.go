// Package follow reads a file that another process is still writing, like
// tail -f: at the end of the data written so far it waits and polls instead
// of returning io.EOF, until the caller says the stream is done, the file
// stays quiet too long, or its context is done. Polling needs nothing from the
// platform and costs a few stat calls a second.
package follow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

// Reason says why a Reader stopped.
type Reason int

const (
	Running   Reason = iota // not stopped
	Done                    // Options.Done reported the end and the file was quiet for Grace
	Idle                    // no new data for Options.Idle
	Truncated               // the file became shorter than what was read: rewritten from the start
	Stopped                 // the context was done
)

// DefaultPoll is how often the file is checked for new data.
const DefaultPoll = 200 * time.Millisecond

// Grace is how long --follow goes on reading after the final event while
// lines still arrive (Options.Grace): lines the agent writes in the same
// burst (a closing system line, a background task's last output) still
// get in, and a quiet file stops almost at once.
const Grace = time.Second

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

// Options configure a Reader.
type Options struct {
	// Poll is the wait between checks at the end of the data (DefaultPoll if 0).
	Poll time.Duration
	// Idle ends the reading after this long without new data; 0 waits forever.
	Idle time.Duration
	// Done, if set, reports whether the stream has reached its end. It is
	// asked at the end of the data; once it says yes, the reading ends after
	// Grace without new data, which picks up lines written in the same burst.
	Done  func() bool
	Grace time.Duration
}

// Reader reads a growing file. Its Read blocks at the end of the data until
// more arrives or the reading ends; then it returns io.EOF. A line cut off
// by the writer therefore waits for its end unless the reading ends first.
type Reader struct {
	ctx      context.Context // done: the reading ends at once
	f        *os.File
	opt      Options
	off      int64
	lastData time.Time
	why      Reason
	timer    *time.Timer
}

// New returns a Reader of f from its current offset (0 for a file just
// opened), which reads until ctx is done at the latest.
func New(ctx context.Context, f *os.File, opt Options) *Reader {
	if opt.Poll <= 0 {
		opt.Poll = DefaultPoll
	}
	return &Reader{ctx: ctx, f: f, opt: opt, lastData: time.Now()}
}

// Why returns why the reading ended, or Running.
func (r *Reader) Why() Reason { return r.why }

// Read reads what is there, or waits for more.
func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for r.why == Running {
		n, err := r.f.Read(p)
		if n > 0 {
			r.off += int64(n)
			r.lastData = time.Now()
			return n, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if r.why = r.check(); r.why != Running {
			break
		}
		if !r.wait() {
			r.why = Stopped
		}
	}
	return 0, io.EOF
}

// check decides, at the end of the data, whether to stop.
func (r *Reader) check() Reason {
	if r.ctx.Err() != nil {
		return Stopped
	}
	if st, err := r.f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() < r.off {
		return Truncated
	}
	quiet := time.Since(r.lastData)
	if r.opt.Done != nil && quiet >= r.opt.Grace && r.opt.Done() {
		return Done
	}
	if r.opt.Idle > 0 && quiet >= r.opt.Idle {
		return Idle
	}
	return Running
}

// wait sleeps one poll interval; false means the context was done meanwhile.
func (r *Reader) wait() bool {
	if r.timer == nil {
		r.timer = time.NewTimer(r.opt.Poll)
	} else {
		r.timer.Reset(r.opt.Poll)
	}
	select {
	case <-r.ctx.Done():
		return false
	case <-r.timer.C:
		return true
	}
}

// ErrGaveUp is returned by Open when the file did not appear in time.
var ErrGaveUp = errors.New("the file did not appear")

// Open opens path, waiting for it to be created if it does not exist yet
// (the writer may start after the follower). It gives up after opt.Idle,
// or when ctx is done.
func Open(ctx context.Context, path string, opt Options) (*os.File, error) {
	if opt.Poll <= 0 {
		opt.Poll = DefaultPoll
	}
	start := time.Now()
	for {
		f, err := os.Open(path)
		if !errors.Is(err, fs.ErrNotExist) {
			return f, err
		}
		if opt.Idle > 0 && time.Since(start) >= opt.Idle {
			return nil, ErrGaveUp
		}
		select {
		case <-ctx.Done():
			return nil, ErrGaveUp
		case <-time.After(opt.Poll):
		}
	}
}
