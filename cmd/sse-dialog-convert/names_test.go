package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDialogNamesUnder(t *testing.T) {
	names, outside := dialogNamesUnder("/data/runs", []string{
		"/data/runs/a1/transcript.jsonl",
		"/data/runs/b2/x/transcript.jsonl.gz",
		"/data/runs/top.ndjson",
		"/data/runs/a1/transcript.jsonl", // given twice
		"/data/runs/A1/Transcript.jsonl", // the same name to a file system that ignores case
	})
	require.Empty(t, outside)
	assert.Equal(t, []string{
		"a1_transcript.dialog.jsonl",
		"b2_x_transcript.dialog.jsonl",
		"top.dialog.jsonl",
		"a1_transcript-2.dialog.jsonl",
		"A1_Transcript-3.dialog.jsonl",
	}, names)

	// A name is its path's alone: the same in any company.
	alone, _ := dialogNamesUnder("/data/runs", []string{"/data/runs/b2/x/transcript.jsonl.gz"})
	assert.Equal(t, []string{"b2_x_transcript.dialog.jsonl"}, alone)

	for _, f := range []string{"/data/other/t.jsonl", "/data/runs", "/data/runs/../t.jsonl", "/data/runsx/t.jsonl"} {
		names, outside := dialogNamesUnder("/data/runs", []string{"/data/runs/a/t.jsonl", f})
		assert.Equal(t, f, outside, f)
		assert.Nil(t, names, f)
	}
}

// TestBaseNamesShardsAlike: two shards of one file list, each its own
// batch, name their dialogs from the path below --base, so the names
// are those one batch of the whole list gives, and never meet.
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
