package claudesession_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/follow"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
)

// TestFollowGrowingSession converts a session file while it is written
// (--follow): detection on its first lines, then the one-pass adapter on
// what arrives, lines cut anywhere. The dialog is the one the whole file
// gives. The file is the corpus's live capture (turn-1 is a prefix of
// turn-2) when present, else a fixture cut in two.
func TestFollowGrowingSession(t *testing.T) {
	live := filepath.Join(corpusDir, "cc2.1.7-live-prefix__codemie-incremental-simple")
	first, errA := os.ReadFile(filepath.Join(live, "turn-1.jsonl"))
	whole, errB := os.ReadFile(filepath.Join(live, "turn-2.jsonl"))
	if errA != nil || errB != nil {
		t.Logf("no live capture in %s: using a fixture", live)
		whole = read(t, testdata("interactive-turns.in.jsonl"))
		first = whole[:bytes.Index(whole, []byte(`"content":"how many tests`))]
	}
	require.True(t, bytes.HasPrefix(whole, first))

	opt := dialog.Options{Clock: dialog.FixedClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	var want bytes.Buffer
	c := dispatch.New(&want, opt, dispatch.Options{Formats: registry.All()})
	require.NoError(t, c.Feed(bytes.NewReader(whole), "whole"))
	require.NoError(t, c.Close(nil))

	path := filepath.Join(t.TempDir(), "3fb74381-1bf4-475e-8c6f-442d872b1bcf.jsonl")
	require.NoError(t, os.WriteFile(path, first, 0o600))
	var got bytes.Buffer
	conv := dispatch.New(&got, opt, dispatch.Options{Formats: registry.All()})
	var written atomic.Bool
	fopt := follow.Options{Poll: 5 * time.Millisecond, Done: func() bool { return written.Load() && conv.Finished() }}
	f, err := follow.Open(context.Background(), path, fopt)
	require.NoError(t, err)
	defer f.Close()
	done := make(chan error, 1)
	go func() { done <- conv.Feed(follow.New(context.Background(), f, fopt), path) }()

	// Wait until the first part is converted, then append the rest in
	// pieces that cut lines.
	require.Eventually(t, func() bool { return conv.Entries() >= 3 }, 10*time.Second, 5*time.Millisecond)
	rest := whole[len(first):]
	w, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	for len(rest) > 0 {
		n := min(len(rest), 997)
		_, err := w.Write(rest[:n])
		require.NoError(t, err)
		rest = rest[n:]
	}
	require.NoError(t, w.Close())
	written.Store(true)
	require.NoError(t, <-done)
	require.NoError(t, conv.Close(nil))
	format, ok := conv.Format()
	require.True(t, ok)
	assert.Equal(t, "claude-session", format.Name)
	assert.Equal(t, want.String(), got.String())
}
