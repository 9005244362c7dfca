package dispatch

import (
	"errors"
	"io"
	"iter"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// MaxDepth is the nesting depth past which a record is skipped as broken,
// as encoding/json does. Events nest a dozen levels; the adapters' walks
// recurse, so a limit there must be.
const MaxDepth = 10000

// Records is the one loop over an input's records: framed (frame.Reader),
// each checked (jsonraw.Checker, nested at most MaxDepth), an object or an
// array of objects taken apart into events (Record.Events). A conversion
// runs it, and so do the sniffing of session files and the tests' kits, so
// that what they take for an event is what a conversion converts.
type Records struct {
	fr  *frame.Reader
	chk *jsonraw.Checker
}

// NewRecords returns the records of r, framed with opt.
func NewRecords(r io.Reader, opt frame.Options) *Records {
	return &Records{fr: frame.NewReader(r, opt), chk: new(jsonraw.Checker)}
}

// Record is one record of an input. Its Value is valid until the next
// call of Next.
type Record struct {
	// Line is the record's first line, 1-based.
	Line int
	// Problem says why the record is skipped whole, when it is: framing's
	// (too long, not JSON from its first byte) or checking's (not valid
	// JSON, nested too deep, a value that is neither an object nor an
	// array).
	Problem string
	// Value is the record, checked: an object or an array. It is absent
	// for a record with a Problem and for a line of Server-Sent Events
	// framing that holds no event.
	Value jsonraw.Value
}

// Next returns the next record; io.EOF at the end of the input, or the
// error that ended its reading.
func (rs *Records) Next() (Record, error) {
	fr, err := rs.fr.Next()
	if err != nil {
		return Record{}, err
	}
	rec := Record{Line: fr.Line, Problem: fr.Problem}
	if rec.Problem == "" && !fr.Meta && len(fr.Data) > 0 {
		v, verdict := rs.chk.Value(fr.Data, MaxDepth)
		if verdict > jsonraw.Dirty || fr.Data[0] != '{' { // (not an object checked good: most records)
			rec.Problem = checkProblem(verdict, fr.Data)
		}
		if rec.Problem == "" {
			rec.Value = v
		}
	}
	return rec, nil
}

// Lines returns how many lines were read so far.
func (rs *Records) Lines() int { return rs.fr.Lines() }

// checkProblem says why a record the checker judged is skipped, if it is.
func checkProblem(v jsonraw.Verdict, data []byte) string {
	switch {
	case v == jsonraw.TooDeep:
		return "skipped: nested too deep"
	case v == jsonraw.Invalid:
		return "skipped: not valid JSON" + frame.Preview(data)
	case data[0] != '{' && data[0] != '[':
		return "skipped: a JSON value that is not an object" + frame.Preview(data)
	}
	return ""
}

// Events yields the events of the record with "", in order: the record
// itself when it is an object, each element of an array (some CLIs print
// a whole run as one array of events); an element that is not an object
// is yielded with the problem that skips it instead. A record with a
// Problem, or none, yields nothing, and so does [].
func (rec Record) Events() iter.Seq2[adapter.Event, string] {
	return func(yield func(adapter.Event, string) bool) {
		if rec.Value.IsObject() {
			yield(adapter.Event{Value: rec.Value}, "")
			return
		}
		for e := rec.Value.Elements(); e.Next(); {
			ev, problem := adapter.Event{Value: e.Value}, ""
			if !e.Value.IsObject() {
				ev, problem = adapter.Event{}, "skipped: a JSON value that is not an object"+frame.Preview(e.Value.Bytes())
			}
			if !yield(ev, problem) {
				return
			}
		}
	}
}

// Events yields every event of the input as a conversion converts it; the
// records and elements a conversion skips are left out. An event is valid
// until the next is yielded. A read error is yielded last, with no event.
func (rs *Records) Events() iter.Seq2[adapter.Event, error] {
	return func(yield func(adapter.Event, error) bool) {
		for {
			rec, err := rs.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(adapter.Event{}, err)
				return
			}
			for ev, problem := range rec.Events() {
				if problem == "" && !yield(ev, nil) {
					return
				}
			}
		}
	}
}

// Events yields the events of r as a conversion reads them with the
// default framing (see Records.Events).
func Events(r io.Reader) iter.Seq2[adapter.Event, error] {
	return NewRecords(r, frame.Options{}).Events()
}
