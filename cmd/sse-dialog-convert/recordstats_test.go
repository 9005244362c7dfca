package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// statsClaude is a Claude stream of 6 records: system/init (converted: it
// gives init), rate_limit_event (skipped: type not read), an assistant
// text (converted: a message), the same block again (skipped: duplicate),
// a line that is not JSON (skipped: broken) and the result (converted:
// it gives complete).
const statsClaude = `{"type":"system","subtype":"init","model":"m","cwd":"/w","session_id":"s"}
{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}}
{"type":"assistant","message":{"id":"msg_1","model":"m","content":[{"type":"text","text":"hi"}]}}
{"type":"assistant","message":{"id":"msg_1","model":"m","content":[{"type":"text","text":"hi"}]}}
not json
{"type":"result","subtype":"success","is_error":false,"result":"hi","duration_ms":5}
`

// statsCodex is a Codex stream of 4 records, every one converted.
const statsCodex = `{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"done"}}
{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}
`

type statsOut struct {
	Input, Dialog, Format    string
	Read, Converted, Skipped int
	Entries                  int
	Kinds                    map[string]struct{ Read, Converted, Skipped, Held, Entries int }
	Skips                    []struct {
		Kind, Reason   string
		Records, Parts int
	}
	Files []statsOut
}

// lastJSON parses the last line of stderr as --stats=json's object.
func lastJSON(t *testing.T, stderr string) statsOut {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	var s statsOut
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &s), "stderr:\n%s", stderr)
	return s
}

func writeInput(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestStatsJSONSingleFile(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, dir, "t.jsonl", statsClaude)
	// --strict fails the run (a broken line): its message comes before the
	// stats, which stay the last line.
	code, _, stderr := runCLI(t, "", "--stats=json", "--strict", "-o", filepath.Join(dir, "d.jsonl"), in)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--strict")
	s := lastJSON(t, stderr)
	assert.Equal(t, in, s.Input)
	assert.Equal(t, "claude", s.Format)
	assert.Equal(t, 6, s.Read)
	assert.Equal(t, 3, s.Converted)
	assert.Equal(t, 3, s.Skipped)
	assert.Equal(t, 3, s.Entries, "init, the message, complete")
	assert.Equal(t, 2, s.Kinds["assistant"].Read)
	assert.Equal(t, 1, s.Kinds["assistant"].Skipped)
	assert.Equal(t, 1, s.Kinds["system/init"].Converted)
	assert.Equal(t, 1, s.Kinds["result/success"].Converted)
	assert.Len(t, s.Skips, 3)
	assert.Nil(t, s.Files, "one input: no per-file list")
}

func TestStatsStandardInput(t *testing.T) {
	code, stdout, stderr := runCLI(t, statsCodex, "--stats=json", "-o", "-")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 3, strings.Count(stdout, "\n"), "init, the message, complete: the stats are not on stdout")
	s := lastJSON(t, stderr)
	assert.Equal(t, "codex", s.Format)
	assert.Equal(t, 4, s.Read)
	assert.Equal(t, 4, s.Converted)
	assert.Equal(t, 0, s.Skipped)
	assert.Empty(t, s.Skips)
}

func TestStatsBatch(t *testing.T) {
	dir := t.TempDir()
	a := writeInput(t, dir, "a.jsonl", statsClaude)
	b := writeInput(t, dir, "b.jsonl", statsCodex)
	out := filepath.Join(dir, "out")

	code, _, stderr := runCLI(t, "", "--stats=json", "--jobs", "2", "--out-dir", out, a, b)
	require.Equal(t, 0, code, stderr)
	s := lastJSON(t, stderr)
	require.Len(t, s.Files, 2)
	assert.Equal(t, a, s.Files[0].Input, "in argument order")
	assert.Equal(t, b, s.Files[1].Input)
	assert.Equal(t, "claude", s.Files[0].Format)
	assert.Equal(t, 6, s.Files[0].Read)
	assert.Equal(t, 4, s.Files[1].Read)
	assert.Equal(t, 10, s.Read, "summed")
	assert.Equal(t, 7, s.Converted)
	assert.Equal(t, 3, s.Skipped)
	assert.Equal(t, s.Files[0].Entries+s.Files[1].Entries, s.Entries)
	assert.Equal(t, 1, s.Kinds["claude:rate_limit_event"].Skipped, "two formats: kinds named by format")
	assert.Equal(t, 1, s.Kinds["codex:turn.started"].Converted)

	code, _, stderr = runCLI(t, "", "--stats", "--out-dir", out, a, b)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "stats: 2 files: 10 records read: 7 converted, 3 skipped;")
	assert.NotContains(t, stderr, `"files"`)
}

// claudeCalls is a Claude stream-json run of n tool calls (Bash, Claude's
// 30-character ids, a result of about 200 bytes each), as the issue's
// 80,000-call stream.
func claudeCalls(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"system","subtype":"init","model":"claude-sonnet-4-5","cwd":"/work","session_id":"s"}` + "\n")
	out := strings.Repeat("abcdefghijklmnopqrstuvwxyz", 8)
	for i := range n {
		id := fmt.Sprintf("toolu_01%022d", i)
		fmt.Fprintf(&b, `{"type":"assistant","message":{"id":"msg_%d","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"%s","name":"Bash","input":{"command":"grep -rn 'pattern_%d' src/ | head -20","description":"Search for the pattern in the sources"}}]},"session_id":"s"}`+"\n", i, id, i)
		fmt.Fprintf(&b, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"%s","content":"%s","is_error":false}]},"session_id":"s"}`+"\n", id, out)
	}
	b.WriteString(`{"type":"result","subtype":"success","is_error":false,"duration_ms":1000,"result":"done","usage":{"input_tokens":1,"output_tokens":1}}` + "\n")
	return b.String()
}

// The stream: 80,000 calls gave 160,002 entries in 34-37 MiB, exit
// 0, nothing said. Now the dialog is under the 30 MiB budget with every
// entry (and the note of what the budget cut), and stderr says so.
func TestBudget80000CallClaudeStream(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, dir, "calls.jsonl", claudeCalls(80_000))
	outPath := filepath.Join(dir, "d.jsonl")
	code, _, stderr := runCLI(t, "", "--stats=json", "-o", outPath, in)
	require.Equal(t, 0, code, stderr)
	st, err := os.Stat(outPath)
	require.NoError(t, err)
	assert.LessOrEqual(t, st.Size(), int64(30<<20))
	s := lastJSON(t, stderr)
	assert.Equal(t, 160_000+3, s.Entries, "init, 160,000 tool entries, the budget's note, complete")
	assert.Equal(t, 160_002, s.Read)
	assert.Equal(t, 160_002, s.Converted)
	assert.Contains(t, stderr, "warning: the dialog is filling its budget")
	raw, err := os.ReadFile(outPath)
	require.NoError(t, err)
	assert.Equal(t, 160_003, strings.Count(string(raw), "\n"))
}
