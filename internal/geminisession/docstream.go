package geminisession

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Before 0.39 Gemini CLI kept a chat as one JSON document, rewritten whole
// at each change: {sessionId, projectHash, startTime, lastUpdated,
// messages: […]}, pretty-printed or compact. Its messages are the records
// the JSON Lines form writes one a line. lines reads such a file as the
// JSON Lines form: the members before "messages" as the header line, each
// message as a line of its own (compacted), the members after it as a
// "$set" line. The document is read one message at a time: memory
// follows the largest message, not the document. Where the document stops
// being whole (cut while it was written, or broken), what was read stands
// and a record of typeDocumentCut says what was lost.
//
// A file of the JSON Lines form comes out as it is: its first line is an
// object with no "messages" array.

// lines returns the JSON Lines form of a chat file, whichever form it has.
func lines(r io.Reader) io.Reader {
	return &docLines{src: r}
}

// docLines is the JSON Lines form of a chat file (see lines).
type docLines struct {
	src io.Reader
	// rest is what is read once the form is known: the file itself (JSON
	// Lines) or nil (a document, read by dec).
	rest    io.Reader
	decided bool

	rec *recorder // the bytes read before the form was known
	dec *json.Decoder

	out  []byte
	off  int
	done bool

	header, trailer []byte // "key":value members, comma-separated
	messages        int64
	endOfWhole      int64 // offset of the end of the last whole value
	inMessages      bool
	skipped         int64 // a byte order mark's bytes, before the decoder's first
	compact         bytes.Buffer
}

var bom = []byte{0xef, 0xbb, 0xbf}

// offset is where the decoder stands in the file.
func (d *docLines) offset() int64 { return d.skipped + d.dec.InputOffset() }

func (d *docLines) Read(p []byte) (int, error) {
	if !d.decided {
		d.decide()
	}
	if d.rest != nil {
		if d.off < len(d.out) {
			n := copy(p, d.out[d.off:])
			d.off += n
			return n, nil
		}
		return d.rest.Read(p)
	}
	for d.off >= len(d.out) {
		if d.done {
			return 0, io.EOF
		}
		d.out, d.off = d.out[:0], 0
		d.next()
	}
	n := copy(p, d.out[d.off:])
	d.off += n
	return n, nil
}

// decide reads the file's first object up to its "messages" member: a
// document goes on from there; anything else is read as it is, from its
// first byte.
func (d *docLines) decide() {
	d.decided = true
	d.rec = &recorder{r: d.src}
	// A byte order mark is no JSON: the decoder starts after it.
	head := make([]byte, len(bom))
	n, _ := io.ReadFull(d.rec, head)
	var in io.Reader = d.rec
	if bytes.Equal(head[:n], bom) {
		d.skipped = int64(n)
	} else {
		in = io.MultiReader(bytes.NewReader(head[:n]), d.rec)
	}
	d.dec = json.NewDecoder(in)
	if document := d.readHeader(); document {
		d.rec.buf = nil
		d.rec.stop = true
		d.inMessages = true
		d.endOfWhole = d.offset()
		d.out = append(append(append(d.out[:0], '{'), d.header...), '}', '\n')
		return
	}
	d.out = d.rec.buf
	d.rest = d.src
	d.rec, d.dec = nil, nil
}

// readHeader reads the members of the first object up to a "messages"
// array, and reports whether it got there.
func (d *docLines) readHeader() bool {
	if t, err := d.dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for d.dec.More() {
		t, err := d.dec.Token()
		key, isKey := t.(string)
		if err != nil || !isKey {
			return false
		}
		if key == "messages" {
			t, err := d.dec.Token()
			return err == nil && t == json.Delim('[')
		}
		var raw json.RawMessage
		if err := d.dec.Decode(&raw); err != nil {
			return false
		}
		d.header = d.appendMember(d.header, key, raw)
	}
	return false
}

// next puts the next line of a document into out: a message, then the
// "$set" of the members after the messages, or where it stops being
// whole.
func (d *docLines) next() {
	if d.inMessages {
		if !d.dec.More() {
			if _, err := d.dec.Token(); err != nil { // the closing ]
				d.cut(err)
				return
			}
			d.inMessages = false
			d.endOfWhole = d.offset()
			return
		}
		var raw json.RawMessage
		if err := d.dec.Decode(&raw); err != nil {
			d.cut(err)
			return
		}
		d.out = d.compactInto(d.out[:0], raw)
		d.out = append(d.out, '\n')
		d.messages++
		d.endOfWhole = d.offset()
		return
	}
	for d.dec.More() {
		t, err := d.dec.Token()
		if err != nil {
			d.cut(err)
			return
		}
		key, _ := t.(string) // within an object, the decoder's tokens here are names
		var raw json.RawMessage
		if err := d.dec.Decode(&raw); err != nil {
			d.cut(err)
			return
		}
		d.trailer = d.appendMember(d.trailer, key, raw)
		d.endOfWhole = d.offset()
	}
	if _, err := d.dec.Token(); err != nil { // the closing }
		d.cut(err)
		return
	}
	d.done = true
	if len(d.trailer) > 0 {
		d.out = append(append(append(d.out, `{"$set":{`...), d.trailer...), '}', '}', '\n')
	}
}

// cut ends the document where it stops being whole: the record that says
// so, after the members after the messages that were whole.
func (d *docLines) cut(err error) {
	d.done = true
	if len(d.trailer) > 0 {
		d.out = append(append(append(d.out, `{"$set":{`...), d.trailer...), '}', '}', '\n')
	}
	// The rest of the file is read to count it; a read error ends the
	// count (and is said).
	_, rerr := io.Copy(io.Discard, d.rec)
	cut := errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
	why := ""
	if !cut {
		why = err.Error()
	}
	if rerr != nil {
		why = strings.TrimPrefix(why+"; reading on: "+rerr.Error(), "; ")
	}
	d.out = append(d.out, `{"type":"`+typeDocumentCut+`","messages":`...)
	d.out = strconv.AppendInt(d.out, d.messages, 10)
	d.out = append(d.out, `,"inMessages":`...)
	d.out = strconv.AppendBool(d.out, d.inMessages)
	d.out = append(d.out, `,"offset":`...)
	d.out = strconv.AppendInt(d.out, d.endOfWhole, 10)
	d.out = append(d.out, `,"lost":`...)
	d.out = strconv.AppendInt(d.out, d.rec.n-d.endOfWhole, 10)
	d.out = append(d.out, `,"cut":`...)
	d.out = strconv.AppendBool(d.out, cut)
	if why != "" {
		d.out = append(d.out, `,"error":`...)
		d.out = jsonraw.AppendQuoted(d.out, why)
	}
	d.out = append(d.out, '}', '\n')
}

// appendMember appends "key":value to members, after a comma when there
// are members already.
func (d *docLines) appendMember(members []byte, key string, raw json.RawMessage) []byte {
	if len(members) > 0 {
		members = append(members, ',')
	}
	members = jsonraw.AppendQuoted(members, key)
	members = append(members, ':')
	return d.compactInto(members, raw)
}

// compactInto appends raw, a value the decoder checked, without the white
// space between its tokens (a pretty-printed message spans lines).
func (d *docLines) compactInto(dst []byte, raw json.RawMessage) []byte {
	d.compact.Reset()
	if json.Compact(&d.compact, raw) != nil {
		return append(dst, raw...) // not reached: the decoder checked it
	}
	return append(dst, d.compact.Bytes()...)
}

// recorder counts the bytes read from r and keeps them until stop.
type recorder struct {
	r    io.Reader
	n    int64
	buf  []byte
	stop bool
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.n += int64(n)
	if !r.stop {
		r.buf = append(r.buf, p[:n]...)
	}
	return n, err
}
