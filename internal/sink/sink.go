// Package sink is where a dialog's entries go on their way to the file: it
// gathers whole entries and writes them out together when the converter is
// about to wait for more input (Flush), when enough are pending, and at the
// end — one write call for many entries, yet every entry is in the file
// before the converter waits for the next line.
package sink

import "io"

// DefaultSize is how many bytes of entries may wait before they are
// written without a Flush.
const DefaultSize = 64 << 10

// Sink is an io.Writer whose every Write is one whole entry; or the entry
// is built in place, at the end of the pending ones (Pending, Commit),
// which saves copying it. Entries are never split between writes to the
// underlying writer; an entry larger than the buffer is written on its
// own, with one write (or, built in place, with those pending). It is not
// safe for concurrent use: its user (the converter) calls it under its
// own lock.
type Sink struct {
	out  io.Writer
	buf  []byte
	size int
	err  error
}

// New returns a Sink that writes to out, buffering up to size bytes
// (DefaultSize when size <= 0).
func New(out io.Writer, size int) *Sink {
	if size <= 0 {
		size = DefaultSize
	}
	return &Sink{out: out, size: size}
}

// NewBuffer is New, with buf's memory for the entries pending (what
// another Sink's Release gave): dialogs written one after another (a
// batch's files) need not each grow a buffer of their own.
func NewBuffer(out io.Writer, size int, buf []byte) *Sink {
	s := New(out, size)
	s.buf = buf[:0]
	return s
}

// Release hands over the memory of s's buffer, for NewBuffer, once
// nothing is pending; s goes on with a buffer of its own. It returns nil
// when entries are pending, and when the buffer grew past twice size (an
// entry larger than size, built in place): that memory is not kept.
func (s *Sink) Release() []byte {
	if len(s.buf) > 0 || cap(s.buf) > 2*s.size {
		return nil
	}
	buf := s.buf
	s.buf = nil
	return buf
}

// Write takes one whole entry. It returns the error of an earlier write
// that failed: what is taken after a failure is dropped.
func (s *Sink) Write(entry []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if len(s.buf)+len(entry) > s.size {
		if s.flush(); s.err != nil {
			return 0, s.err
		}
		if len(entry) >= s.size {
			if _, err := s.out.Write(entry); err != nil {
				s.err = err
				return 0, err
			}
			return len(entry), nil
		}
	}
	// The buffer grows to what is pending, up to size: a small dialog
	// (one of a batch of thousands) takes no more memory than it needs.
	s.buf = append(s.buf, entry...)
	return len(entry), nil
}

// Pending returns the entries waiting to be written, for the caller to
// build the next entry at their end instead of handing it to Write.
func (s *Sink) Pending() []byte { return s.buf }

// Commit takes entries, what Pending returned with one whole entry
// appended, and writes them all, with one write, once size bytes or more
// are pending. Like Write, it returns the error of an earlier write that
// failed: what is taken after a failure is dropped.
func (s *Sink) Commit(entries []byte) error {
	if s.err != nil {
		return s.err
	}
	s.buf = entries
	if len(s.buf) >= s.size {
		s.flush()
	}
	return s.err
}

// Flush writes what is pending, with one write, and returns the first
// write error.
func (s *Sink) Flush() error {
	s.flush()
	return s.err
}

func (s *Sink) flush() {
	if len(s.buf) == 0 || s.err != nil {
		return
	}
	_, s.err = s.out.Write(s.buf)
	s.buf = s.buf[:0]
}

// Err returns the first write error, if any.
func (s *Sink) Err() error {
	return s.err
}
