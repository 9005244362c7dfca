package adaptertest

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
)

// Sessions are the inputs a format's Inputs finds in a corpus folder of
// session files; the test skips where the folder is not there.
func Sessions(t testing.TB, dir string, inputs func(path string) ([]adapter.Input, bool, error)) []adapter.Input {
	t.Helper()
	CorpusDir(t, dir)
	ins, ok, err := inputs(dir)
	require.NoError(t, err)
	require.True(t, ok, "%s is not claimed as a folder of sessions", dir)
	return ins
}

// WantTokens is what an independent reading of an input says of its
// message entries' tokens: how many entries carry them, and their sum.
type WantTokens struct {
	Count int
	Sum   Tokens
	// MainOnly says the total counts the main thread alone (not the
	// subagents), so that only the main thread's sum is held to it.
	MainOnly bool
}

// MessageTokensOf converts each input (a subtest named by name) and checks
// the tokens of its message entries: never more, summed, than the total,
// and what expect says. Some entry must carry tokens.
func (s Source) MessageTokensOf(t *testing.T, ins []adapter.Input, name func(adapter.Input) string, expect func(t *testing.T, in adapter.Input) WantTokens) {
	t.Helper()
	carried := 0
	for _, in := range ins {
		t.Run(name(in), func(t *testing.T) {
			got := ReadMessageTokens(t, s.Input(t, in).Out)
			want := expect(t, in)
			if want.MainOnly {
				RequireWithin(t, got.Main, got.Total)
			} else {
				RequireWithin(t, got.Sum(), got.Total)
			}
			assert.Equal(t, want.Count, got.Carried, "message entries with tokens")
			assert.Equal(t, want.Sum, got.Sum(), "message tokens, summed")
			carried += got.Carried
		})
	}
	assert.Positive(t, carried, "no input gave a message entry tokens")
}

// FileInputs are files as inputs, each named by its path.
func FileInputs(files []string) []adapter.Input {
	ins := make([]adapter.Input, len(files))
	for i, f := range files {
		ins[i] = adapter.Input{Name: f, Open: func() (io.ReadCloser, error) { return os.Open(f) }}
	}
	return ins
}

// BaseName names an input's subtest by its file's base name.
func BaseName(in adapter.Input) string { return filepath.Base(in.Name) }
