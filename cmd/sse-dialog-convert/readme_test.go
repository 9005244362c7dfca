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

// TestReadmeExamples: every command the README shows with its output
// prints that output, run from the repository's root as a reader of the
// README would.
func TestReadmeExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	exs := readmeExamples(string(readme))
	require.GreaterOrEqual(t, len(exs), 2, "the output example and validate's")
	t.Setenv("SSE_MODEL_NAME", "")
	t.Setenv("SSE_TASK_ID", "")
	t.Setenv("SOURCE_DATE_EPOCH", "")
	t.Chdir("../..")
	found := false
	for _, ex := range exs {
		r := cli{args: ex.args}.run(t)
		assert.True(t, matchesElided(ex.want, r.stdout), "$ %s %s\nshown:\n%s\nprinted:\n%s\nstderr: %s",
			name, strings.Join(ex.args, " "), ex.want, r.stdout, r.stderr)
		found = found || strings.Contains(ex.want, `"type":"complete"`)
	}
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

var readmeLink = regexp.MustCompile(`\]\(#([^)]+)\)`)

// TestReadmeFormats: the README's list of formats is the registry's. Every
// format the converter reads has a row in the Formats table, whose links
// lead to sections of the README, and is a value in the --format row of
// the flags; no row names a format the registry does not read. Every link
// within the README leads to a heading.
func TestReadmeFormats(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(raw)
	anchors := map[string]bool{}
	inCode := false
	for _, line := range strings.Split(readme, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if h := strings.TrimLeft(line, "#"); !inCode && h != line && strings.HasPrefix(h, " ") {
			anchors[githubAnchor(strings.TrimSpace(h))] = true
		}
	}
	for _, m := range readmeLink.FindAllStringSubmatch(readme, -1) {
		assert.True(t, anchors[m[1]], "the link #%s leads to no heading", m[1])
	}

	_, section, ok := strings.Cut(readme, "\n## Formats\n")
	require.True(t, ok, "the README has a Formats section")
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
		assert.True(t, known && f.New != nil, "the Formats table names %q, which the registry does not read", format)
		rows[format] = line
		assert.NotEmpty(t, readmeLink.FindAllString(line, -1), "the row of %s links to no section", format)
	}
	var formatFlag string
	for _, line := range strings.Split(readme, "\n") {
		if strings.HasPrefix(line, "| `-f, --format FORMAT` |") {
			formatFlag = line
		}
	}
	require.NotEmpty(t, formatFlag, "the flags table has a --format row")
	for _, f := range registry.Readable() {
		assert.Contains(t, rows, f.Name, "the Formats table has no row for %s", f.Name)
		assert.Contains(t, formatFlag, "`"+f.Name+"`", "the --format row does not name %s", f.Name)
	}
}
