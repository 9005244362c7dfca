package convert

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxJoinLines bounds how many lines a pretty-printed object may span before
// the reader gives up on it and reports it as one bad record.
const maxJoinLines = 100000

// record is one unit of input: normally one line, or the lines of one
// pretty-printed object.
type record struct {
	data []byte // without line ending or surrounding white space; valid until the next call
	raw  []byte // the bytes as read, line endings included (for --tee)
	line int    // first line of the record, 1-based
}

// recordReader frames input into records. It has no line length limit but
// memory: a line is gathered in a buffer reused from line to line.
type recordReader struct {
	br    *bufio.Reader
	line  int
	acc   []byte // the current record's raw bytes
	first bool
	// A pretty-printed object ("{" alone at column 0, as jq prints) is joined
	// line by line until its brackets balance.
	pendingLine []byte // a line read ahead while joining, to be returned next
	pendingNo   int
}

func newRecordReader(r io.Reader) *recordReader {
	return &recordReader{br: bufio.NewReaderSize(r, 256<<10), first: true}
}

// readLine returns the next raw line (ending included) in a reused buffer.
func (rr *recordReader) readLine(dst []byte) ([]byte, error) {
	for {
		chunk, err := rr.br.ReadSlice('\n')
		dst = append(dst, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == nil {
			rr.line++
			return dst, nil
		}
		if len(chunk) > 0 || len(dst) > 0 {
			rr.line++
		}
		return dst, err
	}
}

// next returns the next record. At the end of input it returns io.EOF with
// no record; a read error is returned as it is.
func (rr *recordReader) next(rec *record) error {
	var line []byte
	var lineNo int
	var err error
	if rr.pendingLine != nil {
		line, lineNo = rr.pendingLine, rr.pendingNo
		rr.pendingLine = nil
		rr.acc = append(rr.acc[:0], line...)
	} else {
		rr.acc, err = rr.readLine(rr.acc[:0])
		if len(rr.acc) == 0 {
			if err == nil {
				err = io.EOF
			}
			return err
		}
		lineNo = rr.line
	}
	if rr.first {
		rr.first = false
		rr.acc = bytes.TrimPrefix(rr.acc, []byte("\xef\xbb\xbf"))
	}
	rec.line = lineNo
	data := bytes.TrimSpace(rr.acc)
	if isPrettyStart(rr.acc, data) && err == nil {
		return rr.join(rec)
	}
	rec.raw, rec.data = rr.acc, data
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// isPrettyStart reports whether a line opens a multi-line object: "{" or
// "[" alone, or an object left open, starting at column 0.
func isPrettyStart(raw, data []byte) bool {
	if len(data) == 0 || (raw[0] != '{' && raw[0] != '[') {
		return false
	}
	return depth(data) > 0
}

// join gathers the lines of a pretty-printed object. A line that starts a
// new top-level value at column 0 ends the join early: the gathered part is
// returned as a bad record and the new line comes next.
func (rr *recordReader) join(rec *record) error {
	d := depth(bytes.TrimSpace(rr.acc))
	for n := 1; d > 0 && n < maxJoinLines; n++ {
		start := len(rr.acc)
		var err error
		rr.acc, err = rr.readLine(rr.acc)
		next := rr.acc[start:]
		if len(next) > 0 && (next[0] == '{' || next[0] == '[') {
			rr.pendingLine = append([]byte(nil), next...)
			rr.pendingNo = rr.line
			rr.acc = rr.acc[:start]
			break
		}
		d += depth(next)
		if err != nil {
			break
		}
	}
	rec.raw, rec.data = rr.acc, bytes.TrimSpace(rr.acc)
	return nil
}

// depth returns the change in bracket nesting over b, ignoring brackets
// inside strings. It assumes b does not start inside a string.
func depth(b []byte) int {
	d, inStr, esc := 0, false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case inStr:
			if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			d++
		case c == '}' || c == ']':
			d--
		}
	}
	return d
}

// deepCheckMin is the line length from which tooDeep looks at a line. The
// JSON validator recurses once per level; a shorter line cannot nest deep
// enough to exhaust the stack, so the common case pays nothing.
const deepCheckMin = 4 << 20

// tooDeep reports whether b nests brackets deeper than limit.
func tooDeep(b []byte, limit int) bool {
	if len(b) < deepCheckMin {
		return false
	}
	d, inStr, esc := 0, false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case inStr:
			if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			d++
			if d > limit {
				return true
			}
		case c == '}' || c == ']':
			d--
		}
	}
	return false
}
