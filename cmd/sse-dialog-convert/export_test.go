package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExportOutDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	code, _, errOut := runCLI(t, "", "export", "--html", "--out-dir", dir,
		"../../testdata/view/showcase.dialog.jsonl", "../../testdata/claude/subagent-agent.in.jsonl", "missing.jsonl")
	assert.Equal(t, 1, code, "one input failed")
	assert.Contains(t, errOut, "missing.jsonl")
	assert.Equal(t, []string{"index.html", "showcase.html", "subagent-agent.in.html"}, dirNames(t, dir))
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	assert.Contains(t, string(index), `href="showcase.html"`)
	assert.Contains(t, string(index), `href="subagent-agent.in.html"`)
	assert.Equal(t, 3, strings.Count(string(index), "<tr class="), "a row per input, the failed one too")
	assert.Contains(t, string(index), "st-failed")
	// The rows are the stats command's: the first prompt (its first 60
	// characters, from the showcase's seq 1) and the totals.
	assert.Contains(t, string(index), ">Fix the buffer overflow in src/parser.c and add a regression…</td>")
	assert.Contains(t, string(index), `<th scope="row">total</th>`)
}

// A stop writes no further page, and no temporary file is left.
func TestExportStopped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	ctx, stop := stopWith(syscall.SIGTERM)
	stop()
	r := program{args: []string{"export", "--html", "--out-dir", dir, "../../testdata/view/showcase.dialog.jsonl"}, ctx: ctx}.run(t)
	assert.Equal(t, 128+int(syscall.SIGTERM), r.code, r.stderr)
	entries, _ := os.ReadDir(dir)
	assert.Empty(t, entries, "no page, no index, no temporary file")
}

// --redact covers the pages' names and the index: the README's own
// '/home/[^/]+' leaked every user's folder through them. Names that the
// mask makes clash are told apart after masking.
func TestExportRedactsNames(t *testing.T) {
	root := t.TempDir()
	src, err := os.ReadFile("../../testdata/view/showcase.dialog.jsonl")
	require.NoError(t, err)
	var files []string
	for _, user := range []string{"alice", "bob"} {
		dir := filepath.Join(root, "home", user, "proj-"+user)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		files = append(files, filepath.Join(dir, "run.jsonl"))
		require.NoError(t, os.WriteFile(files[len(files)-1], src, 0o644))
	}
	files = append(files, filepath.Join(root, "home", "carol", "missing.jsonl"))
	out := filepath.Join(root, "report")
	args := append([]string{"export", "--html", "--out-dir", out, "--redact", "/home/[^/]+", "--redact", `proj-\w+`}, files...)
	code, _, errOut := runCLI(t, "", args...)
	assert.Equal(t, 1, code, errOut)
	names := dirNames(t, out)
	assert.Equal(t, []string{"index.html", "run-2.html", "run.html"}, names)
	for _, name := range names {
		page, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err)
		for _, secret := range []string{"alice", "bob", "carol"} {
			assert.NotContains(t, string(page), secret, name)
		}
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(index), "<tr class="), "a row per input, the failed one too")
}

// The index links to a page whatever its legal name holds: #, ?, % and :
// are escaped in the link, so that they are not read as a fragment, a
// query, an escape or a scheme.
func TestExportIndexLinksOddNames(t *testing.T) {
	root := t.TempDir()
	src, err := os.ReadFile("../../testdata/view/showcase.dialog.jsonl")
	require.NoError(t, err)
	in := filepath.Join(root, "a#b?c%41d:e.jsonl")
	require.NoError(t, os.WriteFile(in, src, 0o644))
	out := filepath.Join(root, "report")
	code, _, errOut := runCLI(t, "", "export", "--html", "--out-dir", out, in)
	require.Equal(t, 0, code, errOut)
	_, err = os.Stat(filepath.Join(out, "a#b?c%41d:e.html"))
	require.NoError(t, err)
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	require.NoError(t, err)
	assert.Contains(t, string(index), `href="a%23b%3Fc%2541d%3Ae.html"`)
}
