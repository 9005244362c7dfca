package sessionfile

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecordsReadOneRecordAtATime: a Read returns bytes of one record
// only, however large p is, and a record larger than p comes over several
// Reads; the stream's end comes after the last record, and Stop ends it
// early with its error.
func TestRecordsReadOneRecordAtATime(t *testing.T) {
	recs := []string{"{\"a\":1}\n", "{\"b\":22}\n", "{\"c\":333}\n"}
	var r Records
	i := 0
	next := func() error {
		if i == len(recs) {
			return io.EOF
		}
		r.Out = append(r.Out, recs[i]...)
		i++
		return nil
	}
	var got []string
	p := make([]byte, 64)
	for {
		n, err := r.Read(p, next)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got = append(got, string(p[:n]))
	}
	assert.Equal(t, recs, got)

	r, i = Records{}, 0
	small := make([]byte, 4)
	n, err := r.Read(small, next)
	require.NoError(t, err)
	assert.Equal(t, "{\"a\"", string(small[:n]))
	n, err = r.Read(p, next)
	require.NoError(t, err)
	assert.Equal(t, ":1}\n", string(p[:n]), "the rest of the record, not the next one")

	closed := errors.New("closed")
	r.Stop(closed)
	_, err = r.Read(p, next)
	assert.Equal(t, closed, err)
	r.Stop(errors.New("again"))
	_, err = r.Read(p, next)
	assert.Equal(t, closed, err, "the first end stays")
}
