//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claudeSession is a Claude stream of calls tool calls, each result about
// size bytes.
func claudeSession(calls, size int) string {
	var b strings.Builder
	b.WriteString(hostileBase[0] + "\n")
	out := strings.Repeat(`line of output with \"quotes\" and \u00e9\n`, size/45+1)
	for i := range calls {
		fmt.Fprintf(&b, `{"type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"cat file%d"}}],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s"}`+"\n", i, i, i)
		fmt.Fprintf(&b, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"%s"}]},"parent_tool_use_id":null,"session_id":"s"}`+"\n", i, out)
	}
	b.WriteString(hostileBase[5] + "\n")
	return b.String()
}

// --max-bytes keeps the whole dialog under it (default 30 MiB), with every
// call paired; 0 turns the budget off; a negative value is a usage error.
func TestMaxBytesFlag(t *testing.T) {
	in := claudeSession(600, 40<<10) // 24 MB
	convert := func(args ...string) (int, []byte, string) {
		code, stdout, stderr := runCLI(t, in, append(append([]string{"-o", "-"}, hostileArgs...), args...)...)
		return code, []byte(stdout), stderr
	}
	budgetCut := []byte("more bytes cut for the file budget]")
	code, out, stderr := convert("--max-bytes", "1000000")
	require.Equal(t, 0, code, stderr)
	requireValid(t, out) // every call paired
	assert.LessOrEqual(t, len(out), 1000000)
	assert.Equal(t, 1+2*600+1, bytes.Count(out, []byte("\n")), "no entry dropped")
	assert.True(t, bytes.Contains(out, budgetCut))

	code, out, stderr = convert()
	require.Equal(t, 0, code, stderr)
	requireValid(t, out)
	assert.LessOrEqual(t, len(out), 30<<20)

	code, out, stderr = convert("--max-bytes", "0")
	require.Equal(t, 0, code, stderr)
	assert.False(t, bytes.Contains(out, budgetCut), "no budget")
	assert.True(t, bytes.Contains(out, []byte("more bytes cut]")), "--max-text still cuts")

	code, out, stderr = convert("--max-bytes", "0", "--max-text", "0")
	require.Equal(t, 0, code, stderr)
	assert.False(t, bytes.Contains(out, []byte("more bytes cut")), "nothing cut")

	code, _, stderr = convert("--max-bytes", "-5")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--max-bytes cannot be negative")
}

// Past 190,000 entries, one warning on stderr that says what happens: the
// web UI reads at most 200,000, so the budget stops short of that.
func TestManyEntriesWarning(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"turn.started"}` + "\n")
	for i := range 190_001 {
		fmt.Fprintf(&b, `{"type":"item.completed","item":{"id":"item_%d","type":"agent_message","text":"m"}}`+"\n", i)
	}
	b.WriteString(`{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}` + "\n")
	in := filepath.Join(t.TempDir(), "many.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(b.String()), 0o644))

	dir := t.TempDir()
	one := filepath.Join(dir, "one.jsonl")
	code, _, stderr := runCLI(t, "", append([]string{"-o", one}, append(hostileArgs, in)...)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, name+": "+one+": warning: the dialog has more than 190,000 entries: SSEBench's view of a finished run shows none past the 200,000th, so no new entry is written once that many would be reached (one message before complete counts those left out; --max-bytes 0 writes them all)\n",
		strings.Split(stderr, "\n")[0]+"\n", stderr)
	assert.Equal(t, 1, strings.Count(stderr, "warning:"), stderr)

	code, _, stderr = runCLI(t, "", append([]string{"--out-dir", dir}, append(hostileArgs, in)...)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 1, strings.Count(stderr, "more than 190,000 entries"), stderr)
	assert.Contains(t, stderr, name+": "+in+": warning: ")
}

// A saved Codex file has no timestamps: its duration is unknown, 0, not
// the time the conversion took.
func TestOfflineCodexDurationIsZero(t *testing.T) {
	in := filepath.Join(t.TempDir(), "codex.jsonl")
	var b strings.Builder
	b.WriteString(`{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"turn.started"}` + "\n")
	for i := range 20000 { // enough to take the conversion some milliseconds
		fmt.Fprintf(&b, `{"type":"item.completed","item":{"id":"item_%d","type":"command_execution","command":"ls","aggregated_output":"%s","exit_code":0,"status":"completed"}}`+"\n", i, strings.Repeat("x", 500))
	}
	b.WriteString(`{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}` + "\n")
	require.NoError(t, os.WriteFile(in, []byte(b.String()), 0o644))
	code, stdout, stderr := runCLI(t, "", "-o", "-", "--cwd", "/w", in) // no --clock: the wall clock
	require.Equal(t, 0, code, stderr)
	es := parseEntries(t, []byte(stdout))
	assert.Equal(t, 0.0, es[len(es)-1]["duration_ms"])
}
