package convert

import (
	"errors"
	"io"
	"sync"
)

// Output writes the dialog on a goroutine of its own: each Write is handed
// over at once and written with one Write to the underlying writer, in
// order, while the converter goes on with the next record. An entry reaches
// the file microseconds after it is made; the write syscall (and the
// kernel's copy of the entry) no longer holds up conversion.
//
// A write error is returned by the next Write and by Close; what was handed
// over after it is dropped. Close must be called to write what is pending.
type Output struct {
	out     io.Writer
	queue   chan []byte
	free    chan []byte
	pending sync.WaitGroup
	done    chan struct{}

	mu  sync.Mutex // guards err
	err error

	sendMu sync.Mutex // orders Write and Close
	closed bool
}

// outputQueue is how many entries may wait to be written.
const outputQueue = 64

// outputKeep is the largest buffer kept for reuse: entries are mostly
// small; a capped tool result is about 16 KiB.
const outputKeep = 64 << 10

// outputDirect is the entry size from which Write waits for the queue to
// drain and writes on the caller's goroutine: a huge entry is not copied,
// and never more than one of them is held.
const outputDirect = 1 << 20

// NewOutput starts writing to out.
func NewOutput(out io.Writer) *Output {
	o := &Output{
		out:   out,
		queue: make(chan []byte, outputQueue),
		free:  make(chan []byte, outputQueue+1),
		done:  make(chan struct{}),
	}
	go o.loop()
	return o
}

// Write hands p over to be written; p may be reused as soon as Write returns.
func (o *Output) Write(p []byte) (int, error) {
	o.sendMu.Lock()
	defer o.sendMu.Unlock()
	if o.closed {
		return 0, errOutputClosed
	}
	if err := o.Err(); err != nil {
		return 0, err
	}
	if len(p) >= outputDirect {
		o.pending.Wait()
		if err := o.Err(); err != nil { // an entry queued before it failed
			return 0, err
		}
		if _, err := o.out.Write(p); err != nil {
			o.fail(err)
			return 0, err
		}
		return len(p), nil
	}
	var buf []byte
	select {
	case buf = <-o.free:
	default:
	}
	o.pending.Add(1)
	o.queue <- append(buf[:0], p...)
	return len(p), nil
}

// Take is Write without the copy: the entry's buffer itself is queued, and
// a spare buffer (possibly nil) is returned for the caller's next entry. A
// dialog.Writer uses it when its output has it.
func (o *Output) Take(entry []byte) ([]byte, error) {
	if len(entry) >= outputDirect {
		_, err := o.Write(entry)
		return entry, err
	}
	o.sendMu.Lock()
	defer o.sendMu.Unlock()
	if o.closed {
		return entry, errOutputClosed
	}
	if err := o.Err(); err != nil {
		return entry, err
	}
	var spare []byte
	select {
	case spare = <-o.free:
	default:
	}
	o.pending.Add(1)
	o.queue <- entry
	return spare, nil
}

func (o *Output) loop() {
	defer close(o.done)
	for buf := range o.queue {
		if o.Err() == nil {
			if _, err := o.out.Write(buf); err != nil {
				o.fail(err)
			}
		}
		if cap(buf) <= outputKeep { // a run of big entries must not pin their buffers
			select {
			case o.free <- buf:
			default:
			}
		}
		o.pending.Done()
	}
}

func (o *Output) fail(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		o.err = err
	}
}

// Err returns the first write error, if any.
func (o *Output) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// Close writes what is pending, stops the goroutine and returns the first
// write error. It does not close the underlying writer.
func (o *Output) Close() error {
	o.sendMu.Lock()
	if !o.closed {
		o.closed = true
		close(o.queue)
	}
	o.sendMu.Unlock()
	<-o.done
	return o.Err()
}

var errOutputClosed = errors.New("write after the dialog's output was closed")
