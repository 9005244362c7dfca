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

// lines is a small session file: two records of a made-up format whose
// records have "kind":"mine".
const lines = `{"kind":"other"}
{"kind":"mine","n":1}
{"kind":"mine","n":2}
`

func detectMine(ev adapter.Event) adapter.Claim {
	if ev.Get("kind").Is("mine") {
		return adapter.Yes
	}
	return adapter.No
}

func write(t *testing.T, path string, data []byte) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func readAll(t *testing.T, path string) string {
	t.Helper()
	r, err := Open(path)
	require.NoError(t, err)
	defer func() { require.NoError(t, r.Close()) }()
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return string(b)
}

func TestOpenDecompressesByContentNotName(t *testing.T) {
	dir := t.TempDir()
	z := adaptertest.Zstd(t, []byte(lines))
	require.True(t, IsZstd(z))
	require.False(t, IsZstd([]byte(lines)))
	require.False(t, IsZstd(z[:3]), "three bytes are not the magic")

	assert.Equal(t, lines, readAll(t, write(t, filepath.Join(dir, "a.jsonl.zst"), z)))
	assert.Equal(t, lines, readAll(t, write(t, filepath.Join(dir, "renamed.jsonl"), z)), "a compressed file renamed .jsonl")
	assert.Equal(t, lines, readAll(t, write(t, filepath.Join(dir, "b.jsonl.gz"), adaptertest.Gzip(t, []byte(lines)))))
	assert.Equal(t, lines, readAll(t, write(t, filepath.Join(dir, "c.jsonl"), []byte(lines))))
	assert.Empty(t, readAll(t, write(t, filepath.Join(dir, "empty.jsonl"), nil)))
	assert.Equal(t, "{", readAll(t, write(t, filepath.Join(dir, "short.jsonl"), []byte("{"))), "shorter than the magic")

	_, err := Open(dir)
	require.Error(t, err, "a folder is no file")
	_, err = Open(filepath.Join(dir, "missing.jsonl"))
	require.ErrorIs(t, err, os.ErrNotExist)

	// Concatenated frames (zstd appends) read as one stream.
	both := append(adaptertest.Zstd(t, []byte("{\"n\":1}\n")), adaptertest.Zstd(t, []byte("{\"n\":2}\n"))...)
	assert.Equal(t, "{\"n\":1}\n{\"n\":2}\n", readAll(t, write(t, filepath.Join(dir, "two-frames.jsonl.zst"), both)))

	// A corrupt stream is an error while reading, not a silent end.
	bad := append([]byte(nil), z...)
	bad = bad[:len(bad)-5]
	r, err := Open(write(t, filepath.Join(dir, "cut.jsonl.zst"), bad))
	require.NoError(t, err)
	_, err = io.ReadAll(r)
	require.Error(t, err)
	require.NoError(t, r.Close())
}

// TestZstdReaderIsStreamed: a big stream decompresses in pieces, and the
// decoder never needs the whole output in memory (it reads from an
// io.Reader with no Bytes method, the streaming path).
func TestZstdReaderIsStreamed(t *testing.T) {
	plain := []byte(strings.Repeat(`{"type":"event_msg","payload":{"type":"token_count"}}`+"\n", 100000))
	zr, err := NewZstdReader(struct{ io.Reader }{bytes.NewReader(adaptertest.Zstd(t, plain))})
	require.NoError(t, err)
	defer zr.Close()
	n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{zr}, make([]byte, 4096))
	require.NoError(t, err)
	assert.Equal(t, int64(len(plain)), n)
}

func TestClaims(t *testing.T) {
	dir := t.TempDir()
	ok, err := Claims(write(t, filepath.Join(dir, "mine.jsonl"), []byte(lines)), detectMine)
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = Claims(write(t, filepath.Join(dir, "mine.jsonl.zst"), adaptertest.Zstd(t, []byte(lines))), detectMine)
	require.NoError(t, err)
	assert.True(t, ok, "compressed files are sniffed decompressed")
	ok, err = Claims(write(t, filepath.Join(dir, "other.jsonl"), []byte(`{"kind":"other"}`+"\nnot json\n")), detectMine)
	require.NoError(t, err)
	assert.False(t, ok)
	// Only the first records are read.
	late := strings.Repeat(`{"kind":"other"}`+"\n", sniffRecords) + `{"kind":"mine"}` + "\n"
	ok, err = Claims(write(t, filepath.Join(dir, "late.jsonl"), []byte(late)), detectMine)
	require.NoError(t, err)
	assert.False(t, ok)
	_, err = Claims(filepath.Join(dir, "missing.jsonl"), detectMine)
	require.Error(t, err)
}

// TestClaimsReadsAsAConversion: the sniffing reads records as a conversion
// does (dispatch.Records): an array's objects are events, and a record as
// deep as a conversion takes is read.
func TestClaimsReadsAsAConversion(t *testing.T) {
	assert.True(t, ClaimsReader(strings.NewReader(`[1,{"kind":"mine"}]`+"\n"), detectMine))
	deep := `{"kind":"mine","x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "}\n"
	assert.True(t, ClaimsReader(strings.NewReader(deep), detectMine))
}

func TestFindAndNames(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "b", "x.jsonl"), []byte(lines))
	write(t, filepath.Join(dir, "a", "y.jsonl.zst"), adaptertest.Zstd(t, []byte(lines)))
	write(t, filepath.Join(dir, "a", "z.json"), []byte(lines))
	write(t, filepath.Join(dir, "a", "other.jsonl"), []byte(`{"kind":"other"}`+"\n"))
	write(t, filepath.Join(dir, "skipped", "w.jsonl"), []byte(lines))
	found, err := Find(dir, func(name string) bool { return name == "skipped" }, func(path string) (bool, error) {
		return Claims(path, detectMine)
	})
	require.NoError(t, err)
	assert.Equal(t, []Entry{{Path: filepath.Join(dir, "a", "y.jsonl.zst")}, {Path: filepath.Join(dir, "b", "x.jsonl")}}, found)

	assert.Equal(t, "rollout-1", Stem("/x/rollout-1.jsonl.zst"))
	assert.Equal(t, "s", Stem("s.jsonl"))
	assert.Equal(t, "s", Stem("d/s.jsonl.gz"))
	assert.True(t, IsJSONL("a.jsonl.zst"))
	assert.False(t, IsJSONL("a.json"))
}

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

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return st.Size()
}
