package inputs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/registry"
)

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func putFile(t *testing.T, path string, data []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// claudeProject writes a Claude Code project folder of two sessions into
// dir.
func claudeProject(t *testing.T, dir string) {
	putFile(t, filepath.Join(dir, "98d34dcc-b045-4dce-81c6-77796f4e5163.jsonl"), readFile(t, "../../testdata/claude-session/interactive-turns.in.jsonl"))
	putFile(t, filepath.Join(dir, "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"), readFile(t, "../../testdata/claude-session/print-mode-2.1.in.jsonl"))
}

// TestSourcesInArgumentOrder: the FILEs are asked several at a time, and
// their dialogs come in the order of the FILEs, as when asked one by one:
// streams, the sessions of a folder, a missing FILE, a folder with no
// session, standard input.
func TestSourcesInArgumentOrder(t *testing.T) {
	project := filepath.Join(t.TempDir(), "-sandbox-work-sub")
	claudeProject(t, project)
	empty := t.TempDir()
	var files []string
	for i := range 12 {
		files = append(files, []string{
			"../../testdata/claude/text-only.in.jsonl", project, "../../testdata/codex/current-commands.in.jsonl",
			filepath.Join(empty, "missing.jsonl"), empty, "-",
		}[i%6])
	}
	type seen struct {
		name, file string
		format     string
		err        bool
		inputs     int
	}
	list := func(jobs int) []seen {
		var got []seen
		for _, s := range Sources(files, registry.All(), false, strings.NewReader(""), jobs) {
			e := seen{name: s.Name, file: s.File, err: s.Err != nil, inputs: len(s.Inputs)}
			if s.Format != nil {
				e.format = s.Format.Name
			}
			got = append(got, e)
		}
		return got
	}
	one := list(1)
	require.Len(t, one, 14, "two dialogs for each mention of the project folder")
	assert.Equal(t, "../../testdata/claude/text-only.in.jsonl", one[0].name)
	assert.Equal(t, "claude-session", one[1].format)
	assert.Equal(t, "claude-session", one[2].format)
	assert.Equal(t, "../../testdata/codex/current-commands.in.jsonl", one[3].name)
	assert.True(t, one[5].err, "a folder with no session")
	assert.Equal(t, "standard input", one[6].name)
	for _, jobs := range []int{2, 5, 32} {
		assert.Equal(t, one, list(jobs), "jobs %d", jobs)
	}
}
