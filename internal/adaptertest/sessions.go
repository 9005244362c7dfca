package adaptertest

import (
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

// MessageTokensOf converts each input (a subtest named by name) and checks
// the tokens of its message entries: never more, summed, than the total,
// and what expect, an independent reading of the input's files, says:
// how many entries carry tokens and their sum. Some entry must carry
// tokens.
func (s Source) MessageTokensOf(t *testing.T, ins []adapter.Input, name func(adapter.Input) string, expect func(t *testing.T, in adapter.Input) (count int, sum Tokens)) {
	t.Helper()
	carried := 0
	for _, in := range ins {
		t.Run(name(in), func(t *testing.T) {
			got := ReadMessageTokens(t, s.Input(t, in).Out)
			RequireWithin(t, got.Sum(), got.Total)
			count, sum := expect(t, in)
			assert.Equal(t, count, got.Carried, "message entries with tokens")
			assert.Equal(t, sum, got.Sum(), "message tokens, summed")
			carried += got.Carried
		})
	}
	assert.Positive(t, carried, "no input gave a message entry tokens")
}
