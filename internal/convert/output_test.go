package convert

import (
	"bytes"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// recorder keeps every Write it gets, as a separate call.
type recorder struct {
	mu     sync.Mutex
	writes []string
	failAt int // the write that fails, 1-based; 0 never
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failAt > 0 && len(r.writes)+1 == r.failAt {
		return 0, errors.New("no space left on device")
	}
	r.writes = append(r.writes, string(p))
	return len(p), nil
}

func TestOutputWritesEachEntryOnceInOrder(t *testing.T) {
	var r recorder
	o := NewOutput(&r)
	var want []string
	buf := make([]byte, 0, 64)
	for i := range 1000 {
		line := strings.Repeat("x", i%50) + "\n"
		if i == 500 {
			line = strings.Repeat("big", outputDirect) + "\n" // written directly, after the queue drains
		}
		buf = append(buf[:0], line...)
		n, err := o.Write(buf)
		require.NoError(t, err)
		require.Equal(t, len(line), n)
		buf[0] = '!' // the caller reuses its buffer at once
		want = append(want, line)
	}
	require.NoError(t, o.Close())
	assert.Equal(t, want, r.writes)
	_, err := o.Write([]byte("late\n"))
	assert.Error(t, err, "a write after Close is refused")
	assert.NoError(t, o.Close(), "Close twice is harmless")
}

func TestOutputReportsTheFirstWriteError(t *testing.T) {
	r := recorder{failAt: 3}
	o := NewOutput(&r)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = o.Write([]byte("entry\n"))
		if err == nil {
			o.pending.Wait() // let the failure land, as time would
		}
	}
	assert.EqualError(t, err, "no space left on device")
	assert.EqualError(t, o.Close(), "no space left on device")
	assert.Len(t, r.writes, 2, "nothing is written after the failure")
}

func TestOutputIsLive(t *testing.T) {
	var mu sync.Mutex
	var got bytes.Buffer
	wrote := make(chan struct{}, 1)
	o := NewOutput(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		got.Write(p)
		mu.Unlock()
		wrote <- struct{}{}
		return len(p), nil
	}))
	_, err := o.Write([]byte("one\n"))
	require.NoError(t, err)
	<-wrote // written without Close or more writes
	mu.Lock()
	assert.Equal(t, "one\n", got.String())
	mu.Unlock()
	require.NoError(t, o.Close())
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A huge entry, written directly, is not written after an entry queued
// before it failed: the file would skip an entry.
func TestOutputWritesNoHugeEntryAfterAFailure(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var written []int
	first := true
	o := NewOutput(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		if first {
			first = false
			mu.Unlock()
			<-release
			mu.Lock()
			return 0, errors.New("no space left on device")
		}
		written = append(written, len(p))
		return len(p), nil
	}))
	_, err := o.Write([]byte("entry\n"))
	require.NoError(t, err)
	huge := make(chan error, 1)
	go func() {
		_, err := o.Write(bytes.Repeat([]byte("x"), outputDirect))
		huge <- err
	}()
	for o.sendMu.TryLock() { // wait until the huge Write is under way
		o.sendMu.Unlock()
		runtime.Gosched()
	}
	time.Sleep(10 * time.Millisecond) // let it reach the wait for the queue
	close(release)
	assert.EqualError(t, <-huge, "no space left on device")
	assert.EqualError(t, o.Close(), "no space left on device")
	mu.Lock()
	assert.Empty(t, written, "nothing is written after the failure")
	mu.Unlock()
}

// A dialog.Writer hands its entries to an Output without a copy (Take);
// the file must hold the same bytes as a plain buffer gets, each entry
// one write, whatever the writer does with the spare buffers it gets back.
func TestOutputTakeKeepsEveryEntry(t *testing.T) {
	script := func(w *dialog.Writer) {
		for i := range 500 {
			id := strconv.Itoa(i)
			w.ToolStart(dialog.ToolCall{ID: id, Name: "bash", Args: `{"command":"echo ` + id + `"}`})
			w.Message(dialog.Message{Content: dialog.Plain(strings.Repeat("m", i*37%3000))})
			w.ToolEnd(dialog.ToolResult{ID: id, Output: dialog.Plain(strings.Repeat("r", i*101%20000))})
		}
		require.NoError(t, w.Close(dialog.Summary{Status: dialog.StatusSuccess}, nil))
	}
	var plain bytes.Buffer
	script(dialog.NewWriter(&plain, dialog.Options{Clock: testClock}))

	var r recorder
	o := NewOutput(&r)
	script(dialog.NewWriter(o, dialog.Options{Clock: testClock}))
	require.NoError(t, o.Close())
	assert.Equal(t, plain.String(), strings.Join(r.writes, ""))
	assert.Len(t, r.writes, strings.Count(plain.String(), "\n"), "one write per entry")
}
