package main

// Never destroy, never mislead: outputs over inputs, typos taken for
// files, wrong formats, gzip on stdin, over-long lines, and the small
// truths of the command line.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
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
	for _, folder := range adaptertest.CorpusFolders(t, corpusDir) {
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
	z := adaptertest.Gzip(t, []byte(claudeRun))
	file := filepath.Join(dir, "t.jsonl.gz")
	require.NoError(t, os.WriteFile(file, z, 0o644))

	code, fromFile, errOut := runCLI(t, "", "--clock", "0", "--cwd", "/w", "-o", "-", file)
	require.Equal(t, 0, code, errOut)
	code, fromStdin, errOut := runCLI(t, string(z), "--clock", "0", "--cwd", "/w", "-o", "-")
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

// TestCommandLineTruths: each of these was false once (the command
// lines among them are cases of TestCLI).
func TestCommandLineTruths(t *testing.T) {
	t.Run("plain seconds", func(t *testing.T) {
		for in, want := range map[string]time.Duration{"1800": 30 * time.Minute, "0.5": 500 * time.Millisecond, "30m": 30 * time.Minute, "0": 0} {
			var d cli.DurationValue
			require.NoError(t, d.Set(in), in)
			assert.Equal(t, want, time.Duration(d), in)
		}
		var d cli.DurationValue
		assert.Error(t, d.Set("soon"))
		cmd := newRunCmd(cli.System())
		require.NoError(t, cmd.ParseFlags([]string{"--timeout", "1800", "--grace", "5", "--linger", "0"}))
		for flag, want := range map[string]string{"timeout": "30m0s", "grace": "5s", "linger": "0"} {
			assert.Equal(t, want, cmd.Flags().Lookup(flag).Value.String(), flag)
		}
	})
}

// A dialog given as input is named, not read as Gemini CLI's stream (its
// message entries have a type and a role, as Gemini's do).
func TestDialogAsInputIsNamed(t *testing.T) {
	in := filepath.Join(t.TempDir(), "d.jsonl")
	code, out, stderr := runCLI(t, "", "-o", "-", "--clock", "0", textOnlyRun)
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.WriteFile(in, []byte(out), 0o644))
	code, out, stderr = runCLI(t, "", "-o", "-", "--clock", "0", in)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, in+" looks like an SSEBench dialog (this converter's output: view or validate it), not an input it converts")
	assert.NotContains(t, out, "gemini-cli")
}
