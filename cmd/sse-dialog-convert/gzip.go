package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// gzipMagic starts every gzip stream. No JSON text starts with 0x1f, so
// sniffing it cannot mistake a transcript for a compressed one.
var gzipMagic = []byte{0x1f, 0x8b}

// openInput opens an input file and decompresses it when it holds gzip data,
// whatever its name: saved transcripts are often compressed and renamed.
func openInput(file string) (io.ReadCloser, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &os.PathError{Op: "read", Path: file, Err: syscall.EISDIR}
	}
	// The first bytes are read and put back in front, rather than peeked
	// through a buffer: the converter buffers the input anyway.
	head := make([]byte, len(gzipMagic))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		f.Close()
		return nil, err
	}
	r := io.MultiReader(bytes.NewReader(head[:n]), f)
	if !bytes.Equal(head[:n], gzipMagic) {
		return readCloser{r, f}, nil
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return readCloser{zr, f}, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}
