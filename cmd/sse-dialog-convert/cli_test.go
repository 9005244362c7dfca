package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
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

	// The archive comes from the environment given, as a value.
	o := convertOptions{streams: cli.NewStreams(nil, io.Discard, io.Discard)}
	o.streams.Getenv = cli.Env(map[string]string{"SSE_ARCHIVE": ""})
	assert.Equal(t, "/tmp/sse-archive/dialog.jsonl", o.outputPath())
	o.streams.Getenv = cli.Env(map[string]string{"SSE_ARCHIVE": "/runs/7"})
	assert.Equal(t, "/runs/7/dialog.jsonl", o.outputPath())
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
