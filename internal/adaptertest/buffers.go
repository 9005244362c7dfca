package adaptertest

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
)

// Buffers are the sizes of a conversion's read buffer and sink
// (dispatch.Options.ReadSize and SinkSize; zero: frame.DefaultReadSize and
// sink.DefaultSize). Production sizes them to its input (a small file's
// read buffer, a batch's sink); the kit makes them tiny, so that every
// record spans many reads and every entry is flushed on its own: a record
// or an entry that only came out right whole inside one buffer shows.
type Buffers struct {
	Read, Sink int
}

// Tiny returns the smallest buffers the pipeline takes: a read buffer of
// 1 byte (bufio makes it 16) and a sink of 1 byte.
func Tiny() Buffers { return Buffers{Read: 1, Sink: 1} }

// ConvertBuffered converts r as the command does with --format f, with
// the buffer sizes b (zero: production's).
func ConvertBuffered(t testing.TB, f adapter.Format, r io.Reader, b Buffers) []byte {
	t.Helper()
	var out, diag bytes.Buffer
	c := dispatch.New(&out, Options(), dispatch.Options{Formats: []adapter.Format{f}, Forced: true, Stderr: &diag, ReadSize: b.Read, SinkSize: b.Sink})
	require.NoError(t, c.Feed(r, "input"))
	require.NoError(t, c.Close(nil))
	return out.Bytes()
}
