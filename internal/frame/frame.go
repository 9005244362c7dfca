// Package frame cuts an input stream into records: normally one line each,
// or the lines of one pretty-printed object (as jq prints them), or the
// payload of a Server-Sent Events `data:` line. It accepts CRLF, a BOM at
// the start of any line, blank lines and a missing final newline, and has
// no line length limit but memory.
package frame

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"unicode/utf8"

	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// maxJoinLines bounds how many lines a pretty-printed object may span before
// the reader gives up on it and reports it as one bad record.
const maxJoinLines = 100000

// bigBuf is the size from which the line buffer grows by doubling, with the
// buffer it replaces handed back to the heap at once (see grow).
const bigBuf = 8 << 20

// DefaultMaxLine is the longest record held in memory (Options.MaxLine).
const DefaultMaxLine = 256 << 20

// DefaultReadSize is the size of the reader's buffer (Options.ReadSize):
// the most read at once, and the most of a line read before it is known to
// be unfit to hold.
const DefaultReadSize = 256 << 10

// previewBytes is how much of a skipped record is kept for its report.
const previewBytes = 64

// Options configure a Reader.
type Options struct {
	// MaxLine bounds a record's bytes, line endings aside: a longer record
	// is read on to its end without being held, and comes back with a
	// Problem. 0 means DefaultMaxLine, < 0 no bound but memory.
	MaxLine int64
	// ReadSize is the size of the read buffer; 0 means DefaultReadSize.
	// A small input needs no more than its size: a batch of small files
	// need not allocate a buffer of the default size for each.
	ReadSize int
}

// Record is one unit of input.
type Record struct {
	// Data is the record without line ending, BOM, surrounding white space
	// or SSE field name; valid until the next call of Next.
	Data []byte
	// Raw is the bytes as read, line endings and BOM included (for --tee).
	Raw []byte
	// Line is the record's first line, 1-based.
	Line int
	// Meta marks a line of Server-Sent Events framing that holds no event
	// (event:, id:, retry:, a comment): not a record to convert, nor a bad one.
	Meta bool
	// Problem is set when the record was skipped while it was read, without
	// being held: too long, or not JSON from its first byte on a line longer
	// than one read. Data then holds only its start, for the report, and Raw
	// is nil.
	Problem string
}

// Reader frames input into records. A line is gathered in a buffer reused
// from line to line, so memory follows the longest line.
type Reader struct {
	br   *bufio.Reader
	line int    // lines read so far
	buf  []byte // the current record's raw bytes, then the line read ahead, if any
	// A pretty-printed object ("{" alone at column 0, as jq prints) is joined
	// line by line until its brackets balance. A line that cannot continue
	// it ends the join early; it stays in buf[ahead:] and comes next.
	ahead   int
	aheadNo int
	opt     Options
	problem string // why the record being read was skipped, if it was
	huge    bool   // a huge line's buffer was dropped (Reset)
}

// NewReader returns a Reader of r. r is read only when the Reader has no
// whole record buffered: a caller may act on that moment by wrapping r
// (the converter writes out what it made before it waits for input).
func NewReader(r io.Reader, opt Options) *Reader {
	opt = opt.defaults()
	return &Reader{br: bufio.NewReaderSize(r, opt.ReadSize), opt: opt}
}

func (opt Options) defaults() Options {
	switch {
	case opt.MaxLine == 0:
		opt.MaxLine = DefaultMaxLine
	case opt.MaxLine >= math.MaxInt/2:
		// No buffer can reach it; as a bound, MaxLine+2 would overflow.
		opt.MaxLine = -1
	}
	if opt.ReadSize <= 0 {
		opt.ReadSize = DefaultReadSize
	}
	return opt
}

// keepBuf is the most line buffer Reset keeps for the next input.
const keepBuf = 1 << 20

// Reset makes rr a Reader of r, as NewReader(r, opt) would make, with the
// memory rr has: its line buffer, and its read buffer when that is opt's
// size (that size decides how much of a line is read before it is known
// to be unfit to hold: it must be the same). It is for inputs read one
// after another (a batch's files, each a few KB). It reports false, and
// leaves rr as it is, when rr held a line longer than keepBuf: memory a
// rare long line took is not kept for the rest of a batch.
func (rr *Reader) Reset(r io.Reader, opt Options) bool {
	if cap(rr.buf) > keepBuf || rr.huge {
		return false
	}
	opt = opt.defaults()
	br := rr.br
	if br.Size() == opt.ReadSize {
		br.Reset(r)
	} else {
		br = bufio.NewReaderSize(r, opt.ReadSize)
	}
	*rr = Reader{br: br, buf: rr.buf[:0], opt: opt}
	return true
}

// Lines returns how many lines were read so far.
func (rr *Reader) Lines() int { return rr.line }

// readLine appends the next raw line (ending included) to buf; chunk and
// err are its first ReadSlice's result when the caller made it already
// (else chunk is nil and err io.EOF's absence says nothing: it reads). When
// the record would grow past MaxLine, or the line goes on past one read and
// cannot be JSON from its first byte, it reads on to the line's end without
// keeping it and sets rr.problem instead.
func (rr *Reader) readLine(chunk []byte, err error) error {
	start := len(rr.buf)
	read := chunk != nil || err != nil
	for {
		if !read {
			chunk, err = rr.br.ReadSlice('\n')
		}
		read = false
		more := errors.Is(err, bufio.ErrBufferFull)
		if rr.opt.MaxLine >= 0 && int64(len(rr.buf)+len(chunk)) > rr.opt.MaxLine+2 {
			// Too long even without a CRLF ending: stop holding it now.
			return rr.skipLine(chunk, more, err, rr.tooLong())
		}
		rr.grow(len(chunk))
		rr.buf = append(rr.buf, chunk...)
		if more {
			if start == 0 && len(rr.buf) == len(chunk) && cannotStartJSON(rr.buf) {
				return rr.skipLine(nil, more, err, "skipped: not valid JSON"+Preview(bytes.TrimSpace(trimBOM(rr.buf))))
			}
			continue
		}
		if rr.opt.MaxLine >= 0 && int64(len(bytes.TrimRight(rr.buf, "\r\n"))) > rr.opt.MaxLine {
			return rr.skipLine(nil, false, err, rr.tooLong())
		}
		if len(rr.buf) > start {
			rr.line++
		}
		return err
	}
}

func (rr *Reader) tooLong() string {
	return fmt.Sprintf("skipped: longer than the line limit of %d bytes (--max-line)", rr.opt.MaxLine)
}

// skipLine ends a record that is not to be held: the rest of the current
// line is read and dropped, and buf keeps only the record's first bytes,
// for the report. more says the line goes on past chunk; err is the last
// read's result, and what is returned once the line's end is read.
func (rr *Reader) skipLine(chunk []byte, more bool, err error, problem string) error {
	head := rr.buf[:min(len(rr.buf), previewBytes)]
	if n := previewBytes - len(head); n > 0 {
		head = append(head, chunk[:min(len(chunk), n)]...)
	}
	rr.buf = head
	for more {
		_, err = rr.br.ReadSlice('\n')
		more = errors.Is(err, bufio.ErrBufferFull)
	}
	rr.line++
	rr.problem = problem
	return err
}

// cannotStartJSON reports whether a record's first byte, past a BOM and
// white space, cannot start a JSON text (stderr noise, ANSI codes, binary
// data). Only white space so far cannot tell. A line of Server-Sent Events
// is judged by its data (a `data:` line longer than the read buffer is an
// event, not noise).
func cannotStartJSON(b []byte) bool {
	b = bytes.TrimLeft(trimBOM(b), " \t\r\n")
	if rest, ok := bytes.CutPrefix(b, []byte("data:")); ok {
		b = bytes.TrimLeft(rest, " \t\r\n")
	}
	if len(b) == 0 {
		return false
	}
	switch c := b[0]; {
	case c == '{', c == '[', c == '"', c == '-', c >= '0' && c <= '9', c == 't', c == 'f', c == 'n':
		return false
	}
	return true
}

// grow makes room for n more bytes in buf. Below bigBuf, append's own growth
// does. Past it the buffer doubles, and the buffer it replaces is handed
// back to the system at once rather than at the pacer's next cycle, so old
// and new are both resident only while one is copied into the other. Near
// the line limit the last two steps are to half the limit and to the limit:
// the old buffer is then at most half the limit when copied, and a line
// that runs into the 256 MiB limit peaks near 256 MiB, not at 1.2 times it.
// It runs a few times per very long line, never for ordinary ones.
func (rr *Reader) grow(n int) {
	need := len(rr.buf) + n
	if need <= cap(rr.buf) || need < bigBuf {
		return
	}
	size := max(2*cap(rr.buf), need)
	limit := int(rr.opt.MaxLine) + 2 // the most a record held can take
	if rr.opt.MaxLine >= 0 && size > limit/2 {
		size = limit
		if need <= limit/2 {
			size = limit / 2
		}
	}
	grown := make([]byte, len(rr.buf), size)
	copy(grown, rr.buf)
	rr.buf = grown
	debug.FreeOSMemory()
}

// Next returns the next record. At the end of input it returns io.EOF with
// no record; a read error is returned as it is.
func (rr *Reader) Next() (Record, error) {
	if rr.ahead == 0 && cap(rr.buf) <= bigBuf {
		chunk, err := rr.br.ReadSlice('\n')
		if compactLine(chunk, err, rr.opt.MaxLine) {
			rr.line++
			return Record{Data: chunk[:len(chunk)-1], Raw: chunk, Line: rr.line}, nil
		}
		return rr.next(chunk, err, true)
	}
	return rr.next(nil, nil, false)
}

// compactLine reports whether a line as ReadSlice gave it (chunk, err) is
// a compact object alone on its line, "{…}\n", within the line limit: most
// lines. Its record is the line without its newline, as whole would make
// it, without whole's trims and checks (a BOM, white space, SSE fields, a
// pretty-printed start).
func compactLine(chunk []byte, err error, maxLine int64) bool {
	n := len(chunk)
	return err == nil && n >= 2 && chunk[0] == '{' && chunk[n-2] == '}' && chunk[n-1] == '\n' &&
		(maxLine < 0 || int64(n-1) <= maxLine)
}

// next is Next for any record; read says the line's first ReadSlice was
// made already and gave chunk and first.
func (rr *Reader) next(chunk []byte, first error, read bool) (Record, error) {
	var rec Record
	var err error
	rr.problem = ""
	if rr.ahead > 0 {
		n := copy(rr.buf, rr.buf[rr.ahead:])
		rr.buf = rr.buf[:n]
		rr.ahead = 0
		rec.Line = rr.aheadNo
	} else {
		if cap(rr.buf) > bigBuf {
			rr.buf = nil // after a huge line, do not keep its memory for the rest of the run
			rr.huge = true
		}
		if !read {
			chunk, first = rr.br.ReadSlice('\n')
		}
		if rec, ok := rr.whole(chunk, first); ok {
			if len(chunk) == 0 {
				return rec, io.EOF
			}
			return rec, nil
		}
		rr.buf = rr.buf[:0]
		err = rr.readLine(chunk, first)
		if len(rr.buf) == 0 {
			if err == nil {
				err = io.EOF
			}
			return rec, err
		}
		rec.Line = rr.line
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return Record{}, err
	}
	if rr.skipped(&rec) {
		return rec, nil
	}
	cur := trimBOM(rr.buf)
	data := bytes.TrimSpace(cur)
	if err == nil && isPrettyStart(cur, data) {
		if err := rr.join(jsonraw.DepthChange(data)); err != nil && !errors.Is(err, io.EOF) {
			return Record{}, err
		}
		if rr.skipped(&rec) {
			return rec, nil
		}
		end := len(rr.buf)
		if rr.ahead > 0 {
			end = rr.ahead
		}
		rec.Raw = rr.buf[:end]
		rec.Data = bytes.TrimSpace(trimBOM(rec.Raw))
		return rec, nil
	}
	rec.Raw, rec.Data = rr.buf, data
	rec.Data, rec.Meta = sse(rec.Data)
	return rec, nil
}

// whole returns the record of a line that stands whole in the reader's
// buffer, as ReadSlice gave it (chunk, err), without copying it: most lines.
// ok is false when the line needs the record buffer: it goes on past the
// reader's buffer, it is over the line limit, or it may open a
// pretty-printed object. At the end of input it returns io.EOF's record
// (none) with ok; a read error is left to the slow path.
func (rr *Reader) whole(chunk []byte, err error) (rec Record, ok bool) {
	if err != nil && !errors.Is(err, io.EOF) {
		return rec, false
	}
	if len(chunk) == 0 {
		return rec, errors.Is(err, io.EOF)
	}
	if rr.opt.MaxLine >= 0 && int64(len(chunk)) > rr.opt.MaxLine && int64(len(bytes.TrimRight(chunk, "\r\n"))) > rr.opt.MaxLine {
		return rec, false // (the length first: TrimRight only for a line past the limit)
	}
	cur := trimBOM(chunk)
	data := trimLine(cur)
	if err == nil && isPrettyStart(cur, data) {
		return rec, false
	}
	rr.line++
	rec.Line, rec.Raw = rr.line, chunk
	rec.Data, rec.Meta = sse(data)
	return rec, true
}

// skipped fills in rec when the record was skipped while it was read.
func (rr *Reader) skipped(rec *Record) bool {
	if rr.problem == "" {
		return false
	}
	rec.Problem = rr.problem
	rec.Data = bytes.TrimSpace(trimBOM(rr.buf))
	return true
}

// trimLine is bytes.TrimSpace(b), sooner for a line whose first and last
// characters are printable ASCII and whose end is "\n" (most lines), which
// has no space to trim but the newline.
func trimLine(b []byte) []byte {
	if n := len(b); n >= 2 && b[n-1] == '\n' && printableASCII(b[0]) && printableASCII(b[n-2]) {
		return b[:n-1]
	}
	return bytes.TrimSpace(b)
}

// printableASCII reports whether c is an ASCII character that is not white
// space, in the sense of bytes.TrimSpace too.
func printableASCII(c byte) bool { return c > ' ' && c < utf8.RuneSelf }

// Preview is the start of a record, quoted, for a report of a skipped one.
func Preview(b []byte) string {
	const n = 40
	if len(b) > n {
		b = b[:n]
	}
	return fmt.Sprintf(" (%q…)", string(b))
}

// sse unwraps a line of Server-Sent Events framing (opencode serve's event
// bus, recorded with curl -N): "data: {…}" is its payload; "event:",
// "id:", "retry:" and comments (":" first) carry no event.
func sse(data []byte) (payload []byte, meta bool) {
	if len(data) == 0 || data[0] == '{' || data[0] == '[' {
		return data, false
	}
	if rest, ok := bytes.CutPrefix(data, []byte("data:")); ok {
		return bytes.TrimSpace(rest), false
	}
	if data[0] == ':' {
		return data, true
	}
	for _, field := range []string{"event:", "id:", "retry:"} {
		if bytes.HasPrefix(data, []byte(field)) {
			return data, true
		}
	}
	return data, false
}

// trimBOM drops a UTF-8 byte order mark at the start of a line: the first
// line of a file written by some Windows tools, and any line where such files
// were concatenated.
func trimBOM(b []byte) []byte {
	return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
}

// isPrettyStart reports whether a line may open a multi-line object: it
// starts at column 0 with "{" or "[" and does not end with a closing
// bracket, as every compact event does. It looks at two bytes, not the
// whole line: join counts the brackets of the lines it gathers.
func isPrettyStart(raw, data []byte) bool {
	if len(data) == 0 || (raw[0] != '{' && raw[0] != '[') {
		return false
	}
	last := data[len(data)-1]
	return last != '}' && last != ']'
}

// join gathers the lines of a pretty-printed object whose first line, with
// nesting depth d, is in buf. It stops when the brackets balance, at the
// end of input, or at a line that cannot continue the object (see
// continues), which is left in buf[ahead:]. What it gathered is one record,
// bad if the object is unfinished.
func (rr *Reader) join(d int) error {
	for n := 1; d > 0 && n < maxJoinLines; n++ {
		start := len(rr.buf)
		err := rr.readLine(nil, nil)
		if rr.problem != "" {
			return err // the record was too long to hold
		}
		line := rr.buf[start:]
		if len(line) > 0 && !continues(line) {
			rr.ahead, rr.aheadNo = start, rr.line
			return err
		}
		d += jsonraw.DepthChange(line)
		if err != nil {
			return err
		}
	}
	return nil
}

// continues reports whether a line can be part of a pretty-printed object:
// indented, a closing bracket, or blank. Anything else at column 0 (the next
// compact event, stderr text, ANSI codes) is not, so a cut line followed by
// more input swallows nothing but itself, and joined records cost no more
// memory than the lines of one printed object.
func continues(line []byte) bool {
	switch line[0] {
	case ' ', '\t', '\r', '\n', '}', ']':
		return true
	}
	return false
}
