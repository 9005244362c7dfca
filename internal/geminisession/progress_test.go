package geminisession_test

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/geminisession"
)

// A chat's stream counts the bytes of its files (adapter.ReadCounter, for
// the file budget's pace): the chat's from the start, its subagents'
// folder as soon as the header names it, before the stream returns its
// first record; read whole, every byte of every file, each once.
func TestOpenSessionCountsItsFiles(t *testing.T) {
	dir := t.TempDir()
	session := `{"sessionId":"sess-1","projectHash":"p","startTime":"2026-03-01T14:00:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-03-01T14:00:01.000Z","type":"user","content":[{"text":"delegate it"}]}
{"id":"g1","timestamp":"2026-03-01T14:00:02.000Z","type":"gemini","content":"","model":"gemini-2.5-pro","toolCalls":[{"id":"invoke_agent__1","name":"invoke_agent","agentId":"agent-7","args":{"prompt":"count"},"status":"success"}]}
`
	sub := `{"sessionId":"agent-7","projectHash":"p","startTime":"2026-03-01T14:00:02.100Z","kind":"subagent"}
{"id":"s1","timestamp":"2026-03-01T14:00:02.200Z","type":"gemini","content":"Counting.","model":"gemini-2.5-flash"}
`
	path := filepath.Join(dir, "session-1.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(session), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sess-1"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sess-1", "agent-7.jsonl"), []byte(sub), 0o644))
	// Not this session's: another session's folder.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sess-2"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sess-2", "agent-8.jsonl"), []byte(sub), 0o644))
	both := int64(len(session) + len(sub))

	r, err := geminisession.OpenSession(path)
	require.NoError(t, err)
	defer r.Close()
	rc, ok := r.(adapter.ReadCounter)
	require.True(t, ok, "%T is no adapter.ReadCounter", r)
	_, size, _ := rc.ReadCount()
	assert.Equal(t, int64(len(session)), size, "the chat, before it is read")

	br := bufio.NewReaderSize(r, 16)
	_, err = br.ReadBytes('\n')
	require.NoError(t, err)
	_, size, _ = rc.ReadCount()
	assert.Equal(t, both, size, "the subagent's chat, from the header on")

	_, err = io.ReadAll(br)
	require.NoError(t, err)
	read, size, ahead := rc.ReadCount()
	assert.Equal(t, both, read)
	assert.Equal(t, both, size)
	assert.Equal(t, both, ahead, "small files: each may be held whole")
}
