// Package sessionfile reads the session files coding agents keep on disk
// (Claude Code's projects, Codex's rollouts): opened with transparent
// decompression, told apart by their first records, found in the folders
// that hold them. It knows files, not formats: a format passes its own
// Detect.
package sessionfile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/klauspost/compress/zstd"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
)

// ZstdMagic starts every zstd frame (RFC 8878). No JSON text starts with
// 0x28 0xb5, so sniffing it cannot mistake a transcript for a compressed one.
var ZstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// gzipMagic starts every gzip stream. No JSON text starts with 0x1f, so
// sniffing it cannot mistake a transcript for a compressed one.
var gzipMagic = []byte{0x1f, 0x8b}

// IsZstd reports whether head, the first bytes of a file, starts a zstd
// stream. Four bytes decide; fewer never do.
func IsZstd(head []byte) bool { return bytes.HasPrefix(head, ZstdMagic) }

// NewZstdReader returns the decompressed stream of r, a zstd stream
// (Codex 0.137 on rewrites rollouts idle for 7 days as .jsonl.zst). It
// decodes on the caller's goroutine, block by block: memory is the
// stream's window, whatever the file's size. Close releases the decoder,
// not r.
func NewZstdReader(r io.Reader) (io.ReadCloser, error) {
	d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, err
	}
	return zstdReader{d}, nil
}

type zstdReader struct{ d *zstd.Decoder }

func (z zstdReader) Read(p []byte) (int, error) { return z.d.Read(p) }

func (z zstdReader) Close() error {
	z.d.Close()
	return nil
}

// Open opens a session file, decompressing it when it holds zstd or gzip
// data, whatever its name. Only a regular file is opened: a folder, a FIFO
// (whose opening waits for a writer for ever) or a device (/dev/zero never
// ends) is refused before it is opened, and again after, in case it was
// swapped in between. The stream is an adapter.ReadCounter of its file.
func Open(path string) (io.ReadCloser, error) { return OpenCounted(path, new(Counter)) }

// OpenCounted is Open, the file's reads and size counted in c, which the
// stream's ReadCount reports: a format that merges several files into one
// stream counts them all in one Counter.
func OpenCounted(path string, c *Counter) (io.ReadCloser, error) {
	if err := regular(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = notRegular(path, st.Mode())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	fresh := !c.expected[path]
	if fresh {
		c.size.Add(st.Size())
	}
	r, release, err := Decompressed(countedReader{f, c})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	size := st.Size()
	switch r.(type) {
	case *gzip.Reader, zstdReader:
		size = -1 // decompressed, the stream is larger than the file
	}
	if fresh {
		c.ahead.Add(aheadOf(st.Size(), size < 0))
	}
	return readCloser{r, closers{closeFunc(release), f}, size, f, c}, nil
}

// Counter counts how much of the files of one stream has been read: the
// bytes read from them as stored (before decompression), the sum of their
// sizes, and how much of that their readers may hold ahead. It is the
// stream's adapter.ReadCounter. Its counts may be read from any goroutine;
// files are counted (OpenCounted, RewindCounted, Expect) by the
// stream's reader alone, one at a time.
type Counter struct {
	read, size, ahead atomic.Int64
	// expected are the files Expect counted before they were opened, by
	// path.
	expected map[string]bool
}

// ReadCount is adapter.ReadCounter's.
func (c *Counter) ReadCount() (read, size, ahead int64) {
	return c.read.Load(), c.size.Load(), c.ahead.Load()
}

// Expect counts the size of a file the stream may read later (a Gemini
// chat's subagents, once the chat names their folder), before anything
// is read from it; opening it with OpenCounted then counts its reads
// only. A file that is not a regular one counts nothing (it will not be
// read).
func (c *Counter) Expect(path string) {
	if c.expected[path] {
		return
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return
	}
	if c.expected == nil {
		c.expected = make(map[string]bool)
	}
	c.expected[path] = true
	c.size.Add(st.Size())
	c.ahead.Add(aheadOf(st.Size(), true)) // compressed or not: not known yet
}

// aheadOf is about the most of a file of size bytes that its reader may
// hold ahead: the buffer it is framed with (ReadSize: the file's size, at
// most the default) and, compressed, a decoder's block besides.
func aheadOf(size int64, compressed bool) int64 {
	if compressed {
		return min(size, 2*frame.DefaultReadSize)
	}
	return min(size, frame.DefaultReadSize)
}

// Counted is r, a stream a format merged from the files counted in c,
// with c's ReadCount: an adapter.ReadCounter.
func Counted(r io.ReadCloser, c *Counter) io.ReadCloser { return counted{r, c} }

type counted struct {
	io.ReadCloser
	c *Counter
}

func (r counted) ReadCount() (read, size, ahead int64) { return r.c.ReadCount() }

// countedReader is a file whose reads are counted.
type countedReader struct {
	r io.Reader
	c *Counter
}

func (cr countedReader) Read(p []byte) (int, error) {
	n, err := cr.r.Read(p)
	cr.c.read.Add(int64(n))
	return n, err
}

// ErrNotRegular is why Open and ReadSmall refuse a path that is neither a
// regular file nor a folder (a FIFO, a device, a socket).
var ErrNotRegular = errors.New("not a regular file")

// regular returns nil when path is a regular file (a symlink is followed),
// else why not, as an *os.PathError.
func regular(path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return notRegular(path, st.Mode())
	}
	return nil
}

func notRegular(path string, mode fs.FileMode) error {
	if mode.IsDir() {
		return &os.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	return &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
}

// ReadSize is a read buffer size (frame.Options.ReadSize) that fits what
// Open returned: the file's size plus one for a small plain file, so that
// a folder of small sessions does not allocate the default buffer per
// read of each; 0 (the default) when the size is unknown or compressed.
func ReadSize(r io.Reader) int {
	rc, ok := r.(readCloser)
	if !ok || rc.size < 0 {
		return 0
	}
	return int(min(max(rc.size+1, 4<<10), frame.DefaultReadSize))
}

// ReadSmall reads a small regular file whole (a subagent's .meta.json): no
// more than limit bytes, an error past that.
func ReadSmall(path string, limit int64) ([]byte, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return b, err
}

// Compressed reports whether head, a file's first bytes, starts a gzip or
// a zstd stream, and which ("" for neither).
func Compressed(head []byte) string {
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		return "gzip"
	case IsZstd(head):
		return "zstd"
	}
	return ""
}

// Decompressed returns r, decompressed when it holds gzip or zstd data,
// whatever the file is called (saved transcripts are often compressed and
// renamed), standard input too. The first bytes are read and put back in
// front, rather than peeked through a buffer: the converter buffers the
// input anyway. Two bytes decide, unless they start zstd's magic: plain
// JSON never makes it wait for more than two (a terminal's input would).
// release frees a decoder; it does not close r.
func Decompressed(r io.Reader) (_ io.Reader, release func(), _ error) {
	none := func() {}
	head := make([]byte, len(ZstdMagic))
	n, err := io.ReadFull(r, head[:len(gzipMagic)])
	if err == nil && bytes.Equal(head[:n], ZstdMagic[:n]) {
		var m int
		m, err = io.ReadFull(r, head[n:])
		n += m
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		// The input ended already; it is not read again (a terminal's
		// end of input, Ctrl-D, is not sticky: the next read would wait).
		return bytes.NewReader(head[:n]), none, nil
	case err != nil:
		return nil, none, err
	}
	r = io.MultiReader(bytes.NewReader(head[:n]), r)
	switch Compressed(head[:n]) {
	case "gzip":
		zr, err := gzip.NewReader(r)
		return zr, none, err
	case "zstd":
		zr, err := NewZstdReader(r)
		if err != nil {
			return nil, none, err
		}
		return zr, func() { zr.Close() }, nil
	}
	return r, none, nil
}

// closeFunc is a release function as an io.Closer.
type closeFunc func()

func (c closeFunc) Close() error {
	c()
	return nil
}

type readCloser struct {
	io.Reader
	io.Closer
	size  int64    // the plain file's size; -1: compressed
	file  *os.File // the file opened
	count *Counter
}

func (r readCloser) ReadCount() (read, size, ahead int64) { return r.count.ReadCount() }

// Rewind returns the stream r, which Open returned, read again from its
// start: the same open file, sought back and decompressed anew. r is
// closed (it is closed too when Rewind fails); the stream returned owns
// the file. A format that reads a file twice (a session's two passes)
// opens it once. The stream returned counts its reads afresh.
func Rewind(r io.ReadCloser) (io.ReadCloser, error) { return RewindCounted(r, new(Counter)) }

// RewindCounted is Rewind, the file's reads and size from its start
// counted in c (a format counts its second pass, the one it converts).
func RewindCounted(r io.ReadCloser, c *Counter) (io.ReadCloser, error) {
	rc, ok := r.(readCloser)
	if !ok {
		r.Close()
		return nil, errors.New("sessionfile: Rewind of a stream Open did not return")
	}
	release := rc.Closer.(closers)[0]
	release.Close()
	f := rc.file
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	st, err := f.Stat()
	fresh := err == nil && !c.expected[f.Name()]
	if fresh {
		c.size.Add(st.Size())
	}
	dr, rel, err := Decompressed(countedReader{f, c})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reading %s: %w", f.Name(), err)
	}
	if fresh {
		c.ahead.Add(aheadOf(st.Size(), rc.size < 0))
	}
	return readCloser{dr, closers{closeFunc(rel), f}, rc.size, f, c}, nil
}

// closers closes each in turn and returns the first error.
type closers []io.Closer

func (cs closers) Close() error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// sniffBytes and sniffRecords bound how much of a file Claims reads: the
// first records of a session file are short (a session's metadata, a
// queue operation, the first prompt).
const (
	sniffBytes   = 1 << 20
	sniffRecords = 64
)

// Claims reports whether detect claims one of the first records of the
// file as surely its own (adapter.Yes). Formats' detections are exclusive,
// so that is enough to tell session files apart. A file that cannot be
// read is an error; one that is not JSON Lines is simply not claimed.
func Claims(path string, detect func(adapter.Event) adapter.Claim) (bool, error) {
	r, err := Open(path)
	if err != nil {
		return false, err
	}
	defer r.Close()
	return claimsReader(io.LimitReader(r, sniffBytes), detect, min(ReadSize(r), sniffBytes)), nil
}

// ClaimsReader is Claims on a stream.
func ClaimsReader(r io.Reader, detect func(adapter.Event) adapter.Claim) bool {
	return claimsReader(r, detect, 0)
}

func claimsReader(r io.Reader, detect func(adapter.Event) adapter.Claim, readSize int) bool {
	rs := dispatch.NewRecords(r, frame.Options{ReadSize: readSize})
	for range sniffRecords {
		rec, err := rs.Next()
		if err != nil {
			return false
		}
		for e := rec.Events(); e.Next(); {
			if e.Problem == "" && detect(e.Event) == adapter.Yes {
				return true
			}
		}
	}
	return false
}

// IsJSONL reports whether a file name is that of a JSON Lines file, plain
// or compressed as agents and their users store them.
func IsJSONL(name string) bool {
	for _, ext := range []string{".jsonl", ".jsonl.zst", ".jsonl.gz"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// Stem is a session file's name without its folder and its .jsonl,
// .jsonl.zst or .jsonl.gz.
func Stem(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".jsonl.zst", ".jsonl.gz", ".jsonl"} {
		if s, ok := strings.CutSuffix(base, ext); ok {
			return s
		}
	}
	return base
}

// Entry is a file Find found. Err, when set, says why it could not be
// read (a dangling symlink, a symlink loop, a FIFO, a file or folder it
// may not read): the walk went on without it, and the caller reports it.
type Entry struct {
	Path string
	Err  error
}

// Find walks the folder root and returns, in lexical order, the JSON Lines
// files keep accepts, and those it could not ask keep about. Folders skip
// names are not entered. One bad entry never ends the walk: it is returned
// with its error (an unreadable folder, as one entry). err is for the
// root only.
func Find(root string, skip func(dir string) bool, keep func(path string) (bool, error)) ([]Entry, error) {
	return FindNamed(root, skip, IsJSONL, keep)
}

// FindNamed is Find for the files whose names named accepts (a format
// whose files are not all JSON Lines).
func FindNamed(root string, skip func(dir string) bool, named func(name string) bool, keep func(path string) (bool, error)) ([]Entry, error) {
	var found []Entry
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			found = append(found, Entry{Path: path, Err: err})
			return nil // a folder that cannot be read is skipped, the walk goes on
		}
		if d.IsDir() {
			if path != root && skip != nil && skip(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !named(d.Name()) {
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			found = append(found, Entry{Path: path, Err: notRegular(path, d.Type())})
			return nil
		}
		ok, err := keep(path)
		switch {
		case err != nil:
			found = append(found, Entry{Path: path, Err: err})
		case ok:
			found = append(found, Entry{Path: path})
		}
		return nil
	})
	return found, err
}

// Inputs makes one input per entry Find returned: input makes a good
// entry's; a bad entry's input returns its error when opened, so
// that it is reported and counted as one failed input while the others
// convert. ok says that some entry is good: a folder of only bad entries
// is not claimed, and the first bad entry's error is returned, for the
// caller to tell when no other format claims the folder either.
func Inputs(entries []Entry, input func(path string) adapter.Input) (inputs []adapter.Input, ok bool, err error) {
	for _, e := range entries {
		if e.Err != nil {
			if err == nil {
				err = e.Err
			}
			inputs = append(inputs, adapter.Input{Name: e.Path, Open: func() (io.ReadCloser, error) { return nil, e.Err }})
			continue
		}
		ok = true
		inputs = append(inputs, input(e.Path))
	}
	if !ok {
		return nil, false, err
	}
	return inputs, true, nil
}
