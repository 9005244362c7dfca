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
