package follow

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	_ "github.com/ssebench/sse-dialog-convert/internal/golden"
)

// waitFor is generous: these tests check behaviour, never speed.
const waitFor = 10 * time.Second

// lines reads r line by line in the background.
func lines(r io.Reader) (<-chan string, <-chan error) {
	out, done := make(chan string, 100), make(chan error, 1)
	go func() {
		br := bufio.NewReader(r)
		for {
			s, err := br.ReadString('\n')
			if s != "" {
				out <- s
			}
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				done <- err
				close(out)
				return
			}
		}
	}()
	return out, done
}

func next(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(waitFor):
		t.Fatal("no line arrived")
		return ""
	}
}

func quiet(t *testing.T, ch <-chan string, d time.Duration) {
	t.Helper()
	select {
	case s, ok := <-ch:
		if ok {
			t.Fatalf("unexpected line %q", s)
		}
		t.Fatal("reading ended early")
	case <-time.After(d):
	}
}

// growing makes a file that holds start, to be appended to, and opens it
// for a reader (closed when the test ends).
func growing(t *testing.T, start string) (path string, f *os.File) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "t.jsonl")
	adaptertest.Append(t, path, start)
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return path, f
}

// ended waits for the reading of r to end, which what (the reason why)
// must have ended.
func ended(t *testing.T, r *Reader, done <-chan error, why Reason, what string) {
	t.Helper()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(waitFor):
		t.Fatalf("%s did not end the reading", what)
	}
	assert.Equal(t, why, r.Why(), "ended by %s", what)
}

// Lines come as they are written; half a line waits for its end. Nothing
// here depends on how fast the machine is: the reading has no time limit
// and ends when its context is done.
func TestReadsLinesAsTheyArrive(t *testing.T) {
	path, f := growing(t, "one\n")
	ctx, stop := context.WithCancel(context.Background())
	r := New(ctx, f, Options{Poll: 5 * time.Millisecond})
	got, done := lines(r)

	assert.Equal(t, "one\n", next(t, got))
	adaptertest.Append(t, path, "tw")
	quiet(t, got, 50*time.Millisecond) // half a line waits for its end
	adaptertest.Append(t, path, "o\n")
	assert.Equal(t, "two\n", next(t, got))
	stop()
	ended(t, r, done, Stopped, "Stop")
}

// After Idle without new data the reading ends, and a cut last line is
// returned as it is.
func TestStopsWhenIdle(t *testing.T) {
	_, f := growing(t, "one\ncut")
	r := New(context.Background(), f, Options{Poll: 5 * time.Millisecond, Idle: 100 * time.Millisecond})
	got, done := lines(r)
	assert.Equal(t, "one\n", next(t, got))
	ended(t, r, done, Idle, "the idle timeout")
	assert.Equal(t, "cut", next(t, got), "the cut last line is returned at the end")
}

// Once Done says yes, the reading ends when the file has been quiet for
// Grace.
func TestStopsWhenDone(t *testing.T) {
	_, f := growing(t, "a\n")
	var finished atomic.Bool
	r := New(context.Background(), f, Options{Poll: 5 * time.Millisecond, Grace: 10 * time.Millisecond, Done: finished.Load})
	got, done := lines(r)
	assert.Equal(t, "a\n", next(t, got))
	quiet(t, got, 50*time.Millisecond) // not done: no idle limit, keeps waiting
	finished.Store(true)
	ended(t, r, done, Done, "Done")
}

// Within Grace after Done says yes, lines still come: those written in the
// same burst as the end. (Grace is long here, and the context ends the reading.)
func TestGraceKeepsReadingAfterDone(t *testing.T) {
	path, f := growing(t, "a\n")
	ctx, stop := context.WithCancel(context.Background())
	r := New(ctx, f, Options{Poll: 5 * time.Millisecond, Grace: time.Hour, Done: func() bool { return true }})
	got, done := lines(r)
	assert.Equal(t, "a\n", next(t, got))
	adaptertest.Append(t, path, "trailing\n")
	assert.Equal(t, "trailing\n", next(t, got))
	stop()
	ended(t, r, done, Stopped, "Stop")
}

func TestStopsOnTruncation(t *testing.T) {
	path, f := growing(t, "first line\n")
	r := New(context.Background(), f, Options{Poll: 5 * time.Millisecond})
	got, done := lines(r)
	assert.Equal(t, "first line\n", next(t, got))
	require.NoError(t, os.Truncate(path, 0))
	ended(t, r, done, Truncated, "truncation")
}

func TestStop(t *testing.T) {
	_, f := growing(t, "")
	ctx, stop := context.WithCancel(context.Background())
	r := New(ctx, f, Options{Poll: time.Hour}) // only the context can end the wait
	_, done := lines(r)
	stop()
	ended(t, r, done, Stopped, "Stop")
	n, err := r.Read(make([]byte, 8))
	assert.Equal(t, 0, n)
	assert.Equal(t, io.EOF, err, "a stopped reader stays at its end")
}

func TestOpenWaitsForTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "later.jsonl")
	go func() {
		time.Sleep(50 * time.Millisecond)
		_ = os.WriteFile(path, []byte("x\n"), 0o644)
	}()
	f, err := Open(context.Background(), path, Options{Poll: 5 * time.Millisecond, Idle: waitFor})
	require.NoError(t, err)
	require.NoError(t, f.Close())

	_, err = Open(context.Background(), filepath.Join(t.TempDir(), "never"), Options{Poll: 5 * time.Millisecond, Idle: 30 * time.Millisecond})
	assert.ErrorIs(t, err, ErrGaveUp)

	// A context done ends the wait, with no Idle to end it.
	ctx, stop := context.WithCancel(context.Background())
	stop()
	_, err = Open(ctx, filepath.Join(t.TempDir(), "never"), Options{Poll: 5 * time.Millisecond})
	assert.ErrorIs(t, err, ErrGaveUp)

	// Any error other than "does not exist" is returned at once.
	_, err = Open(context.Background(), filepath.Join(path, "under-a-file"), Options{Poll: 5 * time.Millisecond})
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrGaveUp)
}
