package frame

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/ssebench/sse-dialog-convert/internal/golden" // registers -update
)

type gotRecord struct {
	Line int
	Data string
}

// readAll frames in and returns the records, and the raw bytes they cover
// joined (which must be the whole input: --tee writes them).
func readAll(t *testing.T, r io.Reader, readSize int) ([]gotRecord, string) {
	t.Helper()
	rr := NewReader(r, Options{ReadSize: readSize})
	var got []gotRecord
	var raw strings.Builder
	for {
		rec, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if !rec.Meta {
			got = append(got, gotRecord{rec.Line, string(rec.Data)})
		}
		raw.Write(rec.Raw)
	}
	return got, raw.String()
}

func TestRecordFraming(t *testing.T) {
	big := `{"k":"` + strings.Repeat("x", 1<<20) + `"}` // 4 reads of bufio's buffer
	tests := []struct {
		name string
		in   string
		want []gotRecord
	}{
		{"empty input", "", nil},
		{"one line", "{}\n", []gotRecord{{1, "{}"}}},
		{"no final newline", "{}\n{\"a\":1}", []gotRecord{{1, "{}"}, {2, `{"a":1}`}}},
		{"CRLF", "{}\r\n{\"a\":1}\r\n", []gotRecord{{1, "{}"}, {2, `{"a":1}`}}},
		{"lone CR is not a line end", "{}\r{}\n", []gotRecord{{1, "{}\r{}"}}},
		{"blank lines count", "\n\r\n  \n{}\n", []gotRecord{{1, ""}, {2, ""}, {3, ""}, {4, "{}"}}},
		{"BOM on the first line", "\xef\xbb\xbf{}\n{}\n", []gotRecord{{1, "{}"}, {2, "{}"}}},
		{"BOM where files were concatenated", "{}\n\xef\xbb\xbf{}\n", []gotRecord{{1, "{}"}, {2, "{}"}}},
		{"BOM alone", "\xef\xbb\xbf", []gotRecord{{1, ""}}},
		{"surrounding white space", " \t{} \t\r\n", []gotRecord{{1, "{}"}}},
		{"NUL bytes are data", "\x00{}\x00\n", []gotRecord{{1, "\x00{}\x00"}}},
		{"a 1 MiB line", big + "\n{}\n", []gotRecord{{1, big}, {2, "{}"}}},
		{"pretty-printed object joined",
			"{\n  \"a\": [\n    1\n  ],\n  \"b\": \"}\"\n}\n{}\n",
			[]gotRecord{{1, "{\n  \"a\": [\n    1\n  ],\n  \"b\": \"}\"\n}"}, {7, "{}"}}},
		{"pretty-printed with CRLF and a BOM",
			"\xef\xbb\xbf{\r\n  \"a\": 1\r\n}\r\n",
			[]gotRecord{{1, "{\r\n  \"a\": 1\r\n}"}}},
		{"pretty-printed top-level array",
			"[\n  {\"a\": 1},\n  {\"b\": 2}\n]\n",
			[]gotRecord{{1, "[\n  {\"a\": 1},\n  {\"b\": 2}\n]"}}},
		{"cut line, then the next event",
			"{\"type\":\"assis\n{\"a\":1}\n",
			[]gotRecord{{1, `{"type":"assis`}, {2, `{"a":1}`}}},
		{"cut line, then stderr text and ANSI codes",
			"{\"a\":[1,\nTraceback (most recent call last):\n\x1b[31merror\x1b[0m\n{}\n",
			[]gotRecord{{1, `{"a":[1,`}, {2, "Traceback (most recent call last):"}, {3, "\x1b[31merror\x1b[0m"}, {4, "{}"}}},
		{"unfinished pretty object at the end",
			"{\n  \"a\": 1,\n",
			[]gotRecord{{1, "{\n  \"a\": 1,"}}},
		{"opener cut at the end of input is not joined", "{\"a\":", []gotRecord{{1, `{"a":`}}},
		{"line cut in half at the end", "{}\n{\"type\":\"ass", []gotRecord{{1, "{}"}, {2, `{"type":"ass`}}},
		{"opening brackets inside strings do not open", "{\"a\":\"{[\"}\n{}\n", []gotRecord{{1, `{"a":"{["}`}, {2, "{}"}}},
		{"escaped quote inside a string", "{\"a\":\"\\\"{\"}\n{}\n", []gotRecord{{1, `{"a":"\"{"}`}, {2, "{}"}}},
		{"indented opener is a line of its own", "  {\n  }\n", []gotRecord{{1, "{"}, {2, "}"}}},
		{"server-sent events", "event: message\ndata: {\"a\":1}\nid: 7\n\n: keep-alive\ndata:{}\r\nretry: 10\n",
			[]gotRecord{{2, `{"a":1}`}, {4, ""}, {6, "{}"}}},
		{"data: without an event", "data: not json\n", []gotRecord{{1, "not json"}}},
		{"data: longer than the read buffer", "data: {\"a\":\"" + strings.Repeat("x", 40) + "\"}\n{}\n",
			[]gotRecord{{1, `{"a":"` + strings.Repeat("x", 40) + `"}`}, {2, "{}"}}},
		{"text that looks like a field is data", "eventual: x\n", []gotRecord{{1, "eventual: x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readers := map[string]func() io.Reader{
				"whole":    func() io.Reader { return strings.NewReader(tt.in) },
				"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(tt.in)) },
				"halves":   func() io.Reader { return iotest.HalfReader(strings.NewReader(tt.in)) },
				"data+EOF": func() io.Reader { return iotest.DataErrReader(strings.NewReader(tt.in)) },
			}
			for name, r := range readers {
				// The default buffer, and bufio's least: lines and
				// pretty objects longer than it are framed alike.
				for _, size := range []int{0, 16} {
					got, raw := readAll(t, r(), size)
					assert.Equal(t, tt.want, got, "%s, buffer %d", name, size)
					assert.Equal(t, tt.in, raw, "%s, buffer %d: the records' raw bytes are the input, byte for byte", name, size)
				}
			}
		})
	}
}

// A pretty-printed object spans at most maxJoinLines; past that the lines
// gathered are one (bad) record and reading goes on.
func TestRecordJoinIsBounded(t *testing.T) {
	in := "{\n" + strings.Repeat("  1,\n", maxJoinLines+5) + "}\n{}\n"
	got, raw := readAll(t, strings.NewReader(in), 0)
	require.Equal(t, in, raw)
	require.GreaterOrEqual(t, len(got), 2)
	assert.Equal(t, 1, got[0].Line)
	assert.Equal(t, maxJoinLines, strings.Count(got[0].Data, "\n")+1, "the first record holds maxJoinLines lines")
	assert.Equal(t, gotRecord{maxJoinLines + 8, "{}"}, got[len(got)-1])
}

func TestRecordReadError(t *testing.T) {
	boom := errors.New("boom")
	rr := NewReader(io.MultiReader(strings.NewReader("{}\n{\"a\""), iotest.ErrReader(boom)), Options{})
	rec, err := rr.Next()
	require.NoError(t, err)
	assert.Equal(t, "{}", string(rec.Data))
	_, err = rr.Next()
	assert.ErrorIs(t, err, boom)
}

// A line past bigBuf grows the buffer by doubling; the next record starts
// with a small buffer again, so one huge line does not hold its memory for
// the rest of the run.
func TestRecordHugeLineBufferIsDropped(t *testing.T) {
	huge := append([]byte(`"`), bytes.Repeat([]byte("x"), bigBuf+100)...) // JSON from its first byte
	in := io.MultiReader(bytes.NewReader(huge), strings.NewReader("\n{}\n"))
	rr := NewReader(in, Options{})
	rec, err := rr.Next()
	require.NoError(t, err)
	assert.Equal(t, huge, rec.Data)
	assert.GreaterOrEqual(t, cap(rr.buf), bigBuf)
	rec, err = rr.Next()
	require.NoError(t, err)
	assert.Equal(t, "{}", string(rec.Data))
	assert.Less(t, cap(rr.buf), bigBuf)
}

// readLimited frames in with a line limit and returns the records and
// their problems.
func readLimited(t *testing.T, r io.Reader, maxLine int64) ([]gotRecord, []string) {
	t.Helper()
	rr := NewReader(r, Options{MaxLine: maxLine})
	var got []gotRecord
	var problems []string
	for {
		rec, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		got = append(got, gotRecord{rec.Line, string(rec.Data)})
		problems = append(problems, rec.Problem)
		if rec.Problem != "" {
			assert.Nil(t, rec.Raw, "a skipped record is not held")
		}
	}
	return got, problems
}

// A record longer than maxLine is skipped as too long, whether its end is
// seen within one read or far past it, and reading goes on after it; a
// record of exactly maxLine bytes (line ending aside) is kept.
func TestRecordMaxLine(t *testing.T) {
	const limit = 10
	long := `{"a":"` + strings.Repeat("x", 3*DefaultReadSize) + `"}` // spans several reads
	tooLong := "skipped: longer than the line limit of 10 bytes (--max-line)"
	tests := []struct {
		name     string
		in       string
		want     []gotRecord
		problems []string
	}{
		{"at the limit", `{"a":"12"}` + "\r\n{}\n", []gotRecord{{1, `{"a":"12"}`}, {2, "{}"}}, []string{"", ""}},
		{"one past the limit", `{"a":"123"}` + "\n{}\n", []gotRecord{{1, `{"a":"123"}`}, {2, "{}"}}, []string{tooLong, ""}},
		{"long line", long + "\n{}\n", []gotRecord{{1, long[:previewBytes]}, {2, "{}"}}, []string{tooLong, ""}},
		{"long line without newline", long, []gotRecord{{1, long[:previewBytes]}}, []string{tooLong}},
		{"pretty-printed object too long", "{\n  \"a\": 1,\n  \"b\": 2\n}\n{}\n",
			// Its first two lines are over the limit; the lines after them are records of their own.
			[]gotRecord{{1, "{\n  \"a\": 1,"}, {3, `"b": 2`}, {4, "}"}, {5, "{}"}}, []string{tooLong, "", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for name, r := range map[string]io.Reader{
				"whole":    strings.NewReader(tt.in),
				"one byte": iotest.OneByteReader(strings.NewReader(tt.in)),
			} {
				got, problems := readLimited(t, r, limit)
				assert.Equal(t, tt.want, got, name)
				assert.Equal(t, tt.problems, problems, name)
			}
		})
	}
}

// A line that goes on past one read and cannot be JSON from its first byte
// (stderr noise, binary data) is skipped without being held, whatever the
// line limit; short lines are left to the checker, as before.
func TestRecordNotJSONIsNotHeld(t *testing.T) {
	noise := "\x1b[31m" + strings.Repeat("Traceback ", DefaultReadSize) // 2.5 MiB, no newline until the end
	in := noise + "\n{}\n\x00short\n"
	got, problems := readLimited(t, strings.NewReader(in), -1)
	assert.Equal(t, []gotRecord{{1, noise[:previewBytes]}, {2, "{}"}, {3, "\x00short"}}, got)
	assert.Equal(t, []string{"skipped: not valid JSON" + Preview([]byte(noise)), "", ""}, problems)

	// JSON-looking starts are held (up to the limit): they may be events.
	for _, start := range []string{"{", "[", `"`, "-", "7", "t", "f", "n", " \t{", "\xef\xbb\xbf{"} {
		assert.False(t, cannotStartJSON([]byte(start)), "%q", start)
	}
	for _, start := range []string{"x", "\x00", "\x1b[", "}", " <html>", "\xef\xbb\xbfx"} {
		assert.True(t, cannotStartJSON([]byte(start)), "%q", start)
	}
	assert.False(t, cannotStartJSON([]byte("  \r\n")), "white space alone cannot tell")
}

// A huge record never grows the buffer past the limit (doubling would take
// it from 16 to 32 MiB here): memory stays near maxLine however long the
// line is.
func TestRecordMaxLineBoundsTheBuffer(t *testing.T) {
	const limit = 3*bigBuf + 1000
	in := io.MultiReader(strings.NewReader(`{"a":"`), bytes.NewReader(bytes.Repeat([]byte("x"), 4*bigBuf)), strings.NewReader("\"}\n{}\n"))
	rr := NewReader(in, Options{MaxLine: limit})
	rec, err := rr.Next()
	require.NoError(t, err)
	assert.NotEmpty(t, rec.Problem)
	assert.LessOrEqual(t, cap(rr.buf), limit+2+DefaultReadSize)
	rec, err = rr.Next()
	require.NoError(t, err)
	assert.Equal(t, "{}", string(rec.Data))
}

// A line limit as large as an int64 holds is no limit: pretty objects and
// lines longer than a read are framed as without one (MaxLine+2 wrapped
// and skipped them all).
func TestRecordHugeMaxLineIsNoLimit(t *testing.T) {
	long := `{"a":"` + strings.Repeat("x", 3*DefaultReadSize) + `"}`
	in := "{\n  \"a\": 1\n}\n" + long + "\n"
	for _, limit := range []int64{math.MaxInt64, math.MaxInt64 - 1, math.MaxInt64 / 2} {
		got, problems := readLimited(t, strings.NewReader(in), limit)
		assert.Equal(t, []string{"", ""}, problems, "limit %d", limit)
		assert.Equal(t, []gotRecord{{1, "{\n  \"a\": 1\n}"}, {4, long}}, got, "limit %d", limit)
	}
}

// FuzzTrimLine: the fast path of trimLine trims as bytes.TrimSpace does,
// Unicode white space (NBSP, NEL) and "\r\n" included.
func FuzzTrimLine(f *testing.F) {
	for _, s := range []string{"{}\n", "{}\r\n", " {}\n", "{}", "\n", "x\n", "{}\u00a0\n", "\u0085{}\n", "{}\v\n", "\x7f\n", "\xc2\n", "a\xc2\x85\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		assert.Equal(t, bytes.TrimSpace(b), trimLine(b), "%q", b)
	})
}

// FuzzWhole: a line that compactLine lets Next frame without whole is
// framed as whole frames it, under any line limit.
func FuzzWhole(f *testing.F) {
	for _, s := range []string{"{}\n", "{\"a\":1}\n", "{}\r\n", "{}", "{\n", "{ }\n", "\ufeff{}\n", "data: {}\n", "[]\n", "{}}\n", "}\n", "{\n}\n"} {
		f.Add([]byte(s), int16(-1), false)
		f.Add([]byte(s), int16(2), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, maxLine int16, eof bool) {
		var err error
		if eof {
			err = io.EOF
		}
		rr := NewReader(nil, Options{MaxLine: int64(maxLine)})
		if !compactLine(b, err, rr.opt.MaxLine) {
			return
		}
		want, ok := rr.whole(b, err)
		assert.True(t, ok, "%q", b)
		assert.Equal(t, Record{Data: b[:len(b)-1], Raw: b, Line: 1}, want, "%q", b)
	})
}

// records frames everything rr has left.
func records(t *testing.T, rr *Reader) []Record {
	t.Helper()
	var got []Record
	for {
		rec, err := rr.Next()
		if errors.Is(err, io.EOF) {
			return got
		}
		require.NoError(t, err)
		rec.Data, rec.Raw = bytes.Clone(rec.Data), bytes.Clone(rec.Raw)
		got = append(got, rec)
	}
}

// A Reader Reset for a second input frames it as a new Reader would, from
// any state the first left it in: a pretty object cut short with a line
// read ahead, a skipped record, a line without its newline; with its read
// buffer of the size asked for, the same or another.
func TestResetFramesAsANewReader(t *testing.T) {
	firsts := map[string]string{
		"read ahead":       "{\n  \"a\": 1,\n{\"b\":2}\n{}\n",
		"skipped not JSON": "\x1b[31m" + strings.Repeat("noise ", 100) + "\n{}\n",
		"too long":         `{"a":"` + strings.Repeat("x", 200) + "\"}\n",
		"cut line":         "{}\n{\"type\":\"ass",
	}
	second := "\xef\xbb\xbf{\"c\":3}\n{\n  \"d\": [\n    4\n  ]\n}\ndata: {\"e\":5}\n" + `{"f":"` + strings.Repeat("y", 100) + "\"}\n{\"g\""
	for name, first := range firsts {
		for _, sizes := range [][2]int{{16, 16}, {0, 16}, {16, 0}} {
			for _, records1 := range []int{1, 100} {
				opt1 := Options{ReadSize: sizes[0], MaxLine: 150}
				opt2 := Options{ReadSize: sizes[1]}
				want := records(t, NewReader(strings.NewReader(second), opt2))

				rr := NewReader(strings.NewReader(first), opt1)
				for range records1 {
					if _, err := rr.Next(); err != nil {
						break
					}
				}
				require.True(t, rr.Reset(strings.NewReader(second), opt2))
				assert.Equal(t, want, records(t, rr), "%s, read sizes %v, %d records of the first", name, sizes, records1)
				assert.Equal(t, strings.Count(second, "\n")+1, rr.Lines())
			}
		}
	}
}

// Reset keeps the buffers it can: the read buffer of the size asked for,
// and a line buffer; not the memory of a line longer than keepBuf.
func TestResetKeepsMemoryButNotALongLine(t *testing.T) {
	in := func() io.Reader { return strings.NewReader(`{"a":"` + strings.Repeat("x", 100) + "\"}\n") }
	rr := NewReader(in(), Options{ReadSize: 64})
	records(t, rr)
	br, buf := rr.br, cap(rr.buf)
	require.NotZero(t, buf, "a line longer than a read is gathered in the line buffer")
	require.True(t, rr.Reset(in(), Options{ReadSize: 64}))
	assert.Same(t, br, rr.br)
	assert.Equal(t, buf, cap(rr.buf))
	r := in()
	assert.Zero(t, testing.AllocsPerRun(10, func() { rr.Reset(r, Options{ReadSize: 64}) }))

	long := `{"a":"` + strings.Repeat("x", keepBuf) + "\"}\n"
	rr = NewReader(strings.NewReader(long), Options{ReadSize: 64})
	records(t, rr)
	assert.False(t, rr.Reset(in(), Options{ReadSize: 64}), "a line longer than keepBuf was held")

	huge := append([]byte(`"`), bytes.Repeat([]byte("x"), bigBuf+100)...)
	rr = NewReader(io.MultiReader(bytes.NewReader(huge), strings.NewReader("\n{}\n")), Options{})
	records(t, rr)
	require.Less(t, cap(rr.buf), bigBuf, "the huge line's buffer is dropped already")
	assert.False(t, rr.Reset(in(), Options{}), "a line past bigBuf was held")
}
