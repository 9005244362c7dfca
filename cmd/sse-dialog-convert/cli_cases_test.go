package main

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
)

// cliCase is one run of the command: its arguments, standard input,
// environment and files, and what it must give: the exit status, checks of
// stdout and stderr, and of the files it leaves. {tmp} in args, stdin,
// env, files (names and texts), link targets and checks is the case's own
// fresh folder.
type cliCase struct {
	name  string
	args  []string
	stdin string
	// env is set for the run, beside SSE_ARCHIVE={tmp}/archive (nothing
	// reaches the real archive) and SSE_MODEL_NAME, SSE_TASK_ID unset.
	env map[string]string
	// files are written before the run: {tmp}/<name> holds the text.
	files map[string]string
	// symlinks and hardLinks are made after the files: {tmp}/<name> links
	// to the target.
	symlinks, hardLinks map[string]string
	// inTmp runs the command in {tmp} (its working directory).
	inTmp bool
	code  int
	// stdout and stderr are checked by every check given; none: unchecked.
	stdout, stderr []check
	// after checks what the run left in {tmp}.
	after []fileCheck
}

// check is one thing a stream's text must satisfy.
type check struct {
	op   string // is, has, lacks, ends, line (the last line, no newline), lines (the count of newlines), matches
	text string
	n    int
}

func is(s string) check         { return check{op: "is", text: s} }
func has(s string) check        { return check{op: "has", text: s} }
func lacks(s string) check      { return check{op: "lacks", text: s} }
func ends(s string) check       { return check{op: "ends", text: s} }
func lastLine(s string) check   { return check{op: "line", text: s} }
func lines(n int) check         { return check{op: "lines", n: n} }
func matchesRE(re string) check { return check{op: "matches", text: re} }
func hasAll(s ...string) []check {
	cs := make([]check, len(s))
	for i := range s {
		cs[i] = has(s[i])
	}
	return cs
}

// empty is a stream that must stay empty.
var empty = []check{is("")}

func (c check) run(t *testing.T, stream, got, tmp string) {
	t.Helper()
	want := strings.ReplaceAll(c.text, "{tmp}", tmp)
	switch c.op {
	case "is":
		assert.Equal(t, want, got, stream)
	case "has":
		assert.Contains(t, got, want, stream)
	case "lacks":
		assert.NotContains(t, got, want, stream)
	case "ends":
		assert.True(t, strings.HasSuffix(got, want), "%s ends with %q:\n%s", stream, want, got)
	case "line":
		all := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		assert.Equal(t, want, all[len(all)-1], "%s's last line", stream)
	case "lines":
		assert.Equal(t, c.n, strings.Count(got, "\n"), "%s's lines:\n%s", stream, got)
	case "matches":
		assert.Regexp(t, regexp.MustCompile(want), got, stream)
	default:
		t.Fatalf("no check %q", c.op)
	}
}

// fileCheck checks what a run left in the case's folder.
type fileCheck func(t *testing.T, tmp string)

// file: {tmp}/name exists, and its text passes the checks.
func file(name string, checks ...check) fileCheck {
	return func(t *testing.T, tmp string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(tmp, name))
		require.NoError(t, err)
		for _, c := range checks {
			c.run(t, name, string(b), tmp)
		}
	}
}

// absent: nothing is at {tmp}/name.
func absent(name string) fileCheck {
	return func(t *testing.T, tmp string) {
		t.Helper()
		_, err := os.Lstat(filepath.Join(tmp, name))
		assert.True(t, errors.Is(err, fs.ErrNotExist), "%s exists (%v)", name, err)
	}
}

// dialogFile: {tmp}/name is a valid dialog, and its entries pass check
// (nil: valid is all).
func dialogFile(name string, check func(t *testing.T, es []map[string]any)) fileCheck {
	return func(t *testing.T, tmp string) {
		t.Helper()
		es := readDialog(t, filepath.Join(tmp, name))
		if check != nil {
			check(t, es)
		}
	}
}

// endsWithStatus: a dialog whose complete entry has the status.
func endsWithStatus(name, status string) fileCheck {
	return dialogFile(name, func(t *testing.T, es []map[string]any) {
		assert.Equal(t, status, es[len(es)-1]["status"], name)
	})
}

// dirNames are the names in the folder dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names
}

// namesIn: {tmp}/dir holds exactly these names.
func namesIn(dir string, names ...string) fileCheck {
	return func(t *testing.T, tmp string) {
		t.Helper()
		assert.ElementsMatch(t, names, dirNames(t, filepath.Join(tmp, dir)), dir)
	}
}

// TestCLI runs every case of cliCases.
func TestCLI(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range cliCases() {
		require.False(t, seen[tc.name], "two cases named %q", tc.name)
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) { tc.run(t) })
	}
}

func (tc cliCase) run(t *testing.T) {
	t.Helper()
	tmp := t.TempDir()
	sub := func(s string) string { return strings.ReplaceAll(s, "{tmp}", tmp) }
	for name, text := range tc.files {
		adaptertest.Put(t, filepath.Join(tmp, sub(name)), []byte(sub(text)))
	}
	for name, target := range tc.symlinks {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(tmp, name)), 0o755))
		require.NoError(t, os.Symlink(sub(target), filepath.Join(tmp, name)))
	}
	for name, target := range tc.hardLinks {
		require.NoError(t, os.Link(sub(target), filepath.Join(tmp, name)))
	}
	args := make([]string, len(tc.args))
	for i, a := range tc.args {
		args[i] = sub(a)
	}
	env := map[string]string{"SSE_ARCHIVE": filepath.Join(tmp, "archive"), "SSE_MODEL_NAME": "", "SSE_TASK_ID": ""}
	for k, v := range tc.env {
		env[k] = sub(v)
	}
	if tc.inTmp {
		t.Chdir(tmp)
	}
	r := program{args: args, stdin: strings.NewReader(sub(tc.stdin)), env: env}.run(t)
	require.Equal(t, tc.code, r.code, "stderr:\n%s", r.stderr)
	for _, c := range tc.stdout {
		c.run(t, "stdout", r.stdout, tmp)
	}
	for _, c := range tc.stderr {
		c.run(t, "stderr", r.stderr, tmp)
	}
	for _, f := range tc.after {
		f(t, tmp)
	}
}

// cliCases are the command's argument/stdin/env → stdout/stderr/exit
// cases, by subject. A case needing more than this (a signal, a pipe, a
// terminal, a run compared with another) is a test of its own.
func cliCases() []cliCase {
	var cases []cliCase
	for _, group := range [][]cliCase{
		helpCases(), usageCases(), errorCases(), outputCases(), formatCases(), forcedFormatCases(), clockCases(),
		sameFileCases(), validateCases(), typoCases(), lineCases(), sessionLineCases(), batchCases(), viewCases(), exportCases(), statsCases(), runCases(),
	} {
		cases = append(cases, group...)
	}
	return cases
}

func helpCases() []cliCase {
	cases := []cliCase{
		{name: "help", args: []string{"--help"}, stdout: hasAll("sse-dialog-convert validate dialog.jsonl", "--format"), stderr: empty},
		{name: "version", args: []string{"--version"}, stdout: hasAll("sse-dialog-convert version ")},
		{name: "completion bash", args: []string{"completion", "bash"}, stdout: hasAll("bash completion")},
		{name: "convert is the root's other name", args: []string{"convert", "-o", "-"}, stdin: claudeRun, stdout: hasAll(`"type":"complete"`), stderr: empty},
		{name: "convert help", args: []string{"help", "convert"}, stdout: hasAll("sse-dialog-convert convert transcript.jsonl -o dialog.jsonl"), stderr: empty},
	}
	// Completion knows FILEs at the top level (not only the subcommands),
	// the flags of run and validate, and --format's values: each want is
	// the start of a line of the answer, directive its last line.
	for _, c := range []struct {
		args      []string
		want      []string
		directive string
	}{
		{args: []string{""}, want: []string{"run\t", "validate\t"}, directive: ":0"}, // 0: files too
		{args: []string{"run", "--t"}, want: []string{"--timeout\t", "--tee\t", "--transcript\t", "--task\t"}},
		{args: []string{"run", "--li"}, want: []string{"--linger\t"}},
		{args: []string{"validate", "--j"}, want: []string{"--json\t"}},
		{args: []string{"validate", ""}, directive: ":0"},
		{args: []string{"--format", ""}, want: readFormats(), directive: ":4"},
		{args: []string{"run", "--format", ""}, want: readFormats(), directive: ":4"},
	} {
		tc := cliCase{name: "completion of " + strings.Join(c.args, " ") + "…", args: append([]string{cobra.ShellCompRequestCmd}, c.args...)}
		for _, w := range c.want {
			tc.stdout = append(tc.stdout, matchesRE(`(?m)^`+regexp.QuoteMeta(w)))
		}
		if c.directive != "" {
			tc.stdout = append(tc.stdout, lastLine(c.directive))
		}
		cases = append(cases, tc)
	}
	return cases
}

// usageCases: mistakes in the command line exit 2 with one line that
// ends by pointing at the help.
func usageCases() []cliCase {
	var cases []cliCase
	for _, args := range [][]string{
		{"--bogus"},
		{"--format", "no-such-format"},
		{"--prompt", "a", "--prompt-file", "b"},
		{"--tee", "-o", "-"},
	} {
		cases = append(cases, cliCase{name: "usage: " + strings.Join(args, " "), args: args, code: 2, stdout: empty,
			stderr: []check{ends(" (usage: sse-dialog-convert --help)\n"), lines(1)}})
	}
	// --out-dir and --follow are refused with what they do not go with.
	for _, args := range [][]string{
		{"--out-dir", "d"},
		{"--out-dir", "d", "-"},
		{"--out-dir", "d", "-o", "x", "f"},
		{"--out-dir", "d", "--tee", "f"},
		{"--out-dir", "d", "--follow", "f"},
		{"--out-dir", "d", "--jobs", "-1", "f"},
		{"--follow"},
		{"--follow", "-"},
		{"--follow", "a", "b"},
		{"--follow", "--tee", "a"},
		{"--follow", "--idle-timeout", "-1s", "a"},
	} {
		cases = append(cases, cliCase{name: "usage: " + strings.Join(args, " "), args: args, code: 2,
			stderr: hasAll("(usage: sse-dialog-convert --help)")})
	}
	// Each of these was false once.
	for _, c := range []struct{ args, want string }{
		{"--max-text -2", "--max-text -2: want a size in bytes, or 0 or -1 for no cap"},
		{"--max-line -1", "--max-line -1: want a size in bytes, or 0 for no limit"},
		{"--max-image -1", "--max-image -1: want a size in bytes, or 0 for placeholders only"},
		{"--idle-timeout 1m", "--idle-timeout works only with --follow"},
		{"--clock soon", `--clock "soon": want Unix seconds or an RFC 3339 time`},
	} {
		cases = append(cases, cliCase{name: "usage: " + c.args + " -o FILE", args: append(strings.Fields(c.args), "-o", "{tmp}/d.jsonl"), stdin: claudeRun, code: 2,
			stderr: hasAll(c.want)})
	}
	cases = append(cases,
		cliCase{name: "SOURCE_DATE_EPOCH is named: the environment is wrong, not the command line", args: []string{"-o", "{tmp}/d.jsonl"}, stdin: claudeRun,
			env: map[string]string{"SOURCE_DATE_EPOCH": "yesterday"}, code: 1,
			stderr: hasAll(`SOURCE_DATE_EPOCH="yesterday": want Unix seconds or an RFC 3339 time`)},
		cliCase{name: "--stats=yaml", args: []string{"--stats=yaml"}, code: 2, stderr: hasAll("--stats=yaml: want text or json")},
		// Images: SSEBench's panel draws no data: URL (its Markdown drops
		// them; results and prompts are plain text), so by default each
		// image is a placeholder that says how to carry it; --max-image
		// carries those within the cap (the fixture's PNG is 92 bytes of
		// base64).
		cliCase{name: "images are placeholders by default", args: []string{"-o", "-", "../../testdata/claude/tool-result-images.in.jsonl"},
			stdout: []check{has(`[image image/png 73 bytes: images not carried (--max-image 0)]`), lacks("data:image/png;base64")}},
		cliCase{name: "--max-image carries images within the cap", args: []string{"-o", "-", "--max-image", "1k", "../../testdata/claude/tool-result-images.in.jsonl"},
			stdout: []check{has(`![image/png 73 bytes](data:image/png;base64,iVBORw0KGgo`), lacks("images not carried")}},
		// stats converts with images carried (as export does): its prompt
		// column names them, never their base64.
		cliCase{name: "stats: a prompt's image is named, not its data", args: []string{"stats", "--format", "csv", "../../testdata/claude-session/open-call-at-end.in.jsonl"},
			stdout: []check{has("what is in this screenshot? [image image/png 70 bytes]"), lacks("](data:")}},
		cliCase{name: "--max-image: a larger image is a placeholder naming the cap", args: []string{"-o", "-", "--max-image", "64", "../../testdata/claude/tool-result-images.in.jsonl"},
			stdout: []check{has(`[image image/png 73 bytes: over the 64 bytes image cap (--max-image)]`), lacks("data:image/png;base64")}},
	)
	return cases
}

// formatTitle is a registered format's title.
func formatTitle(format string) string {
	f, ok := registry.Lookup(format)
	if !ok {
		panic("no format " + format)
	}
	return f.Title
}

// sessionFixtures are two Claude Code session files (our fixtures), as
// {tmp}/sessions holds them.
func sessionFixtures() map[string]string {
	files := map[string]string{}
	for _, f := range []string{"api-error-last", "interrupted-last"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "claude-session", f+".in.jsonl"))
		if err != nil {
			panic(err) // the fixtures are the repository's: a test without them is no test
		}
		files["sessions/"+f+".jsonl"] = string(b)
	}
	return files
}

// errorCases: each error is one line, names what was meant when it can,
// and has the exit status the help documents (1 failure, 2 usage). Each
// command line here was seen failing badly.
func errorCases() []cliCase {
	sessions := sessionFixtures()
	return []cliCase{
		{name: "a mistyped flag", args: []string{"--formt", "claude", "x.jsonl"}, code: 2,
			stderr: []check{is("sse-dialog-convert: unknown flag --formt; did you mean --format?\n")}},
		{name: "a mistyped flag of a subcommand", args: []string{"validate", "--jsn"}, code: 2,
			stderr: []check{is("sse-dialog-convert: unknown flag --jsn; did you mean --json?\n")}},
		{name: "a mistyped command before its flag", args: []string{"exprot", "--html", "x"}, code: 2,
			stderr: []check{is("sse-dialog-convert: unknown command \"exprot\"; did you mean \"export\"?\n")}},
		{name: "another command's flag", args: []string{"--html", "x"}, code: 2,
			stderr: []check{is("sse-dialog-convert: unknown flag --html here: it is a flag of export (sse-dialog-convert export --html …)\n")}},
		{name: "an unknown flag", args: []string{"--zzzzzz"}, code: 2,
			stderr: []check{is("sse-dialog-convert: unknown flag --zzzzzz (usage: sse-dialog-convert --help)\n")}},
		{name: "an unknown flag of a subcommand", args: []string{"export", "--zzzzzz"}, code: 2,
			stderr: []check{is("sse-dialog-convert: unknown flag --zzzzzz (usage: sse-dialog-convert export --help)\n")}},
		{name: "a usage error of a subcommand", args: []string{"export", "x.jsonl"}, code: 2,
			stderr: []check{is("sse-dialog-convert: export needs a format: --html (usage: sse-dialog-convert export --help)\n")}},
		{name: "an unknown help topic", args: []string{"help", "zzz"}, code: 2,
			stderr: []check{is("sse-dialog-convert: unknown help topic \"zzz\" (the commands: completion, convert, export, run, stats, validate, view)\n")}},
		{name: "a mistyped help topic", args: []string{"help", "conver"}, code: 2,
			stderr: []check{is("sse-dialog-convert: unknown help topic \"conver\"; did you mean \"convert\"?\n")}},
		{name: "a shell with no completion", args: []string{"completion", "tcsh"}, code: 2,
			stderr: []check{is("sse-dialog-convert: no completion for \"tcsh\": the shells are bash, fish, powershell, zsh (sse-dialog-convert completion SHELL)\n")}},
		{name: "a mistyped shell", args: []string{"completion", "bsh"}, code: 2,
			stderr: []check{is("sse-dialog-convert: no completion for \"bsh\"; did you mean \"bash\"?\n")}},
		{name: "a number that is not one", args: []string{"--max-text", "abc"}, code: 2,
			stderr: []check{is("sse-dialog-convert: --max-text \"abc\": want a size in bytes, such as 16384, 16k or 2M\n")}},
		{name: "a whole number flag", args: []string{"view", "--width", "wide"}, code: 2,
			stderr: []check{is("sse-dialog-convert: --width \"wide\": want a whole number\n")}},
		{name: "a bool flag", args: []string{"--strict=maybe"}, code: 2,
			stderr: []check{is("sse-dialog-convert: --strict \"maybe\": want true or false\n")}},
		{name: "a size out of range", args: []string{"--max-bytes", "9999999999G"}, code: 2,
			stderr: []check{is("sse-dialog-convert: --max-bytes \"9999999999G\": out of range\n")}},
		{name: "a budget too small for the closing entries", args: []string{"--max-bytes", "2k"}, stdin: claudeRun, code: 2,
			stderr: []check{is("sse-dialog-convert: --max-bytes is at least 16k (the dialog's closing entries need a few KiB); 0 turns the budget off (usage: sse-dialog-convert --help)\n")}},
		{name: "the smallest budget", args: []string{"--max-bytes", "16k", "-o", "-"}, stdin: claudeRun, code: 0},
		{name: "a bad clock", args: []string{"--clock", "soon"}, code: 2,
			stderr: []check{is("sse-dialog-convert: --clock \"soon\": want Unix seconds or an RFC 3339 time (2026-01-02T03:04:05Z)\n")}},
		{name: "a bad SOURCE_DATE_EPOCH", args: []string{"-o", "-"}, stdin: claudeRun, env: map[string]string{"SOURCE_DATE_EPOCH": "abc"}, code: 1,
			stderr: []check{is("sse-dialog-convert: SOURCE_DATE_EPOCH=\"abc\": want Unix seconds or an RFC 3339 time (2026-01-02T03:04:05Z); set it to Unix seconds (SOURCE_DATE_EPOCH=0), or unset it\n")}},
		{name: "SOURCE_DATE_EPOCH in view", args: []string{"view", "-"}, stdin: claudeRun, env: map[string]string{"SOURCE_DATE_EPOCH": "abc"}, code: 1,
			stderr: []check{is("sse-dialog-convert: SOURCE_DATE_EPOCH=\"abc\": want Unix seconds or an RFC 3339 time (2026-01-02T03:04:05Z); set it to Unix seconds (SOURCE_DATE_EPOCH=0), or unset it\n")}},
		{name: "a bad TIMEOUT", args: []string{"run", "--", "true"}, env: map[string]string{"TIMEOUT": "soon"}, code: 1,
			stderr: []check{is("sse-dialog-convert: TIMEOUT=\"soon\" is not a number of seconds; set it to seconds (TIMEOUT=1800), or give --timeout, which overrides it\n")}},
		{name: "a duration", args: []string{"run", "--timeout", "soon", "--", "true"}, code: 2,
			stderr: []check{is("sse-dialog-convert: --timeout \"soon\": want seconds (1800) or a duration (30m, 1h30m)\n")}},
		{name: "--jobs without --out-dir", args: []string{"--jobs", "2", "x.jsonl"}, code: 2,
			stderr: []check{is("sse-dialog-convert: --jobs tells how many files --out-dir converts at a time (give --out-dir DIR) (usage: sse-dialog-convert --help)\n")}},
		{name: "validate on a transcript", args: []string{"validate", "../../testdata/claude/amp-stream-json.in.jsonl"}, code: 1,
			stderr: []check{is("sse-dialog-convert: ../../testdata/claude/amp-stream-json.in.jsonl is Claude Code stream-json, an input, not a dialog: convert it first (sse-dialog-convert ../../testdata/claude/amp-stream-json.in.jsonl -o dialog.jsonl), then validate the dialog\n")}},
		{name: "validate on a transcript on stdin", args: []string{"validate"}, stdin: claudeRun, code: 1,
			stderr: []check{is("sse-dialog-convert: standard input is Claude Code stream-json, an input, not a dialog: convert it first (sse-dialog-convert -o dialog.jsonl < FILE), then validate the dialog\n")}},
		{name: "validate on a session file", args: []string{"validate", "../../testdata/claude-session/api-error-last.in.jsonl"}, code: 1,
			stderr: []check{is("sse-dialog-convert: ../../testdata/claude-session/api-error-last.in.jsonl is a Claude Code session file (~/.claude/projects), an input, not a dialog: convert it first (sse-dialog-convert ../../testdata/claude-session/api-error-last.in.jsonl -o dialog.jsonl), then validate the dialog\n")}},
		{name: "validate on a folder of sessions", args: []string{"validate", "{tmp}/sessions"}, files: sessions, code: 1,
			stderr: []check{is("sse-dialog-convert: {tmp}/sessions is a folder of 2 sessions, an input: convert it first (sse-dialog-convert --out-dir dialogs {tmp}/sessions), then validate the dialogs (dialogs/*.dialog.jsonl)\n")}},
		{name: "validate on a dialog", args: []string{"validate", "../../testdata/claude/amp-stream-json.out.jsonl"}, stderr: empty},
		{name: "view on a folder of sessions", args: []string{"view", "{tmp}/sessions"}, files: sessions, code: 2,
			stderr: []check{is("sse-dialog-convert: {tmp}/sessions holds 2 sessions and view shows one: name it (sse-dialog-convert view {tmp}/sessions/api-error-last.jsonl), or export them all (sse-dialog-convert export --html --out-dir DIR {tmp}/sessions)\n")}},
		{name: "export of a folder of sessions to one page", args: []string{"export", "--html", "{tmp}/sessions"}, files: sessions, code: 2,
			stderr: []check{is("sse-dialog-convert: {tmp}/sessions holds 2 sessions, a page each: give --out-dir DIR (sse-dialog-convert export --html --out-dir DIR {tmp}/sessions)\n")}},
		{name: "export of a folder of sessions, a page each", args: []string{"export", "--html", "--out-dir", "{tmp}/pages", "{tmp}/sessions"}, files: sessions,
			stderr: empty, after: []fileCheck{namesIn("pages", "api-error-last.html", "interrupted-last.html", "index.html")}},
	}
}

// outputCases: where the dialog goes, and what happens when it cannot.
func outputCases() []cliCase {
	run := map[string]string{"run.jsonl": claudeRun}
	earlier := map[string]string{"run.jsonl": claudeRun, "d.jsonl": "an earlier dialog\n"}
	return []cliCase{
		{name: "--tee copies the input unchanged", args: []string{"--tee", "-o", "{tmp}/d.jsonl"}, stdin: "noise\r\n" + claudeRun + "{\"no\":\"final newline\"}",
			stdout: []check{is("noise\r\n" + claudeRun + "{\"no\":\"final newline\"}")}},
		{name: "output into a folder", args: []string{"-o", "{tmp}"}, stdin: claudeRun, code: 1,
			stderr: []check{is("sse-dialog-convert: cannot write the dialog: open {tmp}: is a directory\n")}},
		{name: "output below a file", args: []string{"-o", "{tmp}/file/d.jsonl"}, stdin: claudeRun, files: map[string]string{"file": ""}, code: 1,
			stderr: []check{is("sse-dialog-convert: cannot create the dialog's folder: mkdir {tmp}/file: not a directory\n")}},
		{name: "output to a full disk", args: []string{"-o", "/dev/full"}, stdin: claudeRun, code: 1,
			stderr: []check{is("sse-dialog-convert: writing the dialog to /dev/full: write: no space left on device\n")}},
		// Every FILE is opened before the output is touched: a missing one
		// is one line, exit 1, and an existing -o file is left as it was.
		{name: "a missing second FILE leaves the output alone", args: []string{"-o", "{tmp}/d.jsonl", "{tmp}/run.jsonl", "{tmp}/missing.jsonl"}, files: earlier, code: 1,
			stderr: []check{is("sse-dialog-convert: open {tmp}/missing.jsonl: no such file or directory\n")}, after: []fileCheck{file("d.jsonl", is("an earlier dialog\n"))}},
		{name: "a missing first FILE leaves the output alone", args: []string{"-o", "{tmp}/d.jsonl", "{tmp}/missing.jsonl", "{tmp}/run.jsonl"}, files: earlier, code: 1,
			stderr: []check{is("sse-dialog-convert: open {tmp}/missing.jsonl: no such file or directory\n")}, after: []fileCheck{file("d.jsonl", is("an earlier dialog\n"))}},
		{name: "a missing FILE creates no output", args: []string{"-o", "{tmp}/new/d.jsonl", "{tmp}/missing.jsonl"}, code: 1,
			after: []fileCheck{absent("new")}},
		// An input that opens but cannot be read to its end (corrupt gzip)
		// is reported; the others still convert, into a valid dialog.
		{name: "an unreadable input still gives a valid dialog", args: []string{"-o", "{tmp}/d.jsonl", "{tmp}/cut.jsonl.gz", "{tmp}/run.jsonl"},
			files: map[string]string{"run.jsonl": claudeRun, "cut.jsonl.gz": "\x1f\x8bnot gzip at all"}, code: 1,
			stderr: []check{is("sse-dialog-convert: reading {tmp}/cut.jsonl.gz: gzip: invalid header\n")}, after: []fileCheck{endsWithStatus("d.jsonl", "success")}},
		{name: "garbage gives a valid dialog, in the archive", stdin: "\x00\x01\xff garbage {{{\n\x1b[31mred\x1b[0m\n",
			after: []fileCheck{dialogFile("archive/dialog.jsonl", func(t *testing.T, es []map[string]any) {
				assert.Equal(t, "init", es[0]["type"])
				assert.Equal(t, "error", es[1]["status"])
				assert.Equal(t, "incomplete", es[1]["reason"])
			})}},
		{name: "flags override the environment and the stream", args: []string{"-o", "{tmp}/d.jsonl", "--prompt-file", "{tmp}/prompt.txt", "--task", "T", "--cwd", "/c", "--agent", "my-agent"},
			stdin: claudeRun, env: map[string]string{"SSE_MODEL_NAME": "env-model"}, files: map[string]string{"prompt.txt": "Fix the bug\n"},
			after: []fileCheck{dialogFile("d.jsonl", func(t *testing.T, es []map[string]any) {
				assert.Equal(t, map[string]any{"task": "T", "cwd": "/c", "model": "env-model", "agent": "my-agent", "clock": "arrival"}, es[0]["data"])
				assert.Equal(t, "prompt", es[1]["type"])
				assert.Equal(t, "Fix the bug\n", es[1]["content"])
			})}},
		{name: "--model overrides $SSE_MODEL_NAME", args: []string{"-o", "{tmp}/d.jsonl", "--model", "flag-model"}, stdin: claudeRun, env: map[string]string{"SSE_MODEL_NAME": "env-model"},
			after: []fileCheck{dialogFile("d.jsonl", func(t *testing.T, es []map[string]any) {
				assert.Equal(t, "flag-model", es[0]["data"].(map[string]any)["model"])
			})}},
		// An output that does not exist yet, or that is a device, is no input.
		{name: "an output beside the input", args: []string{"{tmp}/run.jsonl", "-o", "{tmp}/run.dialog.jsonl"}, files: run},
		{name: "an output that is a device", args: []string{"/dev/null", "-o", "/dev/null"}},
	}
}

// formatCases: an input in no format the conversion can use gives one
// line saying what it looks like and exit 1; the dialog is still
// written, and valid. FILEs of different formats are refused.
func formatCases() []cliCase {
	var cases []cliCase
	for _, c := range []struct {
		name, in string
		args     []string
		want     string // the line; empty: none, exit 0
	}{
		{"codex forced on Claude", claudeRun, []string{"--format", "codex"},
			"no codex events in standard input; it looks like Claude Code stream-json (--format claude)"},
		{"claude forced on Codex", codexLines, []string{"--format", "claude"},
			"no claude events in standard input; it looks like `codex exec --json` output (--format codex)"},
		{"claude forced on a rollout", rolloutLines, []string{"--format", "claude"},
			"no claude events in standard input; it looks like " + looksLike("codex-rollout")},
		{"codex forced on objects of no format", `{"a":1}` + "\n", []string{"--format", "codex"},
			"no codex events in standard input; its records are JSON objects of no known format"},
		{"a rollout in auto", rolloutLines, nil, unreadable("codex-rollout")},
		{"a Claude session file in auto", claudeSessionLines, nil, unreadable("claude-session")},
		{"Gemini CLI in auto", geminiLines, nil, unreadable("gemini")},
		{"opencode in auto", opencodeLines, nil, unreadable("opencode")},
		{"Cursor CLI in auto", cursorLines, nil, unreadable("cursor")},
		{"objects of no format in auto", `{"a":1}` + "\n" + `{"b":2}` + "\n", nil,
			"no events of a format it reads (" + inputs.FormatList(registry.Readable()) + ") in standard input; its records are JSON objects of no known format"},
		{"the format asked for is converted as asked", cursorLines, []string{"--format", "claude"}, ""},
		{"Claude in auto", claudeRun, nil, ""},
		{"Codex in auto", codexLines, nil, ""},
		{"nothing to judge: no JSON object", "not json\n", nil, ""},
		{"nothing to judge: empty", "", []string{"--format", "codex"}, ""},
	} {
		tc := cliCase{name: "format: " + c.name, stdin: c.in, args: append([]string{"-o", "{tmp}/d.jsonl"}, c.args...),
			after: []fileCheck{dialogFile("d.jsonl", nil)}}
		if c.want == "" {
			tc.stderr = []check{lacks("looks like")}
		} else {
			tc.code, tc.stderr = 1, []check{lastLine(name + ": " + c.want)}
		}
		cases = append(cases, tc)
	}
	for _, c := range []struct {
		name         string
		first, other string // contents
		fa, fb       string // their formats
	}{
		{"Claude then Codex", claudeRun, codexLines, "claude", "codex"},
		{"Gemini then opencode", geminiLines, opencodeLines, "gemini", "opencode"},
		{"Codex then Cursor", codexLines, cursorLines, "codex", "cursor"},
	} {
		cases = append(cases, cliCase{name: "FILEs of different formats: " + c.name, args: []string{"{tmp}/a.jsonl", "{tmp}/b.jsonl", "-o", "{tmp}/x.jsonl", "--strict"},
			files: map[string]string{"a.jsonl": c.first, "b.jsonl": c.other}, code: 2, stdout: empty,
			stderr: []check{is(name + ": {tmp}/a.jsonl is " + formatTitle(c.fa) + " and {tmp}/b.jsonl is " + formatTitle(c.fb) +
				": FILEs of different formats are not one stream; convert each to a dialog of its own with --out-dir DIR\n")},
			after: []fileCheck{absent("x.jsonl")}})
	}
	cases = append(cases, cliCase{name: "FILEs of one format are one stream", args: []string{"{tmp}/a.jsonl", "{tmp}/b.jsonl", "-o", "{tmp}/x.jsonl", "--strict"},
		files: map[string]string{"a.jsonl": claudeRun, "b.jsonl": claudeRun}, after: []fileCheck{endsWithStatus("x.jsonl", "success")}})
	return cases
}

// forcedFormatCases: a format forced on input that holds none of its
// events never ends in success, whatever its adapter made of the other
// format's objects (the Cursor and Claude adapters read Gemini's result
// line as an ending); its own events convert as they say.
func forcedFormatCases() []cliCase {
	inputs := map[string]string{"claude": claudeRun, "codex": codexLines, "gemini": geminiLines, "opencode": opencodeLines, "cursor": cursorLines}
	formats := slices.Sorted(maps.Keys(inputs))
	var cases []cliCase
	for _, forced := range formats {
		for _, of := range formats {
			// Cursor's stream is Claude-compatible: each reads the other's
			// lines as its own, and converts them as asked.
			if of == forced || of+forced == "cursorclaude" || of+forced == "claudecursor" {
				continue
			}
			cases = append(cases, cliCase{name: "--format " + forced + " on " + of, stdin: inputs[of], args: []string{"--format", forced, "-o", "{tmp}/d.jsonl"}, code: 1,
				stderr: hasAll("no " + forced + " events in standard input"),
				after: []fileCheck{dialogFile("d.jsonl", func(t *testing.T, es []map[string]any) {
					c := es[len(es)-1]
					assert.Equal(t, "error", c["status"])
					assert.Equal(t, "wrong_format", c["reason"])
					assert.Equal(t, "--format "+forced+": the input held no "+forced+" events", c["message"])
				})}})
		}
	}
	return append(cases, cliCase{name: "--format gemini on gemini", stdin: geminiLines, args: []string{"--format", "gemini", "-o", "{tmp}/d.jsonl"},
		after: []fileCheck{endsWithStatus("d.jsonl", "success")}})
}

// clockCases: a saved file read offline: init's clock says "source" when
// its first entries carry timestamps, "conversion" when nothing does; its
// cwd is the stream's, else unknown (""), never the converter's folder.
// Live, from standard input, the times are those the lines arrived at,
// and the process's folder is the best fact; with the clock pinned, its
// times are no one's.
func clockCases() []cliCase {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	initIs := func(clock, cwd string) []fileCheck {
		return []fileCheck{dialogFile("d.jsonl", func(t *testing.T, es []map[string]any) {
			data := es[0]["data"].(map[string]any)
			assert.Equal(t, clock, data["clock"], "clock")
			assert.Equal(t, cwd, data["cwd"], "cwd")
		})}
	}
	clockIs := func(clock string) []fileCheck {
		return []fileCheck{dialogFile("d.jsonl", func(t *testing.T, es []map[string]any) {
			assert.Equal(t, clock, es[0]["data"].(map[string]any)["clock"], "clock")
		})}
	}
	var cases []cliCase
	for _, c := range []struct {
		name, in   string
		clock, cwd string
		liveCWD    string
	}{
		{"Gemini: timestamps, no cwd", geminiLines, "source", "", wd},
		{"Codex exec --json: neither", codexLines, "conversion", "", wd},
		{"Claude stream-json: a cwd, no timestamps", claudeRun, "conversion", "/src", "/src"},
	} {
		live, pinned := "arrival", "conversion"
		if c.clock == "source" {
			live, pinned = "source", "source"
		}
		cases = append(cases,
			cliCase{name: "clock and cwd: " + c.name + ", saved", args: []string{"{tmp}/in.jsonl", "-o", "{tmp}/d.jsonl"}, files: map[string]string{"in.jsonl": c.in},
				after: initIs(c.clock, c.cwd)},
			cliCase{name: "clock and cwd: " + c.name + ", live", stdin: c.in, args: []string{"-o", "{tmp}/d.jsonl"}, after: initIs(live, c.liveCWD)},
			cliCase{name: "clock and cwd: " + c.name + ", live, --clock", stdin: c.in, args: []string{"-o", "{tmp}/d.jsonl", "--clock", "0"}, after: clockIs(pinned)},
		)
	}
	return cases
}

// sameFileCases: whatever path leads to it (the same name, a symlink, a
// hard link, a symlinked folder), an output that is an input is refused
// before anything is written: one line naming both, exit 2; no file
// changes, none is made, and the agent is not started.
func sameFileCases() []cliCase {
	files := map[string]string{"t.jsonl": claudeRun, "prompt.txt": "Fix it.\n", "t": claudeRun, "t.dialog.jsonl": claudeRun}
	symlinks := map[string]string{"link.jsonl": "{tmp}/t.jsonl", "same-folder": "{tmp}"}
	hardLinks := map[string]string{"hard.jsonl": "{tmp}/t.jsonl"}
	after := []fileCheck{namesIn(".", "t.jsonl", "prompt.txt", "t", "t.dialog.jsonl", "link.jsonl", "same-folder", "hard.jsonl")} // agent-started is not among them
	for name, text := range files {
		after = append(after, file(name, is(text)))
	}
	agent := []string{"--", "touch", "{tmp}/agent-started"}
	var cases []cliCase
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"-o is the FILE", []string{"{tmp}/t.jsonl", "-o", "{tmp}/t.jsonl"},
			"refusing to write the dialog to {tmp}/t.jsonl: it is the same file as the input {tmp}/t.jsonl"},
		{"-o is a symlink to the FILE", []string{"{tmp}/t.jsonl", "-o", "{tmp}/link.jsonl"},
			"refusing to write the dialog to {tmp}/link.jsonl: it is the same file as the input {tmp}/t.jsonl"},
		{"the FILE is a symlink to -o", []string{"{tmp}/link.jsonl", "-o", "{tmp}/t.jsonl"},
			"refusing to write the dialog to {tmp}/t.jsonl: it is the same file as the input {tmp}/link.jsonl"},
		{"-o is a hard link to the FILE", []string{"{tmp}/t.jsonl", "-o", "{tmp}/hard.jsonl"},
			"refusing to write the dialog to {tmp}/hard.jsonl: it is the same file as the input {tmp}/t.jsonl"},
		{"-o through a symlinked folder", []string{"{tmp}/t.jsonl", "-o", "{tmp}/same-folder/t.jsonl"},
			"refusing to write the dialog to {tmp}/same-folder/t.jsonl: it is the same file as the input {tmp}/t.jsonl"},
		{"-o is the second FILE", []string{"{tmp}/prompt.txt", "{tmp}/t.jsonl", "-o", "{tmp}/t.jsonl"},
			"refusing to write the dialog to {tmp}/t.jsonl: it is the same file as the input {tmp}/t.jsonl"},
		{"-o is --prompt-file", []string{"{tmp}/t.jsonl", "--prompt-file", "{tmp}/prompt.txt", "-o", "{tmp}/prompt.txt"},
			"refusing to write the dialog to {tmp}/prompt.txt: it is the same file as --prompt-file {tmp}/prompt.txt"},
		{"--follow -o the file followed", []string{"--follow", "{tmp}/later.jsonl", "-o", "{tmp}/later.jsonl"},
			"refusing to write the dialog to {tmp}/later.jsonl: it is the file followed"},
		// t's dialog would be t.dialog.jsonl, an input.
		{"--out-dir onto an input", []string{"--out-dir", "{tmp}/same-folder", "{tmp}/t.dialog.jsonl", "{tmp}/t"},
			"refusing to write the dialog to {tmp}/same-folder/t.dialog.jsonl: it is the same file as the input {tmp}/t.dialog.jsonl"},
		{"run --transcript is --stdin-file", append([]string{"run", "--transcript", "{tmp}/t.jsonl", "--stdin-file", "{tmp}/link.jsonl", "-o", "{tmp}/d.jsonl"}, agent...),
			"refusing to write the transcript to {tmp}/t.jsonl: it is the same file as --stdin-file {tmp}/link.jsonl"},
		{"run -o is --prompt-file", append([]string{"run", "--prompt-file", "{tmp}/prompt.txt", "-o", "{tmp}/prompt.txt", "--no-transcript"}, agent...),
			"refusing to write the dialog to {tmp}/prompt.txt: it is the same file as --prompt-file {tmp}/prompt.txt"},
		{"run --transcript is the dialog by another name", append([]string{"run", "--transcript", "{tmp}/hard.jsonl", "-o", "{tmp}/t.jsonl"}, agent...),
			"refusing to write the transcript to {tmp}/hard.jsonl: it is the same file as the dialog {tmp}/t.jsonl"},
	} {
		cases = append(cases, cliCase{name: "same file: " + c.name, args: c.args, files: files, symlinks: symlinks, hardLinks: hardLinks, code: 2,
			stdout: empty, stderr: []check{is(name + ": " + c.want + "\n")}, after: after})
	}
	return cases
}

// validateCases: validate says nothing of a valid dialog, and names each
// finding of an invalid one with its file and line, in words or --json.
func validateCases() []cliCase {
	const good = "../../testdata/claude/text-only.out.jsonl"
	bad := map[string]string{"bad.jsonl": `{"seq":1,"ts":"x","type":"init"}` + "\n"}
	goodReport := `{"file":"` + good + `","valid":true,"findings":[]}` + "\n"
	return []cliCase{
		{name: "validate a dialog", args: []string{"validate", good}, stdout: empty},
		{name: "validate a good and a bad dialog", args: []string{"validate", good, "{tmp}/bad.jsonl"}, files: bad, code: 1,
			stdout: hasAll("{tmp}/bad.jsonl:1: seq 1 where 0 was expected\n", "{tmp}/bad.jsonl:1: no complete entry")},
		{name: "validate --json", args: []string{"validate", "--json", good, "{tmp}/bad.jsonl"}, files: bad, code: 1,
			stdout: []check{lines(2), matchesRE("^" + regexp.QuoteMeta(goodReport)), has("\n" + `{"file":"{tmp}/bad.jsonl","valid":false,"findings":[{"line":1,`)}},
		{name: "validate of empty input: an empty dialog", args: []string{"validate", "-"}, code: 1},
	}
}

// typoCases: a first argument that is no file and is close to a
// subcommand's name is a typo: one line, exit 2, and the live dialog in
// $SSE_ARCHIVE stays as it was. A file of that name is a FILE.
func typoCases() []cliCase {
	live := map[string]string{"archive/dialog.jsonl": "the live dialog\n"}
	kept := []fileCheck{file("archive/dialog.jsonl", is("the live dialog\n"))}
	var cases []cliCase
	for _, c := range []struct{ arg, want string }{
		{"valdiate", `unknown command "valdiate"; did you mean "validate"?`},
		{"Validate", `unknown command "Validate"; did you mean "validate"?`},
		{"rnu", `unknown command "rnu"; did you mean "run"?`},
		{"rn", `unknown command "rn"; did you mean "run"?`},
		{"hlep", `unknown command "hlep"; did you mean "help"?`},
		{"completoin", `unknown command "completoin"; did you mean "completion"?`},
		{"version", `unknown command "version"; did you mean "--version"?`},
		{"verison", `unknown command "verison"; did you mean "--version"?`},
	} {
		cases = append(cases, cliCase{name: "typo: " + c.arg, args: []string{c.arg, "x.jsonl"}, stdin: claudeRun, files: live, inTmp: true, code: 2,
			stdout: empty, stderr: []check{is(name + ": " + c.want + "\n")}, after: kept})
	}
	// Far from every name, or looking like a path: a FILE, which must open
	// before anything is written.
	for _, arg := range []string{"transcript", "rm", "run.jsonl", "./valdiate"} {
		cases = append(cases, cliCase{name: "no typo: " + arg, args: []string{arg}, stdin: claudeRun, files: live, inTmp: true, code: 1,
			stderr: hasAll("no such file or directory"), after: kept})
	}
	// A file that exists is a FILE, whatever its name.
	cases = append(cases, cliCase{name: "a file named like a typo", args: []string{"valdiate", "-o", "d.jsonl"}, files: map[string]string{"valdiate": claudeRun}, inTmp: true,
		after: []fileCheck{dialogFile("d.jsonl", func(t *testing.T, es []map[string]any) { assert.Equal(t, "success", es[2]["status"]) })}})
	return cases
}

// lineCases: lines that are broken, or too long, are skipped, reported
// and counted; what follows them converts.
func lineCases() []cliCase {
	bad := "\ufeffnot json\n" + strings.Replace(claudeRun, "\n", "\n[1]\n\n", 1)
	runLines := strings.Split(claudeRun, "\n")
	long := runLines[0] + "\n" + strings.Replace(runLines[1], `"text":"hi"`, `"text":"`+strings.Repeat("x", 1<<20)+`"`, 1) + "\n" + runLines[2] + "\n"
	cases := []cliCase{
		{name: "bad lines are skipped and reported", stdin: bad, args: []string{"-o", "{tmp}/d.jsonl"},
			stderr: []check{is("<stdin>:1: skipped: not valid JSON (\"not json\"…)\n<stdin>:3: skipped: a JSON value that is not an object (\"1\"…)\n")},
			after:  []fileCheck{endsWithStatus("d.jsonl", "success")}},
		{name: "--strict fails on bad lines, the whole dialog written", stdin: bad, args: []string{"-o", "{tmp}/d.jsonl", "--strict"}, code: 1,
			stderr: hasAll("--strict: 2 input lines were skipped as broken"), after: []fileCheck{endsWithStatus("d.jsonl", "success")}},
		{name: "--strict: one line was skipped", stdin: "noise\n" + claudeRun, args: []string{"--strict", "-o", "{tmp}/d.jsonl"}, code: 1,
			stderr: hasAll("--strict: 1 input line was skipped as broken\n")},
		{name: "a line over --max-line is skipped", stdin: long, args: []string{"--max-line", "65536", "-o", "{tmp}/d.jsonl"},
			stderr: []check{is("<stdin>:2: skipped: longer than the line limit of 65536 bytes (--max-line)\n")},
			after: []fileCheck{dialogFile("d.jsonl", func(t *testing.T, es []map[string]any) {
				assert.Equal(t, []string{"init", "complete"}, []string{es[0]["type"].(string), es[1]["type"].(string)})
				assert.Equal(t, "success", es[1]["status"], "the result after the long line was read")
			})}},
		{name: "a line over --max-line fails --strict", stdin: long, args: []string{"--max-line", "65536", "--strict", "-o", "{tmp}/d.jsonl"}, code: 1,
			stderr: hasAll("--strict: 1 input line was skipped as broken\n")},
	}
	for _, limit := range []string{"0", "2000000"} {
		cases = append(cases, cliCase{name: "a line under --max-line " + limit, stdin: long, args: []string{"--max-line", limit, "-o", "{tmp}/d.jsonl"}, stderr: empty,
			after: []fileCheck{dialogFile("d.jsonl", func(t *testing.T, es []map[string]any) { assert.Len(t, es, 3) })}})
	}
	return cases
}

// sessionLineCases: --max-line reaches the session scan: a valid line
// longer than it is skipped with that reason, reported at its own line of
// the file (the stream the adapter reads has a header line of its own,
// which shifted every number by one and more).
func sessionLineCases() []cliCase {
	lines := strings.Split(strings.TrimSpace(mustRead("../../testdata/claude-session/print-mode-2.1.in.jsonl")), "\n")
	long := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `"type":"assistant"`) })
	if long < 0 {
		panic("print-mode-2.1 has no assistant line")
	}
	lines[long] = strings.Replace(lines[long], `"type":"assistant"`, `"type":"assistant","padding":"`+strings.Repeat("x", 5000)+`"`, 1)
	session := map[string]string{"s.jsonl": strings.Join(lines, "\n") + "\n"}
	n := strconv.Itoa(long + 1)
	return []cliCase{
		{name: "a session line over --max-line", args: []string{"{tmp}/s.jsonl", "-o", "-", "--max-line", "1000"}, files: session,
			stderr: []check{is("{tmp}/s.jsonl:" + n + ": skipped: longer than the line limit of 1000 bytes (--max-line)" + frame.Preview([]byte(lines[long])) + "\n")},
			stdout: hasAll("⚠ line " + n + " of the session file could not be read (longer than the line limit of 1000 bytes (--max-line)): skipped")},
		{name: "a session line under --max-line 0", args: []string{"{tmp}/s.jsonl", "-o", "-", "--max-line", "0"}, files: session,
			stderr: empty, stdout: []check{lacks("⚠")}},
	}
}

// batchCases: the command lines of --out-dir's lists and names.
func batchCases() []cliCase {
	runs := map[string]string{"list.txt": "{tmp}/runs/b/transcript.jsonl\n\n{tmp}/runs/c/transcript.jsonl\n"}
	for dir, src := range map[string]string{"a": "claude/text-only", "b": "codex/current-commands", "c": "claude/subagent-agent"} {
		runs["runs/"+dir+"/transcript.jsonl"] = mustRead("../../testdata/" + src + ".in.jsonl")
	}
	outX := []string{"--out-dir", "{tmp}/x", "--clock", "0"}
	var cases []cliCase
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		code  int
		want  string
	}{
		{"--files-from without --out-dir", []string{"--files-from", "{tmp}/list.txt", "-o", "{tmp}/d.jsonl"}, "", 2, "--files-from lists the FILEs of --out-dir"},
		{"-0 without --files-from", append(outX, "-0", "{tmp}/runs/a/transcript.jsonl"), "", 2, "-0 tells how --files-from separates names"},
		{"--files-from a missing list", append(outX, "--files-from", "{tmp}/missing.txt"), "", 1, "cannot read --files-from: open {tmp}/missing.txt"},
		{"--files-from NUL-separated without -0", append(outX, "--files-from", "-"), "{tmp}/runs/a/transcript.jsonl\x00{tmp}/runs/b/transcript.jsonl\x00{tmp}/runs/c/transcript.jsonl", 2,
			"--files-from: the list is NUL-separated: add -0"},
		{"--files-from listing standard input", append(outX, "--files-from", "-"), "-\n", 2, `--files-from: "-" is no file name`},
	} {
		cases = append(cases, cliCase{name: "batch: " + c.name, args: c.args, stdin: c.stdin, files: runs, code: c.code,
			stderr: hasAll(c.want), after: []fileCheck{absent("x")}})
	}
	return append(cases,
		// A folder holding nothing but bad entries is no format's: the first
		// one's error is told, exit 1.
		cliCase{name: "a folder of bad entries only", args: []string{"{tmp}/dir", "-o", "{tmp}/out/d.jsonl"}, symlinks: map[string]string{"dir/dangling.jsonl": "{tmp}/dir/missing.jsonl"}, code: 1,
			stderr: hasAll("{tmp}/dir/dangling.jsonl: no such file or directory")},
		cliCase{name: "batch: an empty --files-from converts nothing, and says so", args: []string{"--out-dir", "{tmp}/empty", "--clock", "0", "--files-from", os.DevNull},
			stdout: empty, stderr: []check{is(name + ": 0 files: 0 converted, 0 failed; 0 entries, 0 input lines skipped\n")}},
		cliCase{name: "batch: a FILE outside --base", args: []string{"--out-dir", "{tmp}/dialogs", "--base", "{tmp}/runs/b", "{tmp}/runs/a/transcript.jsonl"}, files: runs, code: 2,
			stderr: []check{is(name + ": {tmp}/runs/a/transcript.jsonl is not below --base {tmp}/runs/b: give a --base that holds every FILE\n")}},
		cliCase{name: "batch: --base without --out-dir", args: []string{"--base", "{tmp}/runs", "{tmp}/runs/a/transcript.jsonl"}, files: runs, code: 2,
			stderr: hasAll("--base names the dialogs of --out-dir (give --out-dir DIR)")},
	)
}

// longResult is a Claude transcript whose one Bash result is 2,000
// numbered lines (22 KiB): more than the default --max-text.
func longResult() string {
	var out strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&out, `line %04d\n`, i)
	}
	return strings.Join([]string{
		`{"type":"system","subtype":"init","cwd":"/w","session_id":"s1","model":"m","tools":["Bash"]}`,
		`{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"seq"}}]},"session_id":"s1"}`,
		`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"` + out.String() + `"}]},"session_id":"s1"}`,
		`{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"done","session_id":"s1"}`,
	}, "\n") + "\n"
}

const showcase = "../../testdata/view/showcase.dialog.jsonl"

func viewCases() []cliCase {
	long := map[string]string{"long.jsonl": longResult()}
	return []cliCase{
		{name: "view --redact", args: []string{"view", "--full", "--redact", `parser\.c`, "--redact", "strcpy", showcase},
			stdout: []check{lacks("parser.c"), lacks("strcpy"), has("[REDACTED]")}},
		{name: "view --color sometimes", args: []string{"view", "--color", "sometimes", showcase}, code: 2, stderr: hasAll("--color")},
		// --idle-timeout reads plain seconds, as the converter's does, and
		// refuses a negative one.
		{name: "view --idle-timeout in seconds", args: []string{"view", "--follow", "--idle-timeout", "30", showcase}},
		{name: "view --idle-timeout negative", args: []string{"view", "--idle-timeout", "-3", showcase}, code: 2, stderr: hasAll("--idle-timeout cannot be negative")},
		// --max-text sets the cap of a conversion on the fly, for view and
		// export --html; the default is convert's 16 KiB (the first 1,489 lines).
		{name: "view: --max-text by default", args: []string{"view", "--full", "--no-pager", "{tmp}/long.jsonl"}, files: long,
			stdout: []check{has("line 1000"), lacks("line 1999"), has("bytes cut")}},
		{name: "view --max-text 1k: about 100 lines", args: []string{"view", "--full", "--no-pager", "--max-text", "1k", "{tmp}/long.jsonl"}, files: long,
			stdout: []check{has("line 0050"), lacks("line 0200")}},
		{name: "view --max-text 0", args: []string{"view", "--full", "--no-pager", "--max-text", "0", "{tmp}/long.jsonl"}, files: long,
			stdout: []check{has("line 1999"), lacks("bytes cut")}},
		{name: "view --max-text negative", args: []string{"view", "--max-text", "-2", "{tmp}/long.jsonl"}, files: long, code: 2, stderr: hasAll("--max-text")},
		{name: "export --html --max-text 0", args: []string{"export", "--html", "--max-text", "0", "-o", "-", "{tmp}/long.jsonl"}, files: long, stdout: hasAll("line 1999")},
		{name: "export --html: --max-text by default", args: []string{"export", "--html", "-o", "-", "{tmp}/long.jsonl"}, files: long, stdout: []check{lacks("line 1999")}},
	}
}

func exportCases() []cliCase {
	var cases []cliCase
	for _, args := range [][]string{
		{"export", "x.jsonl"},
		{"export", "--html", "-o", "a.html", "x.jsonl", "y.jsonl"},
		{"export", "--html", "-o", "a.html", "--out-dir", "d", "x.jsonl"},
		{"export", "--html", "--redact", "(", "x.jsonl"},
		{"export", "--html"},
	} {
		cases = append(cases, cliCase{name: "usage: " + strings.Join(args, " "), args: args, code: 2})
	}
	// export never writes a page over an input: -o naming the FILE, or an
	// --out-dir page that is one (its name a hard link to the input), is
	// refused before anything is written.
	input := map[string]string{"d.jsonl": mustRead(showcase)}
	cases = append(cases,
		cliCase{name: "export -o the input", args: []string{"export", "--html", "-o", "{tmp}/d.jsonl", "{tmp}/d.jsonl"}, files: input, code: 2,
			stderr: hasAll("refusing to write the page to {tmp}/d.jsonl: it is the same file as the input {tmp}/d.jsonl"), after: []fileCheck{file("d.jsonl", is(input["d.jsonl"]))}},
		cliCase{name: "export --out-dir onto the input", args: []string{"export", "--html", "--out-dir", "{tmp}", "{tmp}/d.jsonl"}, files: input, hardLinks: map[string]string{"d.html": "{tmp}/d.jsonl"}, code: 2,
			stderr: hasAll("refusing to write the page to {tmp}/d.html"), after: []fileCheck{file("d.jsonl", is(input["d.jsonl"]))}},
	)
	return append(cases,
		cliCase{name: "export --html -o FILE", args: []string{"export", "--html", "-o", "{tmp}/run.html", "../../testdata/claude/subagent-agent.in.jsonl"},
			after: []fileCheck{file("run.html", matchesRE(`^<!DOCTYPE html>`), has("Content-Security-Policy"), has("TODO: retry"))}}, // the converted dialog is in the page
		cliCase{name: "export --html to stdout", args: []string{"export", "--html", "-o", "-", showcase}, stdout: []check{matchesRE(`^<!DOCTYPE html>`)}},
		cliCase{name: "export --redact", args: []string{"export", "--html", "--redact", "TODO", "--redact", `db\.go`, "-o", "{tmp}/r.html", "../../testdata/claude/subagent-agent.out.jsonl"},
			after: []fileCheck{file("r.html", lacks("TODO"), lacks("db.go"))}},
		cliCase{name: "export without -o: the input's name with .html, here", args: []string{"export", "--html", "d/showcase.dialog.jsonl"}, inTmp: true,
			files: map[string]string{"d/showcase.dialog.jsonl": mustRead(showcase)}, after: []fileCheck{namesIn(".", "d", "showcase.html")}},
	)
}

// mustRead reads a fixture of the repository.
func mustRead(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err) // the fixtures are the repository's: a test without them is no test
	}
	return string(b)
}

func statsCases() []cliCase {
	good := map[string]string{"good.jsonl": statsDialog("codex", "success", 1, 1, 1, 1, "")}
	cases := []cliCase{
		// A run that cannot be read is a row that says why, and the command
		// exits 1.
		{name: "stats of a missing run", args: []string{"stats", "--format", "csv", "{tmp}/good.jsonl", "{tmp}/missing.jsonl"}, files: good, code: 1,
			stdout: hasAll("unreadable", "{tmp}/missing.jsonl")},
		{name: "--stats text", args: []string{"--stats", "-o", "{tmp}/d.jsonl", "{tmp}/t.jsonl"}, files: map[string]string{"t.jsonl": statsClaude},
			stderr: []check{
				has("stats: 6 records read: 3 converted, 3 skipped; 3 entries written\n"),
				matchesRE(`\n  assistant +2 +1 +1 +0 +2\n`), // init and the message
				matchesRE(`\n  rate_limit_event +1 +0 +1 +0 +0\n`),
				has("    assistant: duplicate: 1 record\n"),
				has("    rate_limit_event: type not read: 1 record\n"),
				has("    -: broken: 1 record\n"),
			}},
		// A format's record the converter does not read: the dialog is
		// empty, and stderr says why; a Gemini chat document is read.
		{name: "nothing converted is said", args: []string{"-o", "{tmp}/d.jsonl", "{tmp}/only.jsonl"},
			files:  map[string]string{"only.jsonl": `{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"},"uuid":"u1","session_id":"s1"}` + "\n"},
			stderr: []check{is(name + ": {tmp}/only.jsonl: warning: no record converted, 1 record skipped (rate_limit_event: type not read: 1)\n")}},
		{name: "a Gemini chat document is read", args: []string{"-o", "{tmp}/g.jsonl", "{tmp}/session.json"}, stderr: empty,
			files: map[string]string{"session.json": `{"sessionId":"s","projectHash":"h","startTime":"2025-10-29T10:37:00.099Z","lastUpdated":"2025-10-29T10:37:13.195Z",
 "messages":[{"id":"m1","timestamp":"2025-10-29T10:37:00.099Z","type":"user","content":"hi"}]}`}},
	}
	// Mistakes in the command line exit 2.
	for _, args := range [][]string{
		{"stats"},
		{"stats", "--format", "yaml", "{tmp}/good.jsonl"},
		{"stats", "--by", "colour", "{tmp}/good.jsonl"},
		{"stats", "--jobs", "0", "{tmp}/good.jsonl"},
		{"stats", "-0", "{tmp}/good.jsonl"},
	} {
		cases = append(cases, cliCase{name: "usage: " + strings.Join(args, " "), args: args, files: good, code: 2})
	}
	return cases
}

// runCases: mistakes in run's command line start nothing and exit 2.
func runCases() []cliCase {
	agent := []string{"--", "touch", "{tmp}/started"}
	var cases []cliCase
	for _, c := range []struct {
		name string
		args []string
	}{
		{name: "no command", args: []string{"--no-transcript"}},
		{name: "prompt-stdin without a prompt", args: append([]string{"--prompt-stdin"}, agent...)},
		{name: "prompt-stdin and stdin-file", args: append([]string{"--prompt", "p", "--prompt-stdin", "--stdin-file", "/dev/null"}, agent...)},
		{name: "transcript is the dialog", args: append([]string{"--transcript", "{tmp}/dialog.jsonl"}, agent...)},
		{name: "tee to the dialog's stdout", args: append([]string{"--tee", "-o", "-", "--no-transcript"}, agent...)},
		{name: "negative timeout", args: append([]string{"--timeout", "-1s"}, agent...)},
		{name: "unknown format", args: append([]string{"--format", "no-such-format"}, agent...)},
	} {
		cases = append(cases, cliCase{name: "run usage: " + c.name, args: append([]string{"run", "-o", "{tmp}/dialog.jsonl"}, c.args...), code: 2,
			stderr: hasAll("(usage: " + name + " run --help)\n"), after: []fileCheck{absent("started")}})
	}
	return cases
}
