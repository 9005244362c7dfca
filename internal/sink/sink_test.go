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

// A buffer handed over (Release, NewBuffer) carries its memory to the next
// Sink and none of its entries; the Sink that released it goes on with a
// buffer of its own. Pending entries, or a buffer grown past twice the
// size, are not handed over.
func TestSinkHandsItsBufferOn(t *testing.T) {
	var w1, w2 writes
	s1 := New(&w1, 8)
	require.NoError(t, s1.Commit(append(s1.Pending(), "a\n"...)))
	assert.Nil(t, s1.Release(), "an entry is pending")
	require.NoError(t, s1.Flush())
	buf := s1.Release()
	require.NotNil(t, buf)
	assert.Empty(t, buf)

	s2 := NewBuffer(&w2, 8, buf)
	require.NoError(t, s2.Commit(append(s2.Pending(), "b\n"...)))
	assert.Same(t, &buf[:1][0], &s2.Pending()[0], "the memory is reused")
	_, err := s1.Write([]byte("c\n"))
	require.NoError(t, err)
	require.NoError(t, s1.Flush())
	require.NoError(t, s2.Flush())
	assert.Equal(t, []string{"a\n", "c\n"}, w1.calls)
	assert.Equal(t, []string{"b\n"}, w2.calls, "nothing of the first sink's entries")

	require.NoError(t, s2.Commit(append(s2.Pending(), "ddddddddddddddddd\n"...))) // built in place past the size
	assert.Nil(t, s2.Release(), "grown past twice the size")
}
