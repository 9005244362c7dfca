package codexrollout_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/codexrollout"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "codex-rollout", name+".in.jsonl"))
	require.NoError(t, err)
	return b
}

// TestInputsTree: a sessions tree, a day folder and a single rollout give
// one input per rollout, cold .jsonl.zst ones decompressed, and nothing
// that is not a rollout.
func TestInputsTree(t *testing.T) {
	home := t.TempDir()
	sessions := filepath.Join(home, "sessions")
	day := filepath.Join(sessions, "2026", "11", "30")
	plain := fixture(t, "exec-tools")
	cold := fixture(t, "turns-with-events")
	a := filepath.Join(day, "rollout-2026-11-30T16-59-10-01a22d65.jsonl")
	b := filepath.Join(sessions, "2026", "11", "21", "rollout-2026-11-21T09-00-00-01a1.jsonl.zst")
	adaptertest.Put(t, a, plain)
	adaptertest.Put(t, b, adaptertest.Zstd(t, cold))
	// Not rollouts: a codex exec --json capture, a Claude session, notes.
	adaptertest.Put(t, filepath.Join(day, "exec.jsonl"), []byte(`{"type":"thread.started","thread_id":"t1"}`+"\n"))
	adaptertest.Put(t, filepath.Join(day, "claude.jsonl"), []byte(`{"parentUuid":null,"sessionId":"s","uuid":"u","type":"user","message":{"role":"user","content":"hi"}}`+"\n"))
	adaptertest.Put(t, filepath.Join(day, "notes.txt"), []byte("rollout notes\n"))
	adaptertest.Put(t, filepath.Join(home, "state_5.sqlite"), []byte("SQLite format 3\x00"))

	ins, ok, err := codexrollout.Inputs(sessions)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, []string{b, a}, adaptertest.Names(ins), "lexical order of their paths")
	assert.Equal(t, string(cold), string(adaptertest.Opened(t, ins[0])), "the cold rollout is read decompressed")
	assert.Equal(t, string(plain), string(adaptertest.Opened(t, ins[1])))

	ins, ok, err = codexrollout.Inputs(day)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, []string{a}, adaptertest.Names(ins))

	ins, ok, err = codexrollout.Inputs(b)
	require.NoError(t, err)
	require.True(t, ok, "a single .jsonl.zst rollout")
	assert.Equal(t, []string{b}, adaptertest.Names(ins))
	// The decompressed stream converts as the plain file does.
	f := codexrollout.Format()
	want := adaptertest.Convert(t, f, bytes.NewReader(cold))
	got := adaptertest.Convert(t, f, bytes.NewReader(adaptertest.Opened(t, ins[0])))
	assert.Equal(t, string(want), string(got))
	adaptertest.RequireValid(t, got)

	for _, notMine := range []string{filepath.Join(day, "exec.jsonl"), filepath.Join(day, "claude.jsonl"), filepath.Join(day, "notes.txt")} {
		ins, ok, err = codexrollout.Inputs(notMine)
		require.NoError(t, err)
		assert.False(t, ok, notMine)
		assert.Empty(t, ins)
	}
	empty := filepath.Join(home, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	_, ok, err = codexrollout.Inputs(empty)
	require.NoError(t, err)
	assert.False(t, ok, "a folder without rollouts is not this format's")

	_, _, err = codexrollout.Inputs(filepath.Join(home, "missing"))
	require.Error(t, err)
}
