package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawControls matches what a name must not bring to a terminal.
var rawControls = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")

// A file name reaches stderr and stdout quoted, by every command that
// names it: x\e]52;c;…\a.jsonl wrote the clipboard, set the title and
// cleared the screen.
func TestHostileNamesAreQuoted(t *testing.T) {
	dir := t.TempDir()
	hostile := "x\x1b]52;c;aGVsbG8=\x07\x1b]0;pwned\x07\x1b[2J\u202egpj.jsonl"
	in := filepath.Join(dir, hostile)
	require.NoError(t, os.WriteFile(in, []byte("not json\n{\"type\":\"nothing\"}\n"), 0o644))
	dialogPath := filepath.Join(dir, hostile+".dialog")
	require.NoError(t, os.WriteFile(dialogPath, []byte(`{"seq":0,"ts":"2026-01-01T00:00:00Z","type":"init","data":{"task":"t","cwd":"/","model":"m","agent":"a"}}`+"\n"), 0o644))
	missing := filepath.Join(dir, hostile+".missing")
	// Quoted by quoteName, or escaped by terminalSafe where a message
	// names the file in words of its own (an *os.PathError's).
	shown := regexp.MustCompile(`x\\x1b\]52;c;aGVsbG8=\\(a|x07)\\x1b\]0;pwned\\(a|x07)\\x1b\[2J\\u202egpj\.jsonl`)
	for _, args := range [][]string{
		{in, "-o", filepath.Join(dir, "out.jsonl")},
		{"--strict", in, "-o", filepath.Join(dir, "out.jsonl")},
		{missing, "-o", filepath.Join(dir, "out.jsonl")},
		{"--out-dir", filepath.Join(dir, "batch"), in, missing},
		{"validate", dialogPath, missing},
		{"view", "--no-pager", missing},
		{"export", "--html", "--out-dir", filepath.Join(dir, "pages"), dialogPath, missing},
	} {
		_, stdout, stderr := runCLI(t, "", args...)
		for _, out := range []string{stdout, stderr} {
			assert.NotRegexp(t, rawControls, out, "%q", args)
		}
		assert.Regexp(t, shown, stdout+stderr, "%q: the name is shown escaped", args)
	}
}

func TestQuoteName(t *testing.T) {
	for in, want := range map[string]string{
		"runs/a b.jsonl":     "runs/a b.jsonl",
		"café/日本.jsonl":      "café/日本.jsonl",
		"a\x1bb":             `"a\x1bb"`,
		"bad\xffutf8":        `"bad\xffutf8"`,
		"rtl\u202efdp.exe":   `"rtl\u202efdp.exe"`,
		"new\nline":          `"new\nline"`,
		`"a\x1bb"`:           `"a\x1bb"`, // quoting twice changes nothing
		"zero\u200bwidth.js": `"zero\u200bwidth.js"`,
	} {
		assert.Equal(t, want, cli.QuoteName(in), "%q", in)
	}
	assert.Equal(t, `a \x1b[2J b\xff \u202e`+"\n", cli.TerminalSafe("a \x1b[2J b\xff \u202e\n"))
	assert.Equal(t, "plain é\tline\n", cli.TerminalSafe("plain é\tline\n"))
	assert.False(t, strings.ContainsAny(cli.TerminalSafe("\u009b31m"), "\u009b"))
}
