package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
)

// input is one stream a job reads: a FILE, standard input, or one of the
// dialogs a session file or folder holds (adapter.Input).
type input struct {
	name  string // in messages: its path, or "standard input"
	label string // in diagnostics (label:line): its path, or "<stdin>"
	// open opens it; nil when r is open already (standard input, a
	// reader handed over).
	open func() (io.ReadCloser, error)
	// openLimited, when set, is open honouring --max-line (a session
	// file's own reading of its lines).
	openLimited func(maxLine int64) (io.ReadCloser, error)
	r           io.Reader
	c           io.Closer
	// stream: compressed data is sniffed and read as such (a format's
	// Inputs open their files themselves).
	stream bool
	stdin  bool        // it is standard input
	info   os.FileInfo // what it is, for the same-file check; nil: unknown
}

func stdinInput(stdin io.Reader) *input {
	return &input{name: "standard input", label: "<stdin>", r: stdin, stream: true, stdin: true, info: stdinFile(stdin).info}
}

// fileInput is a FILE read as a stream.
func fileInput(path string) *input {
	in := &input{name: path, label: cli.QuoteName(path), stream: true}
	in.open = func() (io.ReadCloser, error) {
		f, err := openInput(path)
		if err == nil {
			in.info, _ = f.Stat()
		}
		return f, err
	}
	return in
}

// sessionInput is one dialog a format's Inputs found.
func sessionInput(si adapter.Input) *input {
	in := &input{name: si.Name, label: cli.QuoteName(si.Name), open: si.Open}
	in.info, _ = os.Stat(si.Name)
	in.openLimited = si.OpenLimited
	return in
}

// readerInput is a stream handed over open (view's conversion in memory).
func readerInput(r io.Reader, name string) *input {
	return &input{name: name, label: cli.QuoteName(name), r: r, stream: true}
}

func (in *input) file() namedFile {
	if in.stdin {
		return namedFile{what: "standard input", info: in.info}
	}
	return namedFile{what: "the input", path: in.name, info: in.info}
}

// openIt opens the input, if it is not open yet; maxLine is --max-line
// (dispatch.Options.MaxLine).
func (in *input) openIt(maxLine int64) error {
	if in.r != nil || in.open == nil {
		return nil
	}
	open := in.open
	if in.openLimited != nil {
		open = func() (io.ReadCloser, error) { return in.openLimited(maxLine) }
	}
	rc, err := open()
	if err != nil {
		var pe *os.PathError
		if !errors.As(err, &pe) {
			err = fmt.Errorf("reading %s: %w", in.name, err)
		}
		return err
	}
	in.r, in.c = rc, rc
	return nil
}

// close closes what openIt opened, and lets go of it: a batch keeps every
// input listed until it ends.
func (in *input) close() {
	if in.c != nil {
		in.c.Close()
		in.c, in.r = nil, nil
	}
}

// openInput opens an input file: not a folder.
func openInput(file string) (*os.File, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &os.PathError{Op: "read", Path: file, Err: syscall.EISDIR}
	}
	return f, nil
}
