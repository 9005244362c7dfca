package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"syscall"
)

// gzipMagic starts every gzip stream. No JSON text starts with 0x1f, so
// sniffing it cannot mistake a transcript for a compressed one.
var gzipMagic = []byte{0x1f, 0x8b}

// openFile opens an input file and decompresses it when it holds gzip data,
// whatever its name: saved transcripts are often compressed and renamed.
func openFile(file string) (io.ReadCloser, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &os.PathError{Op: "read", Path: file, Err: syscall.EISDIR}
	}
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(len(gzipMagic)) // a short or failing peek is left to the reader
	if !bytes.Equal(head, gzipMagic) {
		return readCloser{br, f}, nil
	}
	zr, err := gzip.NewReader(br)
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
