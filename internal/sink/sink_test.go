package sink

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writes records every write the sink makes.
type writes struct {
	calls []string
	fail  error
}

func (w *writes) Write(p []byte) (int, error) {
	if w.fail != nil {
		return 0, w.fail
	}
	w.calls = append(w.calls, string(p))
	return len(p), nil
}

func TestSinkGathersWholeEntries(t *testing.T) {
	var w writes
	s := New(&w, 8)
	for _, e := range []string{"a\n", "bb\n", "ccc\n"} {
		_, err := s.Write([]byte(e))
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"a\nbb\n"}, w.calls, "the entry that would pass the size waits for the next write")
	require.NoError(t, s.Flush())
	assert.Equal(t, []string{"a\nbb\n", "ccc\n"}, w.calls)
	require.NoError(t, s.Flush())
	assert.Len(t, w.calls, 2, "an empty flush writes nothing")

	big := strings.Repeat("x", 25) + "\n"
	_, err := s.Write([]byte("d\n"))
	require.NoError(t, err)
	_, err = s.Write([]byte(big))
	require.NoError(t, err)
	assert.Equal(t, []string{"a\nbb\n", "ccc\n", "d\n", big}, w.calls, "a big entry is written alone, after what was pending")
}

func TestSinkKeepsTheFirstError(t *testing.T) {
	boom := errors.New("disk full")
	w := writes{fail: boom}
	s := New(&w, 4)
	_, err := s.Write([]byte("ab\n"))
	require.NoError(t, err, "nothing is written yet")
	assert.ErrorIs(t, s.Flush(), boom)
	_, err = s.Write([]byte("c\n"))
	assert.ErrorIs(t, err, boom)
	assert.ErrorIs(t, s.Err(), boom)
}

// The sink does not keep the caller's buffer: the writer reuses it for the
// next entry.
func TestSinkCopiesEntries(t *testing.T) {
	var w writes
	s := New(&w, 100)
	buf := []byte("one\n")
	_, _ = s.Write(buf)
	copy(buf, "two\n")
	require.NoError(t, s.Flush())
	assert.Equal(t, []string{"one\n"}, w.calls)
}

// Entries built in place (Pending, Commit) are gathered as written ones
// are, and go out with one write once size bytes are pending.
func TestSinkCommitsEntriesBuiltInPlace(t *testing.T) {
	var w writes
	s := New(&w, 8)
	for _, e := range []string{"a\n", "bb\n", "ccc\n"} {
		require.NoError(t, s.Commit(append(s.Pending(), e...)))
	}
	assert.Equal(t, []string{"a\nbb\nccc\n"}, w.calls, "the entry that reaches the size goes out with what is pending")
	require.NoError(t, s.Commit(append(s.Pending(), "d\n"...)))
	_, err := s.Write([]byte("e\n"))
	require.NoError(t, err)
	require.NoError(t, s.Flush())
	assert.Equal(t, []string{"a\nbb\nccc\n", "d\ne\n"}, w.calls, "Write and Commit share the pending entries")

	boom := errors.New("disk full")
	w.fail = boom
	require.NoError(t, s.Commit(append(s.Pending(), "f\n"...)))
	assert.ErrorIs(t, s.Commit(append(s.Pending(), "ggggggg\n"...)), boom)
	assert.ErrorIs(t, s.Commit(append(s.Pending(), "h\n"...)), boom, "the first error stays")
	assert.Empty(t, s.Pending(), "what is taken after a failure is dropped")
}
