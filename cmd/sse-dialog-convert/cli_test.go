package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const claudeRun = `{"type":"system","subtype":"init","cwd":"/src","session_id":"s","model":"claude-x","tools":[]}
{"type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s"}
{"type":"result","subtype":"success","is_error":false,"duration_ms":10,"num_turns":1,"result":"hi","session_id":"s","usage":{"input_tokens":1,"output_tokens":1}}
`

func TestHelpAndVersion(t *testing.T) {
	code, out, errOut := runCLI(t, "", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "sse-dialog-convert validate dialog.jsonl")
	assert.Contains(t, out, "--format")
	assert.Empty(t, errOut)

	code, out, _ = runCLI(t, "", "--version")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "sse-dialog-convert version ")

	code, out, _ = runCLI(t, "", "completion", "bash")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "bash completion")
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"--bogus"},
		{"--format", "no-such-format"},
		{"--prompt", "a", "--prompt-file", "b"},
		{"--tee", "-o", "-"},
	} {
		code, out, errOut := runCLI(t, "", args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, out)
		assert.True(t, strings.HasSuffix(errOut, " (usage: sse-dialog-convert --help)\n"), "%v: %s", args, errOut)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %v", args)
	}
}

func TestDefaultOutputIsSSEArchive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "archive")
	t.Setenv("SSE_ARCHIVE", dir)
	t.Setenv("SSE_TASK_ID", "CVE-1")
	t.Setenv("SSE_MODEL_NAME", "")
	path := filepath.Join(dir, "dialog.jsonl")

	code, out, errOut := runCLI(t, claudeRun)
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, out, "stdout carries nothing without --tee")
	es := readDialog(t, path)
	assert.Equal(t, "CVE-1", es[0]["data"].(map[string]any)["task"])
	assert.Equal(t, "claude-x", es[0]["data"].(map[string]any)["model"])

	// The file is overwritten, not appended to.
	code, _, _ = runCLI(t, claudeRun)
	require.Equal(t, 0, code)
	assert.Len(t, readDialog(t, path), len(es))

	t.Setenv("SSE_ARCHIVE", "")
	o := convertOptions{}
	assert.Equal(t, "/tmp/sse-archive/dialog.jsonl", o.outputPath())
}

func TestFlagsOverrideEnvAndStream(t *testing.T) {
	t.Setenv("SSE_MODEL_NAME", "env-model")
	dir := t.TempDir()
	promptFile := filepath.Join(dir, "prompt.txt")
	require.NoError(t, os.WriteFile(promptFile, []byte("Fix the bug\n"), 0o644))
	out := filepath.Join(dir, "d.jsonl")
	code, _, errOut := runCLI(t, claudeRun, "-o", out, "--prompt-file", promptFile, "--task", "T", "--cwd", "/c", "--agent", "my-agent")
	require.Equal(t, 0, code, errOut)
	es := readDialog(t, out)
	assert.Equal(t, map[string]any{"task": "T", "cwd": "/c", "model": "env-model", "agent": "my-agent", "clock": "arrival"}, es[0]["data"])
	assert.Equal(t, "prompt", es[1]["type"])
	assert.Equal(t, "Fix the bug\n", es[1]["content"])

	code, _, errOut = runCLI(t, claudeRun, "-o", out, "--model", "flag-model")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "flag-model", readDialog(t, out)[0]["data"].(map[string]any)["model"])
}

func TestBadLinesAreSkippedAndReported(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d.jsonl")
	in := "\ufeffnot json\n" + strings.Replace(claudeRun, "\n", "\n[1]\n\n", 1)
	code, _, errOut := runCLI(t, in, "-o", out)
	assert.Equal(t, 0, code)
	assert.Equal(t, "<stdin>:1: skipped: not valid JSON (\"not json\"…)\n<stdin>:3: skipped: a JSON value that is not an object (\"1\"…)\n", errOut)
	es := readDialog(t, out)
	assert.Equal(t, "success", es[len(es)-1]["status"])

	code, _, errOut = runCLI(t, in, "-o", out, "--strict")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "--strict: 2 input lines were skipped as broken")
	assert.Equal(t, "success", readDialog(t, out)[len(es)-1]["status"], "the whole dialog is still written")
}

// Every FILE is opened before the output is touched: a missing one is one
// line, exit 1, and an existing -o file is left as it was.
func TestMissingInputLeavesTheOutputAlone(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "run.jsonl")
	require.NoError(t, os.WriteFile(good, []byte(claudeRun), 0o644))
	out := filepath.Join(dir, "d.jsonl")
	require.NoError(t, os.WriteFile(out, []byte("an earlier dialog\n"), 0o644))
	for _, args := range [][]string{
		{good, filepath.Join(dir, "missing.jsonl")},
		{filepath.Join(dir, "missing.jsonl"), good},
	} {
		code, _, errOut := runCLI(t, "", append([]string{"-o", out}, args...)...)
		assert.Equal(t, 1, code)
		assert.Equal(t, "sse-dialog-convert: open "+filepath.Join(dir, "missing.jsonl")+": no such file or directory\n", errOut)
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Equal(t, "an earlier dialog\n", string(b))
	}
	// Nor is a new one created.
	code, _, _ := runCLI(t, "", "-o", filepath.Join(dir, "new", "d.jsonl"), filepath.Join(dir, "missing.jsonl"))
	assert.Equal(t, 1, code)
	assert.NoDirExists(t, filepath.Join(dir, "new"))
}

// An input that opens but cannot be read to its end (corrupt gzip) is
// reported; the others still convert, into a valid dialog.
func TestUnreadableInputStillGivesAValidDialog(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "run.jsonl")
	require.NoError(t, os.WriteFile(good, []byte(claudeRun), 0o644))
	corrupt := filepath.Join(dir, "cut.jsonl.gz")
	require.NoError(t, os.WriteFile(corrupt, []byte("\x1f\x8bnot gzip at all"), 0o644))
	out := filepath.Join(dir, "d.jsonl")
	code, _, errOut := runCLI(t, "", "-o", out, corrupt, good)
	assert.Equal(t, 1, code)
	assert.Equal(t, "sse-dialog-convert: reading "+corrupt+": gzip: invalid header\n", errOut)
	es := readDialog(t, out)
	assert.Equal(t, "success", es[len(es)-1]["status"], "the other input still converts")
}

func TestGarbageGivesAValidDialog(t *testing.T) {
	t.Setenv("SSE_ARCHIVE", t.TempDir())
	code, _, _ := runCLI(t, "\x00\x01\xff garbage {{{\n\x1b[31mred\x1b[0m\n")
	assert.Equal(t, 0, code)
	es := readDialog(t, filepath.Join(os.Getenv("SSE_ARCHIVE"), "dialog.jsonl"))
	assert.Equal(t, "init", es[0]["type"])
	assert.Equal(t, "error", es[1]["status"])
	assert.Equal(t, "incomplete", es[1]["reason"])
}

func TestTeeCopiesInputUnchanged(t *testing.T) {
	in := "noise\r\n" + claudeRun + "{\"no\":\"final newline\"}"
	code, out, _ := runCLI(t, in, "--tee", "-o", filepath.Join(t.TempDir(), "d.jsonl"))
	assert.Equal(t, 0, code)
	assert.Equal(t, in, out)
}

func TestOutputErrorsAreOneClearLine(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for target, want := range map[string]string{
		dir:                            "sse-dialog-convert: cannot write the dialog: open " + dir + ": is a directory\n",
		filepath.Join(file, "d.jsonl"): "sse-dialog-convert: cannot create the dialog's folder: mkdir " + file + ": not a directory\n",
		"/dev/full":                    "sse-dialog-convert: writing the dialog to /dev/full: write: no space left on device\n",
	} {
		code, _, errOut := runCLI(t, claudeRun, "-o", target)
		assert.Equal(t, 1, code, target)
		assert.Equal(t, want, errOut, target)
	}
}

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	code, _, errOut := runCLI(t, claudeRun, "-o", good)
	require.Equal(t, 0, code, errOut)
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"seq":1,"ts":"x","type":"init"}`+"\n"), 0o644))

	code, out, _ := runCLI(t, "", "validate", good)
	assert.Equal(t, 0, code)
	assert.Empty(t, out)

	code, out, _ = runCLI(t, "", "validate", good, bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, bad+":1: seq 1 where 0 was expected\n")
	assert.Contains(t, out, bad+":1: no complete entry")

	code, out, _ = runCLI(t, "", "validate", "--json", good, bad)
	assert.Equal(t, 1, code)
	var reports []fileReport
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var r fileReport
		require.NoError(t, dec.Decode(&r))
		reports = append(reports, r)
	}
	require.Len(t, reports, 2)
	assert.True(t, reports[0].Valid)
	assert.Empty(t, reports[0].Findings)
	assert.False(t, reports[1].Valid)
	assert.Equal(t, 1, reports[1].Findings[0].Line)

	code, _, _ = runCLI(t, "", "validate", "-")
	assert.Equal(t, 1, code, "empty input is an empty dialog")
}

// readDialog reads a dialog file, requires it to be valid, and decodes it.
func readDialog(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	requireValid(t, b)
	var es []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &e))
		es = append(es, e)
	}
	return es
}
