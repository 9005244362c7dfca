package sessionfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
)

// TestFindGoesOnPastBadEntries: a dangling symlink, a symlink loop, a FIFO
// and a folder it cannot read are entries with their errors; the walk goes
// on, the good files are found, and keep is never asked about a FIFO
// (whose opening would wait for a writer for ever).
func TestFindGoesOnPastBadEntries(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.jsonl"), []byte(lines))
	write(t, filepath.Join(dir, "z", "b.jsonl"), []byte(lines))
	require.NoError(t, os.Symlink("gone.jsonl", filepath.Join(dir, "dangling.jsonl")))
	require.NoError(t, os.Symlink("loop.jsonl", filepath.Join(dir, "loop.jsonl")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo.jsonl"), 0o644))
	asked := 0
	found, err := Find(dir, nil, func(path string) (bool, error) {
		asked++
		return Claims(path, detectMine)
	})
	require.NoError(t, err)
	require.Len(t, found, 5)
	assert.Equal(t, Entry{Path: filepath.Join(dir, "a.jsonl")}, found[0])
	assert.ErrorIs(t, found[1].Err, os.ErrNotExist)
	assert.Equal(t, filepath.Join(dir, "dangling.jsonl"), found[1].Path)
	assert.ErrorIs(t, found[2].Err, ErrNotRegular)
	assert.Equal(t, filepath.Join(dir, "fifo.jsonl"), found[2].Path)
	assert.ErrorIs(t, found[3].Err, syscall.ELOOP)
	assert.Equal(t, Entry{Path: filepath.Join(dir, "z", "b.jsonl")}, found[4])
	assert.Equal(t, 4, asked, "the FIFO is not asked about")

	if os.Geteuid() == 0 {
		t.Log("running as root: a folder with mode 000 is still read, so the unreadable-folder case is not made")
		return
	}
	require.NoError(t, os.Chmod(filepath.Join(dir, "z"), 0))
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(dir, "z"), 0o755) })
	found, err = Find(dir, nil, func(path string) (bool, error) { return Claims(path, detectMine) })
	require.NoError(t, err)
	assert.ErrorIs(t, found[len(found)-1].Err, os.ErrPermission)
}

// TestOpenRegularOnly: a FIFO, a device and a folder are refused before
// they are opened; a regular file through a symlink is read.
func TestOpenRegularOnly(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "agent-x.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	_, err := Open(fifo) // would block for ever if it were opened
	assert.ErrorIs(t, err, ErrNotRegular)
	_, err = Open("/dev/zero")
	assert.ErrorIs(t, err, ErrNotRegular)
	_, err = Open(dir)
	assert.ErrorIs(t, err, syscall.EISDIR)

	write(t, filepath.Join(dir, "s.jsonl"), []byte(lines))
	require.NoError(t, os.Symlink("s.jsonl", filepath.Join(dir, "link.jsonl")))
	r, err := Open(filepath.Join(dir, "link.jsonl"))
	require.NoError(t, err)
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	assert.Equal(t, lines, string(b))
}

// TestReadSmall: a small file whole; one past the limit is an error after
// reading no more than the limit and a byte; /dev/zero is refused unread.
func TestReadSmall(t *testing.T) {
	dir := t.TempDir()
	meta := filepath.Join(dir, "agent-x.meta.json")
	write(t, meta, []byte(`{"toolUseId":"toolu_1"}`))
	b, err := ReadSmall(meta, 100)
	require.NoError(t, err)
	assert.Equal(t, `{"toolUseId":"toolu_1"}`, string(b))
	_, err = ReadSmall(meta, 10)
	assert.ErrorContains(t, err, "larger than 10 bytes")
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.meta.json")))
	_, err = ReadSmall(filepath.Join(dir, "zero.meta.json"), 1<<20)
	assert.True(t, errors.Is(err, ErrNotRegular), "%v", err)
}

// TestReadSize: a read buffer as large as a small plain file and a byte
// (at least 4 KiB), the default for a large one or a compressed one.
func TestReadSize(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "s.jsonl")
	write(t, small, make([]byte, 10000))
	big := filepath.Join(dir, "b.jsonl")
	write(t, big, make([]byte, frame.DefaultReadSize+10))
	zst := filepath.Join(dir, "c.jsonl.zst")
	write(t, zst, adaptertest.Zstd(t, []byte(lines)))
	for path, want := range map[string]int{small: 10001, big: frame.DefaultReadSize, zst: 0} {
		r, err := Open(path)
		require.NoError(t, err)
		assert.Equal(t, want, ReadSize(r), path)
		require.NoError(t, r.Close())
	}
}
