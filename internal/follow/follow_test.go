package follow

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/ssebench/sse-dialog-convert/internal/golden"
)

// waitFor is generous: these tests check behaviour, never speed.
const waitFor = 10 * time.Second

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

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

func TestReadsLinesAsTheyArriveAndStopsWhenIdle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	appendTo(t, path, "one\n")
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r := New(f, Options{Poll: 5 * time.Millisecond, Idle: 500 * time.Millisecond})
	got, done := lines(r)

	assert.Equal(t, "one\n", next(t, got))
	appendTo(t, path, "tw")
	quiet(t, got, 50*time.Millisecond) // half a line waits for its end
	appendTo(t, path, "o\n")
	assert.Equal(t, "two\n", next(t, got))
	appendTo(t, path, "cut")

	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(waitFor):
		t.Fatal("idle timeout did not end the reading")
	}
	assert.Equal(t, "cut", next(t, got), "the cut last line is returned at the end")
	assert.Equal(t, Idle, r.Why())
}

func TestStopsWhenDoneAfterGrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	appendTo(t, path, "a\n")
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var finished atomic.Bool
	r := New(f, Options{Poll: 5 * time.Millisecond, Grace: 100 * time.Millisecond, Done: finished.Load})
	got, done := lines(r)
	assert.Equal(t, "a\n", next(t, got))
	quiet(t, got, 50*time.Millisecond) // not done: no idle limit, keeps waiting

	finished.Store(true)
	appendTo(t, path, "trailing\n") // written in the same burst as the end
	assert.Equal(t, "trailing\n", next(t, got))
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(waitFor):
		t.Fatal("Done did not end the reading")
	}
	assert.Equal(t, Done, r.Why())
}

func TestStopsOnTruncation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	appendTo(t, path, "first line\n")
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r := New(f, Options{Poll: 5 * time.Millisecond})
	got, done := lines(r)
	assert.Equal(t, "first line\n", next(t, got))
	require.NoError(t, os.Truncate(path, 0))
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(waitFor):
		t.Fatal("truncation did not end the reading")
	}
	assert.Equal(t, Truncated, r.Why())
}

func TestStop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	appendTo(t, path, "")
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	stop := make(chan struct{})
	r := New(f, Options{Poll: time.Hour, Stop: stop}) // only Stop can end the wait
	_, done := lines(r)
	close(stop)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(waitFor):
		t.Fatal("Stop did not end the reading")
	}
	assert.Equal(t, Stopped, r.Why())
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
	f, err := Open(path, Options{Poll: 5 * time.Millisecond, Idle: waitFor})
	require.NoError(t, err)
	require.NoError(t, f.Close())

	_, err = Open(filepath.Join(t.TempDir(), "never"), Options{Poll: 5 * time.Millisecond, Idle: 30 * time.Millisecond})
	assert.ErrorIs(t, err, ErrGaveUp)

	// Any error other than "does not exist" is returned at once.
	_, err = Open(filepath.Join(path, "under-a-file"), Options{Poll: 5 * time.Millisecond})
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrGaveUp)
}
