package main

// Never destroy, never mislead: outputs over inputs, typos taken for
// files, wrong formats, gzip on stdin, over-long lines, and the small
// truths of the command line.

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
	"github.com/ssebench/sse-dialog-convert/internal/testskip"
)

// snapshot reads files, to check afterwards that none changed.
func snapshot(t *testing.T, paths ...string) map[string][]byte {
	t.Helper()
	m := make(map[string][]byte, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		m[p] = b
	}
	return m
}

func requireUnchanged(t *testing.T, before map[string][]byte) {
	t.Helper()
	for p, b := range before {
		now, err := os.ReadFile(p)
		require.NoError(t, err)
		require.True(t, bytes.Equal(b, now), "%s changed:\n%s", p, now)
	}
}

// TestOutputOverAnInputIsRefused: whatever path leads to it (the same
// name, a symlink, a hard link, a symlinked folder), an output that is an
// input is refused before anything is written: one line naming both, exit 2.
func TestOutputOverAnInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(claudeRun), 0o644))
	link := filepath.Join(dir, "link.jsonl")
	require.NoError(t, os.Symlink(in, link))
	hard := filepath.Join(dir, "hard.jsonl")
	require.NoError(t, os.Link(in, hard))
	dirLink := filepath.Join(dir, "same-folder")
	require.NoError(t, os.Symlink(dir, dirLink))
	prompt := filepath.Join(dir, "prompt.txt")
	require.NoError(t, os.WriteFile(prompt, []byte("Fix it.\n"), 0o644))
	marker := filepath.Join(dir, "agent-started")
	agent := []string{"--", "touch", marker}

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"-o is the FILE", []string{in, "-o", in},
			"refusing to write the dialog to " + in + ": it is the same file as the input " + in},
		{"-o is a symlink to the FILE", []string{in, "-o", link},
			"refusing to write the dialog to " + link + ": it is the same file as the input " + in},
		{"the FILE is a symlink to -o", []string{link, "-o", in},
			"refusing to write the dialog to " + in + ": it is the same file as the input " + link},
		{"-o is a hard link to the FILE", []string{in, "-o", hard},
			"refusing to write the dialog to " + hard + ": it is the same file as the input " + in},
		{"-o through a symlinked folder", []string{in, "-o", filepath.Join(dirLink, "t.jsonl")},
			"refusing to write the dialog to " + filepath.Join(dirLink, "t.jsonl") + ": it is the same file as the input " + in},
		{"-o is the second FILE", []string{prompt, in, "-o", in},
			"refusing to write the dialog to " + in + ": it is the same file as the input " + in},
		{"-o is --prompt-file", []string{in, "--prompt-file", prompt, "-o", prompt},
			"refusing to write the dialog to " + prompt + ": it is the same file as --prompt-file " + prompt},
		{"--follow -o the file followed", []string{"--follow", filepath.Join(dir, "later.jsonl"), "-o", filepath.Join(dir, "later.jsonl")},
			"refusing to write the dialog to " + filepath.Join(dir, "later.jsonl") + ": it is the file followed"},
		{"--out-dir onto an input", []string{"--out-dir", dirLink, filepath.Join(dir, "t.dialog.jsonl"), filepath.Join(dir, "t")},
			""}, // set up below
		{"run --transcript is --stdin-file", append([]string{"run", "--transcript", in, "--stdin-file", link, "-o", filepath.Join(dir, "d.jsonl")}, agent...),
			"refusing to write the transcript to " + in + ": it is the same file as --stdin-file " + link},
		{"run -o is --prompt-file", append([]string{"run", "--prompt-file", prompt, "-o", prompt, "--no-transcript"}, agent...),
			"refusing to write the dialog to " + prompt + ": it is the same file as --prompt-file " + prompt},
		{"run --transcript is the dialog by another name", append([]string{"run", "--transcript", hard, "-o", in}, agent...),
			"refusing to write the transcript to " + hard + ": it is the same file as the dialog " + in},
	}
	// For --out-dir: t's dialog would be t.dialog.jsonl, an input.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t"), []byte(claudeRun), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.dialog.jsonl"), []byte(claudeRun), 0o644))
	tests[8].want = "refusing to write the dialog to " + filepath.Join(dirLink, "t.dialog.jsonl") + ": it is the same file as the input " + filepath.Join(dir, "t.dialog.jsonl")

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, in, prompt, filepath.Join(dir, "t"), filepath.Join(dir, "t.dialog.jsonl"))
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			code, out, errOut := runCLI(t, "", tt.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.Equal(t, name+": "+tt.want+"\n", errOut)
			requireUnchanged(t, before)
			after, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Equal(t, len(entries), len(after), "nothing created")
			assert.NoFileExists(t, marker, "the agent was not started")
		})
	}
}

// Standard input redirected from a file is an input too.
func TestOutputOverStandardInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(claudeRun), 0o644))
	before := snapshot(t, in)
	for _, args := range [][]string{
		{"-o", in},
		{"run", "--transcript", in, "-o", filepath.Join(dir, "d.jsonl"), "--", "true"},
	} {
		f, err := os.Open(in)
		require.NoError(t, err)
		r := program{args: args, stdin: f}.run(t)
		f.Close()
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, "it is the same file as standard input\n")
		requireUnchanged(t, before)
	}
}

// Standard output appended to an input would feed the input with its own
// dialog: refused too, for the dialog (-o -) and for --tee.
func TestStdoutOverAnInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(claudeRun), 0o644))
	before := snapshot(t, in)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-o", "-", in}, "refusing to write the dialog to standard output: it is the same file as the input " + in},
		{[]string{"--tee", "-o", filepath.Join(dir, "d.jsonl"), in}, "refusing to write the --tee copy to standard output: it is the same file as the input " + in},
	}
	for _, tt := range tests {
		out, err := os.OpenFile(in, os.O_WRONLY|os.O_APPEND, 0)
		require.NoError(t, err)
		r := program{args: tt.args, stdout: out}.run(t)
		out.Close()
		assert.Equal(t, 2, r.code, "%v", tt.args)
		assert.Equal(t, name+": "+tt.want+"\n", r.stderr)
		requireUnchanged(t, before)
	}
}

// An output that does not exist yet, or that is a device, is no input.
func TestOutputBesideTheInputsConverts(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(claudeRun), 0o644))
	code, _, errOut := runCLI(t, "", in, "-o", filepath.Join(dir, "t.dialog.jsonl"))
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runCLI(t, "", "/dev/null", "-o", "/dev/null")
	assert.Equal(t, 0, code, errOut)
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{
		{"run", "run", 0}, {"rnu", "run", 1}, {"valdiate", "validate", 1}, {"vaildate", "validate", 1},
		{"validat", "validate", 1}, {"", "run", 3}, {"transcript", "run", 8}, {"rm", "run", 2},
	} {
		assert.Equal(t, tt.d, editDistance(tt.a, tt.b), "%s %s", tt.a, tt.b)
	}
}

// TestTypoIsNotAFile: a first argument that is no file and is close to a
// subcommand's name is a typo: one line, exit 2, and the live dialog in
// $SSE_ARCHIVE stays as it was. A file of that name is a FILE.
func TestTypoIsNotAFile(t *testing.T) {
	archive := t.TempDir()
	t.Setenv("SSE_ARCHIVE", archive)
	live := filepath.Join(archive, "dialog.jsonl")
	require.NoError(t, os.WriteFile(live, []byte("the live dialog\n"), 0o644))
	t.Chdir(t.TempDir())
	for arg, want := range map[string]string{
		"valdiate":   `unknown command "valdiate"; did you mean "validate"?`,
		"Validate":   `unknown command "Validate"; did you mean "validate"?`,
		"rnu":        `unknown command "rnu"; did you mean "run"?`,
		"rn":         `unknown command "rn"; did you mean "run"?`,
		"hlep":       `unknown command "hlep"; did you mean "help"?`,
		"completoin": `unknown command "completoin"; did you mean "completion"?`,
		"version":    `unknown command "version"; did you mean "--version"?`,
		"verison":    `unknown command "verison"; did you mean "--version"?`,
	} {
		code, out, errOut := runCLI(t, claudeRun, arg, "x.jsonl")
		assert.Equal(t, 2, code, arg)
		assert.Empty(t, out)
		assert.Equal(t, name+": "+want+"\n", errOut, arg)
		requireUnchanged(t, map[string][]byte{live: []byte("the live dialog\n")})
	}

	// Far from every name, or looking like a path: a FILE, which must open
	// before anything is written.
	for _, arg := range []string{"transcript", "rm", "run.jsonl", "./valdiate"} {
		code, _, errOut := runCLI(t, claudeRun, arg)
		assert.Equal(t, 1, code, arg)
		assert.Contains(t, errOut, "no such file or directory", arg)
		requireUnchanged(t, map[string][]byte{live: []byte("the live dialog\n")})
	}

	// A file that exists is a FILE, whatever its name.
	require.NoError(t, os.WriteFile("valdiate", []byte(claudeRun), 0o644))
	code, _, errOut := runCLI(t, "", "valdiate", "-o", "d.jsonl")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "success", readDialog(t, "d.jsonl")[2]["status"])
}

// Small fixtures in the shapes of the real files (../shared/corpus), one
// or two records each.
const (
	rolloutLines = `{"timestamp":"2026-01-02T03:04:05.000Z","type":"session_meta","payload":{"id":"s1","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/w","originator":"codex_exec","cli_version":"0.171.0"}}
{"timestamp":"2026-01-02T03:04:06.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}
`
	claudeSessionLines = `{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-02T03:04:05.000Z","sessionId":"s1","content":"hi"}
{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-01-02T03:04:05.000Z","sessionId":"s1"}
{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hello"}]},"uuid":"u2","timestamp":"2026-01-02T03:04:06.000Z","sessionId":"s1"}
`
	geminiLines = `{"type":"init","timestamp":"2026-01-02T03:04:05.000Z","session_id":"s1","model":"gemini-2.5-pro"}
{"type":"message","timestamp":"2026-01-02T03:04:05.000Z","role":"assistant","content":"hello","delta":true}
{"type":"result","timestamp":"2026-01-02T03:04:06.000Z","status":"success","stats":{"total_tokens":3}}
`
	opencodeLines = `{"type":"step_start","timestamp":1767038000000,"sessionID":"ses_1","part":{"id":"p1","sessionID":"ses_1","messageID":"m1","type":"step-start"}}
`
	cursorLines = `{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"Auto","permissionMode":"default"}
{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"ls"}}},"session_id":"s1"}
`
	codexLines = `{"type":"thread.started","thread_id":"t1"}
{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}
`
)

// unreadable is the line for an input of a format the converter recognises
// but does not read yet; "" once it reads it.
func unreadable(format string) string {
	f, _ := registry.Lookup(format)
	if f.New != nil {
		return ""
	}
	return "standard input looks like " + f.Title + "; it cannot be converted yet"
}

// looksLike is how the line names a format: its title, and the --format
// that reads it when one does.
func looksLike(format string) string {
	f, _ := registry.Lookup(format)
	if f.New == nil {
		return f.Title
	}
	return f.Title + " (--format " + f.Name + ")"
}

// TestWrongFormatIsSaidOutLoud: an input in no format the conversion can
// use gives one line saying what it looks like and exit 1; the dialog is
// still written, and valid.
func TestWrongFormatIsSaidOutLoud(t *testing.T) {
	tests := []struct {
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "d.jsonl")
			code, _, errOut := runCLI(t, tt.in, append([]string{"-o", out}, tt.args...)...)
			readDialog(t, out) // written, and valid
			if tt.want == "" {
				assert.Equal(t, 0, code, errOut)
				assert.NotContains(t, errOut, "looks like")
				return
			}
			assert.Equal(t, 1, code)
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			assert.Equal(t, name+": "+tt.want, lines[len(lines)-1])
		})
	}
}

// In a batch a wrong file fails with the line; it leaves no dialog under
// its final name (issue 27: a failed file of a batch leaves none).
func TestWrongFormatInABatch(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	wrong := filepath.Join(dir, "claude.jsonl") // Claude Code's stream, in a batch forced to codex
	require.NoError(t, os.WriteFile(good, []byte(codexLines), 0o644))
	require.NoError(t, os.WriteFile(wrong, []byte(claudeRun), 0o644))
	out := filepath.Join(dir, "out")
	code, stderr := batchRun(t, "--format", "codex", "--out-dir", out, good, wrong)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, name+": no codex events in "+wrong+"; it looks like Claude Code stream-json")
	assert.Contains(t, stderr, "2 files: 1 converted, 1 failed;")
	dialogs := readDialogs(t, out)
	assert.Len(t, dialogs, 1)
	assert.Contains(t, dialogs, "good.dialog.jsonl")
}

// run says it too, once the agent has exited; the agent's success turns
// into exit 1.
func TestWrongFormatInRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "out.jsonl")
	require.NoError(t, os.WriteFile(src, []byte(claudeRun), 0o644))
	r := runAgent(t, dir, "", "--format", "codex", "--no-transcript", "--timeout", agentLimit, "--", agentFile(t, "cat.sh"), src)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, name+": no codex events in the agent's output; it looks like Claude Code stream-json (--format claude)\n")
}

// corpusFormatsToCome are corpus folders whose captures came before their
// format: reported, not failing, until it is registered (then the name goes).
var corpusFormatsToCome = map[string]bool{}

// TestCorpusFormatsAreTold runs every real capture: Claude and Codex
// streams convert with no word about their format; the formats we cannot
// convert yet are named.
func TestCorpusFormatsAreTold(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		testskip.Missingf(t, "no shared corpus at %s: the real captures are tested where they are", corpusDir)
	}
	folders, err := os.ReadDir(corpusDir)
	require.NoError(t, err)
	for _, d := range folders {
		if !d.IsDir() {
			continue
		}
		folder := d.Name()
		format, ok := registry.Lookup(folder)
		if !ok && corpusFormatsToCome[folder] {
			t.Logf("corpus folder %s: its format is still to come (not registered yet)", folder)
			continue
		}
		require.True(t, ok, "corpus folder %s is no registered format", folder)
		want := "" // a format the converter reads: converted, not a word about it
		if format.New == nil {
			want = "looks like " + format.Title
		}
		var files []string
		err := filepath.WalkDir(filepath.Join(corpusDir, folder), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".ndjson") || strings.HasSuffix(p, ".pretty.json") || ((folder == "gemini" || folder == "atif") && strings.HasSuffix(p, ".json"))) {
				files = append(files, p)
			}
			return err
		})
		require.NoError(t, err)
		require.NotEmpty(t, files, folder)
		for _, f := range files {
			out := filepath.Join(t.TempDir(), "d.jsonl")
			code, _, errOut := runCLI(t, "", "--clock", "0", "-o", out, f)
			readDialog(t, out)
			if want == "" {
				assert.Equal(t, 0, code, "%s: %s", f, errOut)
				continue
			}
			assert.Equal(t, 1, code, f)
			assert.Contains(t, errOut, name+": "+f+" "+want, f)
		}
	}
}

// TestGzipOnStdin: gzip data on standard input is recognised by its first
// bytes and read as the same gzip FILE is.
func TestGzipOnStdin(t *testing.T) {
	dir := t.TempDir()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, err := zw.Write([]byte(claudeRun))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	file := filepath.Join(dir, "t.jsonl.gz")
	require.NoError(t, os.WriteFile(file, z.Bytes(), 0o644))

	code, fromFile, errOut := runCLI(t, "", "--clock", "0", "--cwd", "/w", "-o", "-", file)
	require.Equal(t, 0, code, errOut)
	code, fromStdin, errOut := runCLI(t, z.String(), "--clock", "0", "--cwd", "/w", "-o", "-")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, fromFile, fromStdin)
	code, plain, _ := runCLI(t, claudeRun, "--clock", "0", "--cwd", "/w", "-o", "-")
	require.Equal(t, 0, code)
	assert.Equal(t, plain, fromStdin)

	// Short inputs are no gzip, and convert (or not) as before.
	for _, in := range []string{"", "{", "\x1f"} {
		code, _, errOut = runCLI(t, in, "-o", filepath.Join(dir, "d.jsonl"))
		assert.Equal(t, 0, code, "%q: %s", in, errOut)
	}
}

// TestMaxLine: a line longer than --max-line is skipped (reported,
// counted) and what follows it converts; 0 lifts the limit.
func TestMaxLine(t *testing.T) {
	long := strings.Replace(strings.Split(claudeRun, "\n")[1], `"text":"hi"`, `"text":"`+strings.Repeat("x", 1<<20)+`"`, 1)
	in := strings.Split(claudeRun, "\n")[0] + "\n" + long + "\n" + strings.Split(claudeRun, "\n")[2] + "\n"
	out := filepath.Join(t.TempDir(), "d.jsonl")
	code, _, errOut := runCLI(t, in, "--max-line", "65536", "-o", out)
	assert.Equal(t, 0, code)
	assert.Equal(t, "<stdin>:2: skipped: longer than the line limit of 65536 bytes (--max-line)\n", errOut)
	es := readDialog(t, out)
	assert.Equal(t, []string{"init", "complete"}, []string{es[0]["type"].(string), es[1]["type"].(string)})
	assert.Equal(t, "success", es[1]["status"], "the result after the long line was read")

	code, _, errOut = runCLI(t, in, "--max-line", "65536", "--strict", "-o", out)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "--strict: 1 input line was skipped as broken\n")

	for _, limit := range []string{"0", "2000000"} {
		code, _, errOut = runCLI(t, in, "--max-line", limit, "-o", out)
		assert.Equal(t, 0, code, errOut)
		assert.Empty(t, errOut)
		assert.Len(t, readDialog(t, out), 3)
	}
}

// TestCommandLineTruths: each of these was false once.
func TestCommandLineTruths(t *testing.T) {
	t.Run("usage errors", func(t *testing.T) {
		for _, tt := range []struct {
			args []string
			want string
		}{
			{[]string{"--max-text", "-2"}, "--max-text -2: want a size in bytes, or 0 or -1 for no cap"},
			{[]string{"--max-line", "-1"}, "--max-line -1: want a size in bytes, or 0 for no limit"},
			{[]string{"--idle-timeout", "1m"}, "--idle-timeout works only with --follow"},
			{[]string{"--clock", "soon"}, `--clock "soon": want Unix seconds or an RFC 3339 time`},
		} {
			code, _, errOut := runCLI(t, claudeRun, append(tt.args, "-o", filepath.Join(t.TempDir(), "d.jsonl"))...)
			assert.Equal(t, 2, code, "%v", tt.args)
			assert.Contains(t, errOut, tt.want, "%v", tt.args)
		}
	})
	t.Run("SOURCE_DATE_EPOCH is named", func(t *testing.T) {
		t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
		code, _, errOut := runCLI(t, claudeRun, "-o", filepath.Join(t.TempDir(), "d.jsonl"))
		assert.Equal(t, 1, code, "the environment is wrong, not the command line")
		assert.Contains(t, errOut, `SOURCE_DATE_EPOCH="yesterday": want Unix seconds or an RFC 3339 time`)
	})
	t.Run("one line was skipped", func(t *testing.T) {
		code, _, errOut := runCLI(t, "noise\n"+claudeRun, "--strict", "-o", filepath.Join(t.TempDir(), "d.jsonl"))
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "--strict: 1 input line was skipped as broken\n")
	})
	t.Run("plain seconds", func(t *testing.T) {
		for in, want := range map[string]time.Duration{"1800": 30 * time.Minute, "0.5": 500 * time.Millisecond, "30m": 30 * time.Minute, "0": 0} {
			var d cli.DurationValue
			require.NoError(t, d.Set(in), in)
			assert.Equal(t, want, time.Duration(d), in)
		}
		var d cli.DurationValue
		assert.Error(t, d.Set("soon"))
		cmd := newRunCmd()
		require.NoError(t, cmd.ParseFlags([]string{"--timeout", "1800", "--grace", "5", "--linger", "0"}))
		for flag, want := range map[string]string{"timeout": "30m0s", "grace": "5s", "linger": "0"} {
			assert.Equal(t, want, cmd.Flags().Lookup(flag).Value.String(), flag)
		}
	})
}

// TestVersionString: --version gives the module version and, when the go
// command stamped one, the commit the binary was built from.
func TestVersionString(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "5328ae68e9627b9bcdce773c51e67798fe1ae3e6"},
		{Key: "vcs.time", Value: "2026-11-30T17:39:21Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	tests := []struct {
		name, stamped string
		bi            *debug.BuildInfo
		want          string
	}{
		{"go install …@version: no checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{"built in a clone", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130173921-5328ae68e962+dirty"}, Settings: vcs},
			"v0.0.0-20261130173921-5328ae68e962+dirty (revision 5328ae68e9627b9bcdce773c51e67798fe1ae3e6, 2026-11-30T17:39:21Z, modified)"},
		{"no version known", "", &debug.BuildInfo{Settings: vcs[:2]}, "dev (revision 5328ae68e9627b9bcdce773c51e67798fe1ae3e6)"},
		{"go build -buildvcs=false", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"make release", "v0.1.0", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v0.1.0"},
		{"make build", "v0.3.0-4-g5328ae6", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v0.3.0-4-g5328ae6"},
		{"no build info", "", nil, "dev"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, versionString(tt.stamped, tt.bi), tt.name)
	}
}

// A dialog given as input is named, not read as Gemini CLI's stream (its
// message entries have a type and a role, as Gemini's do).
func TestDialogAsInputIsNamed(t *testing.T) {
	in := filepath.Join(t.TempDir(), "d.jsonl")
	code, out, stderr := runCLI(t, "", "-o", "-", "--clock", "0", "../../testdata/claude/text-only.in.jsonl")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.WriteFile(in, []byte(out), 0o644))
	code, out, stderr = runCLI(t, "", "-o", "-", "--clock", "0", in)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, in+" looks like an SSEBench dialog (this converter's output: view or validate it), not an input it converts")
	assert.NotContains(t, out, "gemini-cli")
}
