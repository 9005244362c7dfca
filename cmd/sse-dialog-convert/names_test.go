package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBaseNamesShardsAlike(t *testing.T) {
	tmp := t.TempDir()
	runs := filepath.Join(tmp, "runs")
	var files []string
	for _, d := range []string{"a1", "a2", "b/a1"} {
		p := filepath.Join(runs, d, "transcript.jsonl")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(claudeRun), 0o644))
		files = append(files, p)
	}
	out := filepath.Join(tmp, "dialogs")
	for _, shard := range [][]string{files[:1], files[1:]} {
		code, _, stderr := runCLI(t, "", append([]string{"--out-dir", out, "--base", runs}, shard...)...)
		require.Equal(t, 0, code, stderr)
	}
	got, err := filepath.Glob(filepath.Join(out, "*"))
	require.NoError(t, err)
	for i := range got {
		got[i] = filepath.Base(got[i])
	}
	assert.ElementsMatch(t, []string{"a1_transcript.dialog.jsonl", "a2_transcript.dialog.jsonl", "b_a1_transcript.dialog.jsonl"}, got)

	// A FILE outside --base, and --base without --out-dir: cases of TestCLI.
}
