package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/golden"
)

// manDir is where TestManPages writes the man pages (make man); empty: it
// only checks that they can be made.
var manDir = flag.String("man", "", "write the man pages into this `folder` (make man)")

// manVersion is the version the man pages' footer names (make man passes
// $(VERSION)); empty: none.
var manVersion = flag.String("man-version", "", "the `version` the man pages name")

// cliDocsDir holds the CLI reference, one Markdown page per command, made
// from the cobra commands themselves (make docs).
const cliDocsDir = "../../docs/cli"

// docsRoot is the command tree as a user's shell sees it: with the
// completion command cobra adds when the program runs, and without cobra's
// "Auto generated … on <date>" line, so that the pages depend on the code
// alone.
func docsRoot() *cobra.Command {
	root := newRootCmd(cli.NewStreams(strings.NewReader(""), io.Discard, io.Discard))
	root.InitDefaultCompletionCmd()
	var noDate func(*cobra.Command)
	noDate = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			noDate(sub)
		}
	}
	noDate(root)
	return root
}

// mdFiles lists the .md files of dir, sorted.
func mdFiles(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.md"))
	require.NoError(t, err)
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	slices.Sort(names)
	return names
}

// TestCLIReference: the pages in docs/cli are what the commands say today
// (their use lines, help, examples and flags). After a change to a command
// or a flag, make docs (go test ./cmd/sse-dialog-convert -run
// '^TestCLIReference$' -update) writes them again.
func TestCLIReference(t *testing.T) {
	made := t.TempDir()
	require.NoError(t, doc.GenMarkdownTree(docsRoot(), made))
	pages := mdFiles(t, made)
	require.Contains(t, pages, name+".md")
	require.Contains(t, pages, name+"_run.md")

	if golden.Updating() {
		require.NoError(t, os.MkdirAll(cliDocsDir, 0o755))
		for _, old := range mdFiles(t, cliDocsDir) {
			require.NoError(t, os.Remove(filepath.Join(cliDocsDir, old)))
		}
		for _, p := range pages {
			b, err := os.ReadFile(filepath.Join(made, p))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(cliDocsDir, p), b, 0o644))
		}
		return
	}
	const stale = "docs/cli is stale: run make docs and commit the pages"
	assert.Equal(t, pages, mdFiles(t, cliDocsDir), stale)
	for _, p := range pages {
		want, err := os.ReadFile(filepath.Join(made, p))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(cliDocsDir, p))
		if assert.NoError(t, err, stale) {
			assert.Equal(t, string(want), string(got), "%s: %s", p, stale)
		}
	}
}

// TestManPages: every command has a man page in section 1, named as man
// looks it up (sse-dialog-convert-run.1 for "man sse-dialog-convert-run").
// With -man DIR (make man) the pages are written there. Their date is
// $SOURCE_DATE_EPOCH when set (make man sets the commit's time), so a
// release's pages depend on its commit alone.
func TestManPages(t *testing.T) {
	dir := *manDir
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	root := docsRoot()
	source := name
	if *manVersion != "" {
		source += " " + *manVersion
	}
	header := &doc.GenManHeader{Title: "SSE-DIALOG-CONVERT", Section: "1", Source: source, Manual: name + " manual"}
	require.NoError(t, doc.GenManTree(root, header, dir))
	var want []string
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c != root {
			return
		}
		want = append(want, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, page := range want {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if assert.NoError(t, err, "no man page for a command") {
			assert.True(t, strings.HasPrefix(string(b), `.nh`+"\n"+`.TH "SSE-DIALOG-CONVERT" "1"`), "%s: %.60q", page, b)
		}
	}
}
