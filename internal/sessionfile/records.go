package sessionfile

// Records is the reading end of a stream that a format builds one record
// at a time (a session merged from its files): Read hands out the record
// in Out, and asks for the next one only once it is all read. So a Read
// never returns bytes of two records: the reader's buffer then holds only
// the record being converted (convert's progress relies on it).
type Records struct {
	// Out is the record being read; next appends the following one to it.
	Out []byte
	off int
	err error
}

// Read copies the rest of Out into p, first calling next (which appends a
// record to Out, or returns the stream's end or error) when Out is read.
func (r *Records) Read(p []byte, next func() error) (int, error) {
	for r.off >= len(r.Out) {
		if r.err != nil {
			return 0, r.err
		}
		r.Out, r.off = r.Out[:0], 0
		r.err = next()
	}
	n := copy(p, r.Out[r.off:])
	r.off += n
	return n, nil
}

// Stop ends the stream: what is left of Out is dropped, and every later
// Read returns err, unless it had ended already (its own end or error
// stays).
func (r *Records) Stop(err error) {
	r.Out, r.off = nil, 0
	if r.err == nil {
		r.err = err
	}
}
