package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errorCase is one command line that was seen failing badly, and what it
// must say now: the exit status and stderr's one line (exactly), or for
// a success a part of stdout.
type errorCase struct {
	name   string
	args   []string
	stdin  string
	env    map[string]string
	code   int
	stderr string // the whole of stderr
	stdout string // contained in stdout
	// setup makes the files of the case in tmp, before it runs.
	setup func(t *testing.T, tmp string)
	// after checks what the case left in tmp.
	after func(t *testing.T, tmp string)
}

// twoSessions makes tmp/sessions, a folder of two Claude Code session
// files (our fixtures).
func twoSessions(t *testing.T, tmp string) {
	dir := filepath.Join(tmp, "sessions")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, f := range []string{"api-error-last", "interrupted-last"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "claude-session", f+".in.jsonl"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f+".jsonl"), b, 0o644))
	}
}

// TestErrorsSayWhatToDo: each error is one line, names what was meant
// when it can, and has the exit status the help documents (1 failure,
// 2 usage). {tmp} in args is a fresh folder.
func TestErrorsSayWhatToDo(t *testing.T) {
	for _, tc := range []errorCase{
		{name: "convert is the root's other name", args: []string{"convert", "-o", "-"}, stdin: claudeRun, code: 0, stdout: `"type":"complete"`},
		{name: "convert help", args: []string{"help", "convert"}, code: 0, stdout: "sse-dialog-convert convert transcript.jsonl -o dialog.jsonl"},
		{name: "a mistyped flag", args: []string{"--formt", "claude", "x.jsonl"}, code: 2,
			stderr: "sse-dialog-convert: unknown flag --formt; did you mean --format?\n"},
		{name: "a mistyped flag of a subcommand", args: []string{"validate", "--jsn"}, code: 2,
			stderr: "sse-dialog-convert: unknown flag --jsn; did you mean --json?\n"},
		{name: "a mistyped command before its flag", args: []string{"exprot", "--html", "x"}, code: 2,
			stderr: "sse-dialog-convert: unknown command \"exprot\"; did you mean \"export\"?\n"},
		{name: "another command's flag", args: []string{"--html", "x"}, code: 2,
			stderr: "sse-dialog-convert: unknown flag --html here: it is a flag of export (sse-dialog-convert export --html …)\n"},
		{name: "an unknown flag", args: []string{"--zzzzzz"}, code: 2,
			stderr: "sse-dialog-convert: unknown flag --zzzzzz (usage: sse-dialog-convert --help)\n"},
		{name: "an unknown flag of a subcommand", args: []string{"export", "--zzzzzz"}, code: 2,
			stderr: "sse-dialog-convert: unknown flag --zzzzzz (usage: sse-dialog-convert export --help)\n"},
		{name: "a usage error of a subcommand", args: []string{"export", "x.jsonl"}, code: 2,
			stderr: "sse-dialog-convert: export needs a format: --html (usage: sse-dialog-convert export --help)\n"},
		{name: "an unknown help topic", args: []string{"help", "zzz"}, code: 2,
			stderr: "sse-dialog-convert: unknown help topic \"zzz\" (the commands: completion, convert, export, run, stats, validate, view)\n"},
		{name: "a mistyped help topic", args: []string{"help", "conver"}, code: 2,
			stderr: "sse-dialog-convert: unknown help topic \"conver\"; did you mean \"convert\"?\n"},
		{name: "a shell with no completion", args: []string{"completion", "tcsh"}, code: 2,
			stderr: "sse-dialog-convert: no completion for \"tcsh\": the shells are bash, fish, powershell, zsh (sse-dialog-convert completion SHELL)\n"},
		{name: "a mistyped shell", args: []string{"completion", "bsh"}, code: 2,
			stderr: "sse-dialog-convert: no completion for \"bsh\"; did you mean \"bash\"?\n"},
		{name: "a number that is not one", args: []string{"--max-text", "abc"}, code: 2,
			stderr: "sse-dialog-convert: --max-text \"abc\": want a size in bytes, such as 16384, 16k or 2M\n"},
		{name: "a whole number flag", args: []string{"view", "--width", "wide"}, code: 2,
			stderr: "sse-dialog-convert: --width \"wide\": want a whole number\n"},
		{name: "a bool flag", args: []string{"--strict=maybe"}, code: 2,
			stderr: "sse-dialog-convert: --strict \"maybe\": want true or false\n"},
		{name: "a size out of range", args: []string{"--max-bytes", "9999999999G"}, code: 2,
			stderr: "sse-dialog-convert: --max-bytes \"9999999999G\": out of range\n"},
		{name: "a bad clock", args: []string{"--clock", "soon"}, code: 2,
			stderr: "sse-dialog-convert: --clock \"soon\": want Unix seconds or an RFC 3339 time (2026-01-02T03:04:05Z)\n"},
		{name: "a bad SOURCE_DATE_EPOCH", args: []string{"-o", "-"}, stdin: claudeRun, env: map[string]string{"SOURCE_DATE_EPOCH": "abc"}, code: 1,
			stderr: "sse-dialog-convert: SOURCE_DATE_EPOCH=\"abc\": want Unix seconds or an RFC 3339 time (2026-01-02T03:04:05Z); set it to Unix seconds (SOURCE_DATE_EPOCH=0), or unset it\n"},
		{name: "SOURCE_DATE_EPOCH in view", args: []string{"view", "-"}, stdin: claudeRun, env: map[string]string{"SOURCE_DATE_EPOCH": "abc"}, code: 1,
			stderr: "sse-dialog-convert: SOURCE_DATE_EPOCH=\"abc\": want Unix seconds or an RFC 3339 time (2026-01-02T03:04:05Z); set it to Unix seconds (SOURCE_DATE_EPOCH=0), or unset it\n"},
		{name: "a bad TIMEOUT", args: []string{"run", "--", "true"}, env: map[string]string{"TIMEOUT": "soon"}, code: 1,
			stderr: "sse-dialog-convert: TIMEOUT=\"soon\" is not a number of seconds; set it to seconds (TIMEOUT=1800), or give --timeout, which overrides it\n"},
		{name: "a duration", args: []string{"run", "--timeout", "soon", "--", "true"}, code: 2,
			stderr: "sse-dialog-convert: --timeout \"soon\": want seconds (1800) or a duration (30m, 1h30m)\n"},
		{name: "--jobs without --out-dir", args: []string{"--jobs", "2", "x.jsonl"}, code: 2,
			stderr: "sse-dialog-convert: --jobs tells how many files --out-dir converts at a time (give --out-dir DIR) (usage: sse-dialog-convert --help)\n"},
		{name: "validate on a transcript", args: []string{"validate", "../../testdata/claude/amp-stream-json.in.jsonl"}, code: 1,
			stderr: "sse-dialog-convert: ../../testdata/claude/amp-stream-json.in.jsonl is Claude Code stream-json, an input, not a dialog: convert it first (sse-dialog-convert ../../testdata/claude/amp-stream-json.in.jsonl -o dialog.jsonl), then validate the dialog\n"},
		{name: "validate on a transcript on stdin", args: []string{"validate"}, stdin: claudeRun, code: 1,
			stderr: "sse-dialog-convert: standard input is Claude Code stream-json, an input, not a dialog: convert it first (sse-dialog-convert -o dialog.jsonl < FILE), then validate the dialog\n"},
		{name: "validate on a session file", args: []string{"validate", "../../testdata/claude-session/api-error-last.in.jsonl"}, code: 1,
			stderr: "sse-dialog-convert: ../../testdata/claude-session/api-error-last.in.jsonl is a Claude Code session file (~/.claude/projects), an input, not a dialog: convert it first (sse-dialog-convert ../../testdata/claude-session/api-error-last.in.jsonl -o dialog.jsonl), then validate the dialog\n"},
		{name: "validate on a folder of sessions", args: []string{"validate", "{tmp}/sessions"}, setup: twoSessions, code: 1,
			stderr: "sse-dialog-convert: {tmp}/sessions is a folder of 2 sessions, an input: convert it first (sse-dialog-convert --out-dir dialogs {tmp}/sessions), then validate the dialogs (dialogs/*.dialog.jsonl)\n"},
		{name: "validate on a dialog", args: []string{"validate", "../../testdata/claude/amp-stream-json.out.jsonl"}, code: 0},
		{name: "view on a folder of sessions", args: []string{"view", "{tmp}/sessions"}, setup: twoSessions, code: 2,
			stderr: "sse-dialog-convert: {tmp}/sessions holds 2 sessions and view shows one: name it (sse-dialog-convert view {tmp}/sessions/api-error-last.jsonl), or export them all (sse-dialog-convert export --html --out-dir DIR {tmp}/sessions)\n"},
		{name: "export of a folder of sessions to one page", args: []string{"export", "--html", "{tmp}/sessions"}, setup: twoSessions, code: 2,
			stderr: "sse-dialog-convert: {tmp}/sessions holds 2 sessions, a page each: give --out-dir DIR (sse-dialog-convert export --html --out-dir DIR {tmp}/sessions)\n"},
		{name: "export of a folder of sessions, a page each", args: []string{"export", "--html", "--out-dir", "{tmp}/pages", "{tmp}/sessions"}, setup: twoSessions, code: 0,
			after: func(t *testing.T, tmp string) {
				pages, err := filepath.Glob(filepath.Join(tmp, "pages", "*.html"))
				require.NoError(t, err)
				for i := range pages {
					pages[i] = filepath.Base(pages[i])
				}
				assert.ElementsMatch(t, []string{"api-error-last.html", "interrupted-last.html", "index.html"}, pages)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t) })
	}
}

func (tc errorCase) check(t *testing.T) {
	t.Helper()
	tmp := t.TempDir()
	if tc.setup != nil {
		tc.setup(t, tmp)
	}
	args := make([]string, len(tc.args))
	for i, a := range tc.args {
		args[i] = strings.ReplaceAll(a, "{tmp}", tmp)
	}
	env := map[string]string{"SSE_ARCHIVE": filepath.Join(tmp, "archive")}
	for k, v := range tc.env {
		env[k] = strings.ReplaceAll(v, "{tmp}", tmp)
	}
	r := program{args: args, stdin: strings.NewReader(tc.stdin), env: env}.run(t)
	require.Equal(t, tc.code, r.code, "stderr:\n%s", r.stderr)
	assert.Equal(t, strings.ReplaceAll(tc.stderr, "{tmp}", tmp), r.stderr)
	assert.Contains(t, r.stdout, strings.ReplaceAll(tc.stdout, "{tmp}", tmp))
	if tc.after != nil {
		tc.after(t, tmp)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "-1": -1, "16384": 16384, "16k": 16 << 10, "16K": 16 << 10, "16KiB": 16 << 10, "16kb": 16 << 10,
		"2M": 2 << 20, "2MiB": 2 << 20, "1G": 1 << 30, " 3m ": 3 << 20} {
		got, err := cli.ParseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "k", "abc", "1.5M", "16x", "M16", "9223372036854775808", "8589934592G"} {
		_, err := cli.ParseSize(in)
		assert.Error(t, err, in)
	}
	var small int
	assert.Error(t, cli.SizeValue[int]{P: &small}.Set("16k\x00"), "not a size")
}
