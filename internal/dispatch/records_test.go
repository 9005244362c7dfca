package dispatch

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/frame"
)

// TestRecords: what the one loop makes of each kind of record, the depth
// limit and arrays included.
func TestRecords(t *testing.T) {
	deep := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	in := strings.Join([]string{
		`{"e":1}`,
		`[{"e":2},3,{"e":4}]`,
		`[]`,
		`{"e":`,
		`"text"`,
		deep(MaxDepth),
		deep(MaxDepth + 1),
		`event: ping`,
	}, "\n")
	type item struct {
		line           int
		recordProblem  string
		events         []string
		eventsProblems []string
	}
	var got []item
	rs := NewRecords(strings.NewReader(in), frame.Options{})
	for {
		rec, err := rs.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		it := item{line: rec.Line, recordProblem: rec.Problem}
		for e := rec.Events(); e.Next(); {
			if e.Problem != "" {
				it.eventsProblems = append(it.eventsProblems, e.Problem)
				continue
			}
			it.events = append(it.events, string(e.Event.Get("e").Bytes()))
		}
		got = append(got, it)
	}
	want := []item{
		{line: 1, events: []string{"1"}},
		{line: 2, events: []string{"2", "4"}, eventsProblems: []string{"skipped: a JSON value that is not an object" + frame.Preview([]byte("3"))}},
		{line: 3},
		{line: 4, recordProblem: "skipped: not valid JSON" + frame.Preview([]byte(`{"e":`))},
		{line: 5, recordProblem: "skipped: a JSON value that is not an object" + frame.Preview([]byte(`"text"`))},
		{line: 6, events: []string{""}},
		{line: 7, recordProblem: "skipped: nested too deep"},
		{line: 8}, // SSE framing, no record
	}
	assert.Equal(t, want, got)
	assert.Equal(t, 8, rs.Lines())
}

// TestEvents: the events alone, and a read error yielded last.
func TestEvents(t *testing.T) {
	var got []string
	for ev, err := range Events(strings.NewReader("{\"e\":1}\n[{\"e\":2},null]\nnope\n{\"e\":3}\n")) {
		require.NoError(t, err)
		got = append(got, string(ev.Get("e").Bytes()))
	}
	assert.Equal(t, []string{"1", "2", "3"}, got)

	boom := errors.New("boom")
	var errs []error
	for _, err := range Events(io.MultiReader(strings.NewReader("{\"e\":1}\n"), iotest.ErrReader(boom))) {
		errs = append(errs, err)
	}
	assert.Equal(t, []error{nil, boom}, errs)
}
