package inputs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
)

// Input is one stream a job reads: a FILE, standard input, or one of the
// dialogs a session file or folder holds (adapter.Input).
type Input struct {
	Name  string // in messages: its path, or "standard input"
	Label string // in diagnostics (label:line): its path, or "<stdin>"
	// open opens it; nil when r is open already (standard input, a
	// reader handed over).
	open func() (io.ReadCloser, error)
	// openLimited, when set, is open honouring --max-line (a session
	// file's own reading of its lines).
	openLimited func(maxLine int64) (io.ReadCloser, error)
	R           io.Reader
	c           io.Closer
	// stream: compressed data is sniffed and read as such (a format's
	// Inputs open their files themselves).
	Stream bool
	Stdin  bool        // it is standard input
	Info   os.FileInfo // what it is, for the same-file check; nil: unknown
}

func StdinInput(stdin io.Reader) *Input {
	return &Input{Name: "standard input", Label: "<stdin>", R: stdin, Stream: true, Stdin: true, Info: StdinFile(stdin).Info}
}

// FileInput is a FILE read as a stream.
func FileInput(path string) *Input {
	in := &Input{Name: path, Label: cli.QuoteName(path), Stream: true}
	in.open = func() (io.ReadCloser, error) {
		f, err := OpenFile(path)
		if err == nil {
			in.Info, _ = f.Stat()
		}
		return f, err
	}
	return in
}

// SessionInput is one dialog a format's Inputs found.
func SessionInput(si adapter.Input) *Input {
	in := &Input{Name: si.Name, Label: cli.QuoteName(si.Name), open: si.Open}
	in.Info, _ = os.Stat(si.Name)
	in.openLimited = si.OpenLimited
	return in
}

// ReaderInput is a stream handed over open (view's conversion in memory).
func ReaderInput(r io.Reader, name string) *Input {
	return &Input{Name: name, Label: cli.QuoteName(name), R: r, Stream: true}
}

func (in *Input) File() NamedFile {
	if in.Stdin {
		return NamedFile{What: "standard input", Info: in.Info}
	}
	return NamedFile{What: "the input", Path: in.Name, Info: in.Info}
}

// Open opens the input, if it is not open yet; maxLine is --max-line
// (dispatch.Options.MaxLine).
func (in *Input) Open(maxLine int64) error {
	if in.R != nil || in.open == nil {
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
			err = fmt.Errorf("reading %s: %w", in.Name, err)
		}
		return err
	}
	in.R, in.c = rc, rc
	return nil
}

// Close closes what Open opened, and lets go of it: a batch keeps every
// input listed until it ends.
func (in *Input) Close() {
	if in.c != nil {
		in.c.Close()
		in.c, in.R = nil, nil
	}
}

// OpenFile opens an input file: not a folder.
func OpenFile(file string) (*os.File, error) {
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
