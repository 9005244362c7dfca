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
	rec Record // the last record read, reused
}

// NewRecords returns the records of r, framed with opt.
func NewRecords(r io.Reader, opt frame.Options) *Records {
	return &Records{fr: frame.NewReader(r, opt), chk: new(jsonraw.Checker)}
}

// Record is one record of an input.
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

// Next returns the next record, valid until the next call (the Records'
// own, reused); io.EOF at the end of the input, or the error that ended
// its reading.
func (rs *Records) Next() (*Record, error) {
	fr, err := rs.fr.Next()
	if err != nil {
		return nil, err
	}
	rec := &rs.rec
	*rec = Record{Line: fr.Line, Problem: fr.Problem}
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

// EventIter walks the events of a record, in order: the record itself
// when it is an object, each element of an array (some CLIs print a whole
// run as one array of events), an element that is not an object with the
// Problem that skips it instead. A record with a Problem, or none, has no
// events, and neither has []:
//
//	for e := rec.Events(); e.Next(); {
//		… e.Event, or e.Problem …
//	}
type EventIter struct {
	Event   adapter.Event        // the current event, when Problem is ""
	Problem string               // why the current element is skipped
	elems   *jsonraw.ElementIter // an array's elements; nil for an object
	pending bool                 // an object's one event is still to come
}

// Events starts a walk over the record's events.
func (rec *Record) Events() EventIter {
	if rec.Value.IsArray() {
		return EventIter{elems: rec.Value.Elements()}
	}
	return EventIter{Event: adapter.Event{Value: rec.Value}, pending: rec.Value.IsObject()}
}

// Next moves to the next event and reports whether there is one.
func (e *EventIter) Next() bool {
	if e.elems != nil {
		return e.element()
	}
	ok := e.pending
	e.pending = false
	return ok
}

// element moves to an array's next element.
func (e *EventIter) element() bool {
	if !e.elems.Next() {
		return false
	}
	v := e.elems.Value
	e.Event, e.Problem = adapter.Event{Value: v}, ""
	if !v.IsObject() {
		e.Event, e.Problem = adapter.Event{}, "skipped: a JSON value that is not an object"+frame.Preview(v.Bytes())
	}
	return true
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
			for e := rec.Events(); e.Next(); {
				if e.Problem == "" && !yield(e.Event, nil) {
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
