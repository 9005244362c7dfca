package claudesession

// Session files on disk that are torn, hostile or huge: what the two
// passes make of them.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
)

// chainSession is a session of n turns, one line each of the user's and
// the assistant's, every line's parentUuid the line before it: line 2i+1
// says "ask i", line 2i+2 answers "answer i".
func chainSession(sid string, n int) []string {
	var lines []string
	parent := "null"
	for i := range n {
		u := fmt.Sprintf("00000000-0000-4000-8000-%012d", 2*i)
		a := fmt.Sprintf("00000000-0000-4000-8000-%012d", 2*i+1)
		ts := fmt.Sprintf("2026-01-15T17:%02d:%02d.000Z", i/60, i%60)
		lines = append(lines,
			`{"parentUuid":`+parent+`,"isSidechain":false,"cwd":"/w","sessionId":"`+sid+`","type":"user","message":{"role":"user","content":"ask `+fmt.Sprint(i)+`"},"uuid":"`+u+`","timestamp":"`+ts+`"}`,
			`{"parentUuid":"`+u+`","isSidechain":false,"cwd":"/w","sessionId":"`+sid+`","type":"assistant","message":{"id":"msg_`+fmt.Sprint(i)+`","role":"assistant","model":"claude-x","content":[{"type":"text","text":"answer `+fmt.Sprint(i)+`"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}},"uuid":"`+a+`","timestamp":"`+ts+`"}`)
		parent = `"` + a + `"`
	}
	return lines
}

func writeLines(t *testing.T, path string, lines []string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
}

// convertSession converts one session as the command does, reporting to
// stderr.
func convertSession(t *testing.T, path string, opt Options) (out []byte, stderr string) {
	t.Helper()
	r, err := OpenSessionWith(path, opt)
	require.NoError(t, err)
	defer r.Close()
	var buf, errs bytes.Buffer
	c := dispatch.New(&buf, adaptertest.Options(), dispatch.Options{Formats: []adapter.Format{Format()}, Forced: true, Stderr: &errs, MaxLine: opt.MaxLine})
	require.NoError(t, c.Feed(r, path))
	require.NoError(t, c.Close(nil))
	adaptertest.RequireValid(t, buf.Bytes())
	return buf.Bytes(), errs.String()
}

// TestTornLineKeepsWhatCameBefore: a line cut in half in the middle of a
// session (a crash mid-write, then a resumed session) loses that line
// alone: every other turn is in the dialog, with a warning naming the
// line, reported at its line of the file. Before, the chain broke there
// and the dialog started after the hole.
func TestTornLineKeepsWhatCameBefore(t *testing.T) {
	const turns = 50
	path := filepath.Join(t.TempDir(), "s.jsonl")
	lines := chainSession("s", turns)
	const cut = 40 // line 41: "ask 20"
	lines[cut] = lines[cut][:len(lines[cut])/2]
	writeLines(t, path, lines)

	out, stderr := convertSession(t, path, Options{})
	for i := range turns {
		assert.True(t, bytes.Contains(out, []byte(`"answer `+fmt.Sprint(i)+`"`)), "answer %d", i)
		if i == 20 {
			assert.False(t, bytes.Contains(out, []byte(`"ask 20"`)), "the torn line's own text is lost")
			continue
		}
		assert.True(t, bytes.Contains(out, []byte(`"ask `+fmt.Sprint(i)+`"`)), "ask %d", i)
	}
	assert.Contains(t, string(out), `"⚠ line 41 of the session file could not be read (not valid JSON): skipped"`)
	assert.Equal(t, path+":41: skipped: not valid JSON"+frame.Preview([]byte(lines[cut]))+"\n", stderr)
	assert.Contains(t, string(out), `"status":"success"`)

	// A sidechain line after the hole falls back to the sidechain's
	// latest line, not the main chain's: whole files resolve as before.
	g, err := scan(strings.NewReader(strings.Join(lines, "\n")), frame.Options{})
	require.NoError(t, err)
	assert.True(t, g.holed)
	assert.Equal(t, int32(cut-1), g.parent[cut], "the child of the torn line: the line before it")
}

// TestTornResultLine: a tool result's line cut in half loses that result
// alone: once a later answer shows the conversation went on, the call is
// closed as an error that names the line, and the session's ending is its
// last answer's, not "incomplete".
func TestTornResultLine(t *testing.T) {
	u := func(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }
	line := func(i int, typ, message string) string {
		parent := "null"
		if i > 0 {
			parent = `"` + u(i-1) + `"`
		}
		return `{"parentUuid":` + parent + `,"isSidechain":false,"cwd":"/w","sessionId":"s","type":"` + typ + `","message":` + message +
			`,"uuid":"` + u(i) + `","timestamp":"2026-01-15T17:00:0` + fmt.Sprint(i) + `.000Z"}`
	}
	lines := []string{
		line(0, "user", `{"role":"user","content":"list it"}`),
		line(1, "assistant", `{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`),
		line(2, "user", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a b c"}]}`),
		line(3, "assistant", `{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Three files."}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`),
	}
	lines[2] = lines[2][:len(lines[2])/2]
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeLines(t, path, lines)
	out, _ := convertSession(t, path, Options{})
	assert.Contains(t, string(out), `"tool_id":"toolu_1","name":"Bash","status":"error","error":"[no result in the session file: line 3, which could not be read, may have held it]"`)
	assert.Contains(t, string(out), `"Three files."`)
	assert.Contains(t, string(out), `"type":"complete","status":"success"`)
}

// TestUnknownParentRule: in a file with no unreadable line, a first line
// whose parent is not in the file is a root, as it always was (a session
// resumed from another file names a parent that is not in this one). A
// later main-thread line whose parent is not in the file follows the main
// chain's line before it: the file lost that parent (an export or a
// fixture reducer that dropped attachment or hook lines). Before, it was
// a root, and the conversation before it was dropped as rewound.
func TestUnknownParentRule(t *testing.T) {
	lines := chainSession("s", 3)
	lines[0] = strings.Replace(lines[0], `"parentUuid":null`, `"parentUuid":"11111111-0000-4000-8000-000000000000"`, 1)
	lines[2] = strings.Replace(lines[2], `"parentUuid":"00000000-0000-4000-8000-000000000001"`, `"parentUuid":"11111111-0000-4000-8000-000000000001"`, 1)
	g, err := scan(strings.NewReader(strings.Join(lines, "\n")), frame.Options{})
	require.NoError(t, err)
	assert.False(t, g.holed)
	assert.Equal(t, int32(noParent), g.parent[0], "the first line: resumed from another file")
	assert.Equal(t, int32(1), g.parent[2], "a later line: the main chain's line before it")
	inc := g.included()
	for i := range len(lines) {
		assert.True(t, inc.has(int32(i)), "line %d is on the conversation", i+1)
	}
}

// TestScanHonoursMaxLine: a valid line longer than --max-line is an
// unreadable line with that reason (not "not valid JSON"); with no limit
// it is converted.
func TestScanHonoursMaxLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	lines := chainSession("s", 3)
	lines[3] = strings.Replace(lines[3], `"answer 1"`, `"answer 1 `+strings.Repeat("x", 5000)+`"`, 1)
	writeLines(t, path, lines)

	out, stderr := convertSession(t, path, Options{MaxLine: 1000})
	assert.NotContains(t, string(out), `answer 1 xxx`)
	assert.Contains(t, string(out), `"⚠ line 4 of the session file could not be read (longer than the line limit of 1000 bytes (--max-line)): skipped"`)
	assert.Contains(t, stderr, path+":4: skipped: longer than the line limit of 1000 bytes (--max-line)")
	assert.Contains(t, string(out), `"answer 2"`)

	out, stderr = convertSession(t, path, Options{MaxLine: -1})
	assert.Contains(t, string(out), `answer 1 xxx`)
	assert.Empty(t, stderr)
}

// TestUnreadableSubagentFile: a subagent file that is a FIFO (which would
// block for ever), or whose .meta.json is /dev/zero (which would fill
// memory): the session converts without that subagent's file, with a
// warning, and the .meta.json is not read.
func TestUnreadableSubagentFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	writeLines(t, path, chainSession("s", 2))
	sub := filepath.Join(dir, "s", "subagents")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(sub, "agent-fifo.jsonl"), 0o644))
	writeLines(t, filepath.Join(sub, "agent-zero.jsonl"), []string{`{"parentUuid":null,"isSidechain":true,"agentId":"zero","sessionId":"s","type":"user","message":{"role":"user","content":"go"},"uuid":"a0","timestamp":"2026-01-15T17:00:00.000Z"}`})
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(sub, "agent-zero.meta.json")))

	out, stderr := convertSession(t, path, Options{})
	assert.Contains(t, string(out), `"⚠ subagent fifo's file (agent-fifo.jsonl) could not be read (not a regular file): the session is converted without it"`)
	assert.Equal(t, filepath.Join(sub, "agent-fifo.jsonl")+": skipped: not a regular file\n", stderr)
	assert.Contains(t, string(out), `"answer 1"`)
	assert.Contains(t, string(out), `"status":"success"`)
}

// TestFolderReadOncePerFolder: the sessions of one folder share one
// listing of it: opening every session of a folder of n reads it once
// (it was read twice per session: n² entries for the folder).
func TestFolderReadOncePerFolder(t *testing.T) {
	dir := t.TempDir()
	const n = 300
	for i := range n {
		sid := fmt.Sprintf("s%04d", i)
		writeLines(t, filepath.Join(dir, sid+".jsonl"), chainSession(sid, 1))
	}
	// One session with its own subagents folder: read once more.
	writeLines(t, filepath.Join(dir, "s0007", "subagents", "agent-x.jsonl"), []string{`{"parentUuid":null,"isSidechain":true,"agentId":"x","sessionId":"s0007","type":"user","message":{"role":"user","content":"go"},"uuid":"a0","timestamp":"2026-01-15T17:00:00.000Z"}`})
	var reads, entries atomic.Int64
	ins, ok, err := inputsOf(dir, func(p string) ([]os.DirEntry, error) {
		reads.Add(1)
		es, err := os.ReadDir(p)
		entries.Add(int64(len(es)))
		return es, err
	})
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, ins, n)
	for _, in := range ins {
		r, err := in.Open()
		require.NoError(t, err)
		_, err = io.Copy(io.Discard, r)
		require.NoError(t, err)
		require.NoError(t, r.Close())
	}
	assert.Equal(t, int64(2), reads.Load(), "the folder once, s0007/subagents once")
	assert.Equal(t, int64(n+1+1), entries.Load(), "n sessions and s0007/ listed once, agent-x once")
}

// TestGluedLineIsKept: a crash mid-write leaves a line cut short with no
// newline, and the resumed session writes its next line onto it: the
// whole line at the end is kept, the fragment alone is lost and told.
func TestGluedLineIsKept(t *testing.T) {
	const turns = 30
	path := filepath.Join(t.TempDir(), "s.jsonl")
	lines := chainSession("s", turns)
	const cut = 41 // line 42: "answer 20"; "ask 21" is written onto it
	glued := lines[cut][:len(lines[cut])/2] + lines[cut+1]
	lines = append(append(append([]string{}, lines[:cut]...), glued), lines[cut+2:]...)
	writeLines(t, path, lines)

	out, stderr := convertSession(t, path, Options{})
	for i := range turns {
		assert.True(t, bytes.Contains(out, []byte(`"ask `+fmt.Sprint(i)+`"`)), "ask %d", i)
		if i != 20 {
			assert.True(t, bytes.Contains(out, []byte(`"answer `+fmt.Sprint(i)+`"`)), "answer %d", i)
		}
	}
	assert.False(t, bytes.Contains(out, []byte(`"answer 20"`)), "the fragment's text is lost")
	assert.Contains(t, string(out), `"⚠ line 42 of the session file could not be read (`+reasonGlued+`): skipped"`)
	assert.Equal(t, path+":42: skipped: "+reasonGlued+frame.Preview([]byte(glued))+"\n", stderr)
}

// TestGluedTailBounded: a line of many line starts, none of them a whole
// line, is tried a bounded number of times.
func TestGluedTailBounded(t *testing.T) {
	var c checker
	hostile := []byte(`{"x` + strings.Repeat(`{"parentUuid":1,`, 10000))
	assert.Nil(t, c.gluedTail(hostile))
	assert.Equal(t, maxGlueTries, c.checks, "checks of a line of 10,000 line starts")
	assert.Nil(t, c.gluedTail([]byte(`{"parentUuid":"a","message":{"content":[{"type":"text"}`)), "an inner object that is no line")
	assert.Equal(t, `{"type":"summary","leafUuid":"u"}`, string(c.gluedTail([]byte(`{"parentUuid":"a","mess{"type":"summary","leafUuid":"u"}`))))
}

// TestUnreadableSubagentsFolder: a session's subagents folder that cannot
// be listed (here a symlink loop: root lists any folder whatever its mode)
// leaves the session converted without its subagents' files, with a
// warning.
func TestUnreadableSubagentsFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	writeLines(t, path, chainSession("s", 2))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "s"), 0o755))
	sub := filepath.Join(dir, "s", "subagents")
	require.NoError(t, os.Symlink("subagents", sub))

	out, stderr := convertSession(t, path, Options{})
	assert.Contains(t, string(out), `"⚠ the session's subagents folder could not be read (too many levels of symbolic links): the session is converted without its subagents' files"`)
	assert.Equal(t, sub+": skipped: too many levels of symbolic links\n", stderr)
	assert.Contains(t, string(out), `"answer 1"`)
}
