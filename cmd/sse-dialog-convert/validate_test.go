//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidateManyFiles: validate closes each file when done with it, so a
// folder of dialogs larger than the open-file limit validates. The program
// runs in a process of its own, with the limit lowered.
func TestValidateManyFiles(t *testing.T) {
	golden, err := os.ReadFile("../../testdata/claude/text-only.out.jsonl")
	require.NoError(t, err)
	files := copies(t, t.TempDir(), golden, 150, func(i int) string { return strconv.Itoa(i) + ".jsonl" })
	h := helperCmd(nil, append([]string{"validate"}, files...)...)
	cmd := exec.Command("sh", append([]string{"-c", `ulimit -n 64 && exec "$@"`, "sh", h.Path}, h.Args[1:]...)...)
	cmd.Env = h.Env
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "%s", out)
	assert.Empty(t, string(out))
}

// TestValidateJSONReportsEveryFile: with --json every FILE gets its report,
// one that cannot be read too (and its error goes to stderr).
func TestValidateJSONReportsEveryFile(t *testing.T) {
	dir := t.TempDir()
	good := "../../testdata/claude/text-only.out.jsonl"
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"seq":1}`+"\n"), 0o644))
	missing := filepath.Join(dir, "missing.jsonl")
	code, stdout, stderr := runCLI(t, "", "validate", "--json", good, missing, bad, dir)
	assert.Equal(t, 1, code)

	var reps []fileReport
	dec := json.NewDecoder(strings.NewReader(stdout))
	for dec.More() {
		var r fileReport
		require.NoError(t, dec.Decode(&r))
		reps = append(reps, r)
	}
	require.Len(t, reps, 4, "one report per FILE")
	for i, want := range []struct {
		file  string
		valid bool
	}{{good, true}, {missing, false}, {bad, false}, {dir, false}} {
		assert.Equal(t, want.file, reps[i].File)
		assert.Equal(t, want.valid, reps[i].Valid, want.file)
		assert.Equal(t, want.valid, len(reps[i].Findings) == 0, want.file)
	}
	assert.Contains(t, reps[1].Findings[0].Msg, "no such file")
	assert.Equal(t, dir+" is a folder: validate takes dialog files ("+filepath.Join(dir, "*.jsonl")+")", reps[3].Findings[0].Msg)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Len(t, lines, 2, stderr)
	assert.Contains(t, lines[0], missing)
	assert.Contains(t, lines[1], dir)
}
