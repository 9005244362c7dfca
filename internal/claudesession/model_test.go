package claudesession_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// initModel returns init.data.model of a dialog.
func initModel(t *testing.T, dialog []byte) string {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(dialog))
	require.True(t, sc.Scan())
	var init struct {
		Type string `json:"type"`
		Data struct {
			Model string `json:"model"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(sc.Bytes(), &init))
	require.Equal(t, "init", init.Type)
	return init.Data.Model
}

// TestSubagentFileAloneUnderAnyName: a subagent's file given alone names
// its model on its assistant lines, whatever the file is called (the
// first pass of a session file takes the model from main-thread lines
// only, and its header must not make init say unknown before them).
func TestSubagentFileAloneUnderAnyName(t *testing.T) {
	agent := read(t, testdata("agent-progress-only.agent.jsonl"))
	for _, name := range []string{"agent-a7f3c21.jsonl", "review-subagent.jsonl"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			adaptertest.Put(t, path, agent)
			assert.Equal(t, "claude-opus-4-5-20251101", initModel(t, convert(t, only(t, path))))
		})
	}
}

// TestModelLinesThroughInputs: a 2.1.x session with no answer names its
// model only on its model attachment (off the conversation's parentUuid
// chain) or its api-request lines; read through Inputs (two passes), init
// says it, as in the one-pass goldens.
func TestModelLinesThroughInputs(t *testing.T) {
	for _, name := range []string{"model-attachment-command-last", "model-from-api-request"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "8a1f3e52-6b7c-4d9e-a0f1-2b3c4d5e6f70.jsonl")
			adaptertest.Put(t, path, read(t, testdata(name+".in.jsonl")))
			got := convert(t, only(t, path))
			assert.Equal(t, "claude-opus-5-5", initModel(t, got))
			assert.Equal(t, string(read(t, testdata(name+".out.jsonl"))), string(got))
		})
	}
}
