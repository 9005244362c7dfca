package adaptertest

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
)

// Put writes data to path, making its folders: a session file laid out
// for a format's Inputs to find.
func Put(t testing.TB, path string, data []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// Append appends s to the file at path, making the file if there is none:
// a file that grows while it is read.
func Append(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// UnmergeSubagents splits a merged-stream fixture of a Claude session
// (testdata/claude-session/*-merged.in.jsonl) back into the files Claude
// Code writes: the session's lines, and each subagent's lines by agentId
// (the fixture holds them in envelopes naming the agent), with the agents
// in the order their first lines come.
func UnmergeSubagents(t testing.TB, merged []byte) (main []byte, agents map[string][]byte, order []string) {
	t.Helper()
	agents = map[string][]byte{}
	for _, line := range bytes.Split(bytes.TrimSpace(merged), []byte("\n")) {
		var env struct {
			Type    string          `json:"type"`
			AgentID string          `json:"agentId"`
			Line    json.RawMessage `json:"line"`
		}
		require.NoError(t, json.Unmarshal(line, &env))
		switch env.Type {
		case "claude-session-start":
		case "claude-session-subagent":
			if _, ok := agents[env.AgentID]; !ok {
				order = append(order, env.AgentID)
			}
			agents[env.AgentID] = append(append(agents[env.AgentID], env.Line...), '\n')
		default:
			main = append(append(main, line...), '\n')
		}
	}
	return main, agents, order
}

// Names are the inputs' names, in order.
func Names(ins []adapter.Input) []string {
	var s []string
	for _, in := range ins {
		s = append(s, in.Name)
	}
	return s
}

// Opened is the stream an input opens, read whole; closing it must not fail.
func Opened(t testing.TB, in adapter.Input) []byte {
	t.Helper()
	r, err := in.Open()
	require.NoError(t, err)
	defer func() { require.NoError(t, r.Close()) }()
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return b
}
