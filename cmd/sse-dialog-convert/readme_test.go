package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/registry"
	"github.com/ssebench/sse-dialog-convert/internal/testskip"
)

// readmeExample is a "$ sse-dialog-convert …" line of a README code block
// and the lines after it (to the next "$" line or the block's end): what
// the command prints.
type readmeExample struct {
	args []string
	want string
}

func readmeExamples(readme string) []readmeExample {
	var exs []readmeExample
	inBlock := false
	var cur *readmeExample
	flush := func() {
		if cur != nil {
			exs = append(exs, *cur)
			cur = nil
		}
	}
	for _, line := range strings.Split(readme, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			flush()
			inBlock = !inBlock
		case !inBlock:
		case strings.HasPrefix(line, "$ "):
			flush()
			if words := shellWords(strings.TrimPrefix(line, "$ ")); len(words) > 0 && words[0] == name {
				cur = &readmeExample{args: words[1:]}
			}
		case cur != nil:
			cur.want += line + "\n"
		}
	}
	return exs
}

// docPages lists the pages a reader reads, relative to the repository's
// root: README.md and every Markdown page under docs/, but not
// docs/pending (notes waiting to be folded in).
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir("../../docs", func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "pending":
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(path, ".md"):
			rel, err := filepath.Rel("../..", path)
			pages = append(pages, filepath.ToSlash(rel))
			return err
		}
		return nil
	})
	require.NoError(t, err)
	return pages
}

// TestReadmeExamples: every command the README and docs/ show with its
// output prints that output, run from the repository's root as a reader
// would.
func TestReadmeExamples(t *testing.T) {
	pages := docPages(t)
	texts := map[string]string{}
	for _, p := range pages {
		b, err := os.ReadFile(filepath.Join("../..", p))
		require.NoError(t, err)
		texts[p] = string(b)
	}
	t.Setenv("SSE_MODEL_NAME", "")
	t.Setenv("SSE_TASK_ID", "")
	t.Setenv("SOURCE_DATE_EPOCH", "")
	t.Chdir("../..")
	found, count := false, 0
	for _, p := range pages {
		for _, ex := range readmeExamples(texts[p]) {
			count++
			r := program{args: ex.args}.run(t)
			assert.True(t, matchesElided(ex.want, r.stdout), "%s:\n$ %s %s\nshown:\n%s\nprinted:\n%s\nstderr: %s",
				p, name, strings.Join(ex.args, " "), ex.want, r.stdout, r.stderr)
			found = found || strings.Contains(ex.want, `"type":"complete"`)
		}
	}
	assert.GreaterOrEqual(t, count, 2, "the output example and validate's")
	assert.True(t, found, "the output example is among them")
}

// matchesElided reports whether got is want, where a line of want that is
// only "…" stands for any run of lines the README leaves out (none, too).
func matchesElided(want, got string) bool {
	w := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	g := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	var match func(i, j int) bool
	match = func(i, j int) bool {
		switch {
		case i == len(w):
			return j == len(g)
		case w[i] == "…":
			for k := j; k <= len(g); k++ {
				if match(i+1, k) {
					return true
				}
			}
			return false
		case j < len(g) && w[i] == g[j]:
			return match(i+1, j+1)
		}
		return false
	}
	return strings.HasSuffix(want, "\n") == strings.HasSuffix(got, "\n") && match(0, 0)
}

func TestMatchesElided(t *testing.T) {
	assert.True(t, matchesElided("a\nb\n", "a\nb\n"))
	assert.False(t, matchesElided("a\nb\n", "a\nc\n"))
	assert.True(t, matchesElided("…\nb\n…\nd\n", "a\nb\nc\nc\nd\n"))
	assert.True(t, matchesElided("a\n…\nb\n", "a\nb\n"), "… may stand for no line")
	assert.False(t, matchesElided("a\n…\nb\n", "a\nc\n"))
	assert.False(t, matchesElided("a\n", "a\nb\n"))
}

// TestMakeBuildIsStatic: `make build` gives a binary with no dynamic
// loader and no shared library: it runs in any container.
func TestMakeBuildIsStatic(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("make"); err != nil {
		testskip.Missing(t, "no make in PATH: the Makefile's build is not checked")
	}
	bin := filepath.Join(t.TempDir(), name)
	out, err := exec.Command("make", "-C", "../..", "build", "BIN="+bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "CGO_ENABLED=0 go build")
	f, err := elf.Open(bin)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		assert.NotEqual(t, elf.PT_INTERP, p.Type, "the binary names a dynamic loader")
	}
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	assert.Empty(t, libs)
}

// githubAnchor is the anchor GitHub gives a heading: lower case, letters,
// digits, "-" and "_" kept, spaces made "-", anything else dropped.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown page's headings (code blocks
// aside).
func anchors(page string) map[string]bool {
	found := map[string]bool{}
	inCode := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if h := strings.TrimLeft(line, "#"); !inCode && h != line && strings.HasPrefix(h, " ") {
			found[githubAnchor(strings.TrimSpace(h))] = true
		}
	}
	return found
}

// mdLink is a Markdown link or image: ](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks: every link of the README and docs/ that stays in the
// repository leads to a file that exists, and, with #anchor into a
// Markdown page, to one of its headings.
func TestDocsLinks(t *testing.T) {
	for _, p := range docPages(t) {
		b, err := os.ReadFile(filepath.Join("../..", p))
		require.NoError(t, err)
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := p
			if file != "" {
				path = filepath.ToSlash(filepath.Join(filepath.Dir(p), file))
			}
			linked, err := os.ReadFile(filepath.Join("../..", path))
			if !assert.NoError(t, err, "%s links to %s, which is not there", p, target) {
				continue
			}
			if anchor != "" {
				assert.True(t, strings.HasSuffix(path, ".md") && anchors(string(linked))[anchor],
					"%s links to %s: no such heading in %s", p, target, path)
			}
		}
	}
}

// TestReadmeIsShort: the README is the first page a user reads: at most
// 250 lines, and nothing of the project's own history or of folders a
// reader does not have.
func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(b)
	assert.LessOrEqual(t, strings.Count(readme, "\n"), 250)
	for _, word := range []string{"this round", "issue 1", "issue 2", "../shared", "session of the project"} {
		assert.NotContains(t, strings.ToLower(readme), word)
	}
}

// TestReadmeFormats: the lists of formats are the registry's. Every format
// the converter reads has a row in the README's Formats table and in that
// of docs/formats/README.md, each linking to its page,
// docs/formats/NAME.md; no row names a format the registry does not read;
// and the --format row of the flags (docs/usage.md) names every format.
func TestReadmeFormats(t *testing.T) {
	for _, page := range []struct{ path, section, pages string }{
		{"README.md", "\n## Formats\n", "docs/formats/"},
		{"docs/formats/README.md", "# Formats\n", ""},
	} {
		raw, err := os.ReadFile(filepath.Join("../..", page.path))
		require.NoError(t, err)
		_, section, ok := strings.Cut(string(raw), page.section)
		require.True(t, ok, "%s has a Formats section", page.path)
		section, _, _ = strings.Cut(section, "\n## ")
		rows := map[string]string{}
		body := false // past the table's header
		for _, line := range strings.Split(section, "\n") {
			if strings.HasPrefix(line, "|---") {
				body = true
			}
			if !body || !strings.HasPrefix(line, "| `") {
				continue
			}
			cells := strings.Split(line, "|")
			format := strings.Trim(strings.TrimSpace(cells[1]), "`")
			f, known := registry.Lookup(format)
			assert.True(t, known && f.New != nil, "%s: the Formats table names %q, which the registry does not read", page.path, format)
			rows[format] = line
		}
		for _, f := range registry.Readable() {
			if assert.Contains(t, rows, f.Name, "%s: the Formats table has no row for %s", page.path, f.Name) {
				assert.Contains(t, rows[f.Name], "]("+page.pages+f.Name+".md", "%s: the row of %s links to no page of its own", page.path, f.Name)
			}
			_, err := os.Stat(filepath.Join("../../docs/formats", f.Name+".md"))
			assert.NoError(t, err, "%s has no page", f.Name)
		}
	}

	usage, err := os.ReadFile("../../docs/usage.md")
	require.NoError(t, err)
	var formatFlag string
	for _, line := range strings.Split(string(usage), "\n") {
		if strings.HasPrefix(line, "| `-f, --format FORMAT` |") {
			formatFlag = line
		}
	}
	require.NotEmpty(t, formatFlag, "the flags table of docs/usage.md has a --format row")
	for _, f := range registry.Readable() {
		assert.Contains(t, formatFlag, "`"+f.Name+"`", "the --format row does not name %s", f.Name)
	}
}

// TestDevelopmentLayout: docs/development.md has a row for every package
// under internal/, so that a reader finds each one.
func TestDevelopmentLayout(t *testing.T) {
	raw, err := os.ReadFile("../../docs/development.md")
	require.NoError(t, err)
	page := string(raw)
	err = filepath.WalkDir("../../internal", func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case !d.IsDir():
			return nil
		case d.Name() == "testdata":
			return filepath.SkipDir
		}
		goFiles, err := filepath.Glob(filepath.Join(path, "*.go"))
		if err != nil || len(goFiles) == 0 {
			return err // a folder that holds only packages
		}
		rel, err := filepath.Rel("../..", path)
		assert.Contains(t, page, "| `"+filepath.ToSlash(rel)+"` |", "docs/development.md: no row for %s", rel)
		return err
	})
	require.NoError(t, err)
}
