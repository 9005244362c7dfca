package inputs

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunsOf: a file is one run; a folder of sessions gives each session;
// any other folder every JSON Lines file in it at any depth, plain or
// compressed, and nothing else; a folder of none is an error.
func TestRunsOf(t *testing.T) {
	runs, err := RunsOf("-", nil)
	require.NoError(t, err)
	assert.Equal(t, []Run{{File: "-"}}, runs)

	dir := t.TempDir()
	for _, name := range []string{"a.jsonl", "b/c.ndjson.gz", "b/d.jsonl.zst", "notes.txt", "e.json"} {
		putFile(t, filepath.Join(dir, name), []byte(`{"type":"init"}`+"\n"))
	}
	runs, err = RunsOf(dir, nil)
	require.NoError(t, err)
	assert.Equal(t, []Run{{File: filepath.Join(dir, "a.jsonl")}, {File: filepath.Join(dir, "b/c.ndjson.gz")}, {File: filepath.Join(dir, "b/d.jsonl.zst")}}, runs)

	project := filepath.Join(t.TempDir(), "-work")
	claudeProject(t, project)
	runs, err = RunsOf(project, nil)
	require.NoError(t, err)
	require.Len(t, runs, 2)
	for _, r := range runs {
		require.NotNil(t, r.Source)
		assert.Equal(t, "claude-session", r.Source.Format.Name)
		assert.Empty(t, r.File)
	}

	_, err = RunsOf(t.TempDir(), nil)
	assert.ErrorContains(t, err, "holds no dialog, transcript or session")
}
