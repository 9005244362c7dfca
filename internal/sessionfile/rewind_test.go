package sessionfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRewind: a stream Open returned, read part way or whole, reads again
// from its start after Rewind, decompressed as before.
func TestRewind(t *testing.T) {
	plain := []byte(strings.Repeat(`{"type":"user","n":1}`+"\n", 500))
	for name, data := range map[string][]byte{"t.jsonl": plain, "t.jsonl.gz": adaptertest.Gzip(t, plain), "t.jsonl.zst": adaptertest.Zstd(t, plain)} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			require.NoError(t, os.WriteFile(path, data, 0o644))
			r, err := Open(path)
			require.NoError(t, err)
			first, err := io.ReadAll(r)
			require.NoError(t, err)
			require.Equal(t, plain, first)
			r, err = Rewind(r)
			require.NoError(t, err)
			part := make([]byte, 100)
			_, err = io.ReadFull(r, part)
			require.NoError(t, err)
			r, err = Rewind(r)
			require.NoError(t, err)
			again, err := io.ReadAll(r)
			require.NoError(t, err)
			assert.Equal(t, plain, again)
			assert.Equal(t, ReadSize(freshStream(t, path)), ReadSize(r), "the same read size")
			require.NoError(t, r.Close())
		})
	}
}

// freshStream is a fresh stream of path, for its read size.
func freshStream(t *testing.T, path string) io.Reader {
	r, err := Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}
