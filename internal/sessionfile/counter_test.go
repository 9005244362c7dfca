package sessionfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
)

// readCount is what r, a stream Open or Counted returned, counts.
func readCount(t *testing.T, r io.Reader) (read, size, ahead int64) {
	t.Helper()
	rc, ok := r.(adapter.ReadCounter)
	require.True(t, ok, "%T is no adapter.ReadCounter", r)
	return rc.ReadCount()
}

// counterLines is 440,000 bytes of JSON Lines: more than a read buffer.
var counterLines = []byte(strings.Repeat(`{"type":"user","n":1}`+"\n", 20000))

// A stream Open returned counts its file's bytes as stored: its size
// before anything is read, and every byte of it once read to its end,
// compressed or not. What its reader may hold ahead is the buffer it is
// framed with, and a decoder's block besides when compressed, never more
// than the file.
func TestOpenCountsTheFile(t *testing.T) {
	R := int64(frame.DefaultReadSize)
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		data  []byte
		ahead int64
	}{
		{"t.jsonl", counterLines, R},
		{"small.jsonl", counterLines[:100], 100},
		{"t.jsonl.gz", adaptertest.Gzip(t, counterLines), -1}, // the file: smaller than 2R
		{"t.jsonl.zst", adaptertest.Zstd(t, counterLines), -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, filepath.Join(dir, tc.name), tc.data)
			size := int64(len(tc.data))
			if tc.ahead < 0 {
				require.Less(t, size, 2*R)
				tc.ahead = size
			}
			r, err := Open(path)
			require.NoError(t, err)
			defer r.Close()
			_, gotSize, ahead := readCount(t, r)
			assert.Equal(t, size, gotSize, "before the stream is read")
			assert.Equal(t, tc.ahead, ahead)
			b, err := io.ReadAll(r)
			require.NoError(t, err)
			if tc.name == "small.jsonl" {
				require.Equal(t, counterLines[:100], b)
			} else {
				require.Equal(t, counterLines, b)
			}
			read, gotSize, _ := readCount(t, r)
			assert.Equal(t, size, read, "the file's bytes, not the decompressed ones")
			assert.Equal(t, size, gotSize)
		})
	}
}

// A format that reads a file twice counts the second pass alone, and
// several files merged into one stream in one Counter; a file Expect
// counted before it was opened counts its size once.
func TestCounterOfMergedFiles(t *testing.T) {
	dir := t.TempDir()
	main := write(t, filepath.Join(dir, "main.jsonl"), counterLines)
	agent := write(t, filepath.Join(dir, "agent.jsonl.gz"), adaptertest.Gzip(t, counterLines[:1000]))
	later := write(t, filepath.Join(dir, "later.jsonl"), counterLines[:500])
	sizes := int64(len(counterLines)) + fileSize(t, agent) + 500

	first, err := Open(main)
	require.NoError(t, err)
	_, err = io.ReadAll(first)
	require.NoError(t, err)
	c := new(Counter)
	second, err := RewindCounted(first, c)
	require.NoError(t, err)
	defer second.Close()
	read, size, _ := c.ReadCount()
	assert.LessOrEqual(t, read, int64(len(ZstdMagic)), "the first pass is not counted")
	assert.Equal(t, int64(len(counterLines)), size)

	a, err := OpenCounted(agent, c)
	require.NoError(t, err)
	defer a.Close()
	c.Expect(later)
	c.Expect(filepath.Join(dir, "missing.jsonl"))
	c.Expect(dir)
	_, size, ahead := c.ReadCount()
	assert.Equal(t, sizes, size, "every file, the missing file and the folder none")
	assert.Equal(t, int64(frame.DefaultReadSize)+fileSize(t, agent)+500, ahead)

	l, err := OpenCounted(later, c)
	require.NoError(t, err)
	defer l.Close()
	s := Counted(io.NopCloser(io.MultiReader(second, a, l)), c)
	_, err = io.ReadAll(s)
	require.NoError(t, err)
	read, size, ahead2 := readCount(t, s)
	assert.Equal(t, sizes, read)
	assert.Equal(t, sizes, size, "the file Expect counted, once")
	assert.Equal(t, ahead, ahead2)
}

// A stream built in memory counts its own bytes.
func TestCounterReader(t *testing.T) {
	c := new(Counter)
	r := c.Reader(bytes.NewReader(counterLines), int64(len(counterLines)))
	buf := make([]byte, 1000)
	_, err := io.ReadFull(r, buf)
	require.NoError(t, err)
	read, size, ahead := c.ReadCount()
	assert.Equal(t, []int64{1000, int64(len(counterLines)), 0}, []int64{read, size, ahead})
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return st.Size()
}
