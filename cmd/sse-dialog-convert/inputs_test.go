package main

// FILEs a format reads from disk (session files, folders of them), zstd,
// and --files-from.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// mergedSession is the Claude session fixture whose subagents are in
// files of their own (testdata/claude-session/subagent-files-merged): its
// golden is the one dialog of the session, subagents merged in.
const mergedSession = "../../testdata/claude-session/subagent-files-merged"

// claudeProject writes the merged fixture back as Claude Code 2.1 keeps it
// in dir: the session file, and its subagents in <session>/subagents/
// (the fixture is that merge: its own lines, and each subagent's lines in
// an envelope naming the agent). It returns the session file's path.
func claudeProject(t *testing.T, dir string) string {
	t.Helper()
	main, agents, _ := adaptertest.UnmergeSubagents(t, readFile(t, mergedSession+".in.jsonl"))
	require.Len(t, agents, 2)
	sid := "98d34dcc-b045-4dce-81c6-77796f4e5163"
	session := filepath.Join(dir, sid+".jsonl")
	adaptertest.Put(t, session, main)
	for id, lines := range agents {
		adaptertest.Put(t, filepath.Join(dir, sid, "subagents", "agent-"+id+".jsonl"), lines)
	}
	// The first subagent's call is named by its .meta.json; the second is
	// tied by the call's result (toolUseResult.agentId).
	adaptertest.Put(t, filepath.Join(dir, sid, "subagents", "agent-a579bb95fbbe1ebce.meta.json"), []byte(`{"toolUseId":"toolu_fg"}`))
	return session
}

// TestSessionFiles: a Claude session file, its session's folder and its
// project folder each give the one dialog of the session, subagents
// merged from their files: the golden. A project folder of two sessions
// needs --out-dir, which gives one dialog each.
func TestSessionFiles(t *testing.T) {
	t.Setenv("SSE_MODEL_NAME", "")
	t.Setenv("SSE_TASK_ID", "")
	project := filepath.Join(t.TempDir(), "-sandbox-work-sub")
	session := claudeProject(t, project)
	want := string(readFile(t, mergedSession+".out.jsonl"))
	require.Contains(t, want, `"parent_tool_id":"toolu_fg"`, "the golden has the subagents' entries")
	for _, file := range []string{session, strings.TrimSuffix(session, ".jsonl"), project} {
		code, out, errOut := runCLI(t, "", append(append([]string{}, goldenArgs...), file)...)
		require.Equal(t, 0, code, "%s: %s", file, errOut)
		assert.Equal(t, want, out, "from %s", file)
	}

	// A second session in the project: two dialogs.
	second := filepath.Join(project, "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
	adaptertest.Put(t, second, readFile(t, "../../testdata/claude-session/print-mode-2.1.in.jsonl"))
	out := filepath.Join(t.TempDir(), "d.jsonl")
	code, _, errOut := runCLI(t, "", project, "-o", out)
	assert.Equal(t, 2, code)
	assert.Equal(t, name+": "+project+" holds 2 sessions, each a dialog of its own: convert them with --out-dir DIR\n", errOut)
	assert.NoFileExists(t, out)
	code, _, errOut = runCLI(t, "", session, textOnlyRun, "-o", out)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, session+" is a Claude Code session file")
	assert.NoFileExists(t, out)

	dir := filepath.Join(t.TempDir(), "out")
	code, errOut = batchRun(t, "--out-dir", dir, "--clock", "2026-01-02T03:04:05Z", "--cwd", "/work", "--task", "fixture", project)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "2 files: 2 converted, 0 failed;")
	dialogs := readDialogs(t, dir)
	assert.Equal(t, want, string(dialogs["98d34dcc-b045-4dce-81c6-77796f4e5163.dialog.jsonl"]))
	assert.Equal(t, string(readFile(t, "../../testdata/claude-session/print-mode-2.1.out.jsonl")), string(dialogs["5c0375b4-57a5-4f26-b12d-d022ee4e51b7.dialog.jsonl"]))
	assert.Len(t, dialogs, 2)

	// --tee copies a stream; a session is its files merged.
	code, _, errOut = runCLI(t, "", "--tee", session, "-o", out)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--tee copies a stream as it is read")
}

// geminiChats writes the merged Gemini CLI fixture (gemini-session/subagent)
// back as Gemini CLI keeps it in dir: the session's chat file, and its
// subagent's chat in <dir>/<session id>/<the subagent's session id>.jsonl,
// each line as the envelope holds it. It returns the chat file's path.
func geminiChats(t *testing.T, dir string) string {
	t.Helper()
	var main, sub []byte
	var sessionID, agentID string
	for _, line := range bytes.Split(bytes.TrimSpace(readFile(t, "../../testdata/gemini-session/subagent.in.jsonl")), []byte("\n")) {
		var env struct {
			Type      string          `json:"type"`
			SessionID string          `json:"sessionId"`
			Line      json.RawMessage `json:"line"`
		}
		require.NoError(t, json.Unmarshal(line, &env))
		switch {
		case env.Type != "gemini-session-subagent":
			if sessionID == "" {
				sessionID = env.SessionID
			}
			main = append(append(main, line...), '\n')
		case env.Line != nil: // not the call's start, which the opener makes
			if agentID == "" {
				var first struct {
					SessionID string `json:"sessionId"`
				}
				require.NoError(t, json.Unmarshal(env.Line, &first))
				agentID = first.SessionID
			}
			sub = append(append(sub, env.Line...), '\n')
		}
	}
	require.NotEmpty(t, sessionID)
	require.NotEmpty(t, agentID)
	chat := filepath.Join(dir, "session-2026-03-01T14-00-11111111.jsonl")
	adaptertest.Put(t, chat, main)
	adaptertest.Put(t, filepath.Join(dir, sessionID, agentID+".jsonl"), sub)
	return chat
}

// TestGeminiSessionFiles: a Gemini CLI chat file and its folder give the
// one dialog of the session, its subagent's chat spliced in from its own
// file: the golden of the merged fixture.
func TestGeminiSessionFiles(t *testing.T) {
	t.Setenv("SSE_MODEL_NAME", "")
	t.Setenv("SSE_TASK_ID", "")
	dir := t.TempDir()
	chat := geminiChats(t, dir)
	want := string(readFile(t, "../../testdata/gemini-session/subagent.out.jsonl"))
	require.Contains(t, want, `"parent_tool_id":"invoke_agent__1"`, "the golden has the subagent's entries")
	for _, file := range []string{chat, dir} {
		code, out, errOut := runCLI(t, "", append(append([]string{}, goldenArgs...), file)...)
		require.Equal(t, 0, code, "%s: %s", file, errOut)
		assert.Equal(t, want, out, "from %s", file)
	}
}

// TestSessionFilesAreNeverOverwritten: no dialog goes over a file a
// session is read from: the session file, a subagent's file (which the
// format reads though it is no FILE), nor, in a batch, any session found.
func TestSessionFilesAreNeverOverwritten(t *testing.T) {
	project := t.TempDir()
	session := claudeProject(t, project)
	agent := filepath.Join(strings.TrimSuffix(session, ".jsonl"), "subagents", "agent-a08cbc765fa4d8604.jsonl")
	files := []string{session, agent}
	before := snapshot(t, files...)
	for _, args := range [][]string{
		{session, "-o", session},
		{project, "-o", session},
		{session, "-o", agent},
		{project, "-o", agent},
	} {
		code, _, errOut := runCLI(t, "", args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Contains(t, errOut, "refusing to write the dialog to "+args[2], "%v", args)
		requireUnchanged(t, before)
	}
	// In a batch, the dialog of session s would be named as session
	// s.dialog, found in the same folder.
	other := filepath.Join(project, "s.dialog.jsonl")
	require.NoError(t, os.Rename(session, filepath.Join(project, "s.jsonl")))
	adaptertest.Put(t, other, readFile(t, "../../testdata/claude-session/print-mode-2.1.in.jsonl"))
	before = snapshot(t, other)
	code, errOut := batchRun(t, "--out-dir", project, project)
	assert.Equal(t, 2, code)
	assert.Equal(t, name+": refusing to write the dialog to "+other+": it is the same file as the input "+other+"\n", errOut)
	requireUnchanged(t, before)
}

// TestRolloutFolders: a Codex day folder is one dialog per rollout, a
// .jsonl.zst one too, named without .jsonl.zst; a rollout FILE alone goes
// to -o. zstd data is read as such on standard input too.
func TestRolloutFolders(t *testing.T) {
	t.Setenv("SSE_MODEL_NAME", "")
	t.Setenv("SSE_TASK_ID", "")
	day := filepath.Join(t.TempDir(), "sessions", "2026", "11", "30")
	a, b := "../../testdata/codex-rollout/exec-tools", "../../testdata/codex-rollout/compaction"
	adaptertest.Put(t, filepath.Join(day, "rollout-2026-11-30T16-59-10-a.jsonl"), readFile(t, a+".in.jsonl"))
	adaptertest.Put(t, filepath.Join(day, "rollout-2026-11-30T17-00-00-b.jsonl.zst"), adaptertest.Zstd(t, readFile(t, b+".in.jsonl")))
	adaptertest.Put(t, filepath.Join(day, "notes.txt"), []byte("not a rollout\n"))

	dir := filepath.Join(t.TempDir(), "out")
	code, errOut := batchRun(t, "--out-dir", dir, "--clock", "2026-01-02T03:04:05Z", "--cwd", "/work", "--task", "fixture", filepath.Dir(filepath.Dir(day)))
	require.Equal(t, 0, code, errOut)
	dialogs := readDialogs(t, dir)
	assert.Equal(t, string(readFile(t, a+".out.jsonl")), string(dialogs["rollout-2026-11-30T16-59-10-a.dialog.jsonl"]))
	assert.Equal(t, string(readFile(t, b+".out.jsonl")), string(dialogs["rollout-2026-11-30T17-00-00-b.dialog.jsonl"]))
	assert.Len(t, dialogs, 2)

	code, out, errOut := runCLI(t, "", append(append([]string{}, goldenArgs...), filepath.Join(day, "rollout-2026-11-30T17-00-00-b.jsonl.zst"))...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, string(readFile(t, b+".out.jsonl")), out)

	// On standard input: a live stream (init takes the clock's time), the
	// same as the plain stream.
	code, fromZstd, errOut := runCLI(t, string(adaptertest.Zstd(t, readFile(t, textOnlyRun))), "-o", "-", "--clock", "0", "--cwd", "/w")
	require.Equal(t, 0, code, errOut)
	code, plain, _ := runCLI(t, string(readFile(t, textOnlyRun)), "-o", "-", "--clock", "0", "--cwd", "/w")
	require.Equal(t, 0, code)
	assert.Equal(t, plain, fromZstd)
}

// TestFilesFrom: --files-from adds the FILEs of a list (a file, or
// standard input), one a line or NUL-separated with -0, to those given;
// the dialogs are as for the same FILEs given on the command line.
func TestFilesFrom(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, src := range []string{"claude/text-only", "codex/current-commands", "claude/subagent-agent"} {
		f := filepath.Join(dir, "runs", string(rune('a'+i)), "transcript.jsonl")
		adaptertest.Put(t, f, readFile(t, "../../testdata/"+src+".in.jsonl"))
		files = append(files, f)
	}
	args := func(out string, more ...string) []string {
		return append([]string{"--out-dir", filepath.Join(dir, out), "--clock", "0"}, more...)
	}
	code, errOut := batchRun(t, args("direct", files...)...)
	require.Equal(t, 0, code, errOut)
	want := readDialogs(t, filepath.Join(dir, "direct"))
	require.Len(t, want, 3)

	list := filepath.Join(dir, "list.txt")
	adaptertest.Put(t, list, []byte(files[1]+"\n\n"+files[2]+"\n"))
	code, errOut = batchRun(t, args("list", "--files-from", list, files[0])...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, want, readDialogs(t, filepath.Join(dir, "list")))
	assert.Equal(t, name+": 3 files: 3 converted, 0 failed; "+entriesIn(want)+", 0 input lines skipped\n", errOut)

	r := program{args: args("stdin", "--files-from", "-", "-0"), stdin: strings.NewReader(strings.Join(files, "\x00") + "\x00")}.run(t)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, want, readDialogs(t, filepath.Join(dir, "stdin")))

	// Its usage errors, and an empty list, are cases of TestCLI.

	// The list is an input: no dialog is written over it.
	over := filepath.Join(dir, "runs", "a", "transcript.dialog.jsonl")
	adaptertest.Put(t, over, []byte(files[0]+"\n"))
	before := snapshot(t, over)
	code, errOut = batchRun(t, "--out-dir", filepath.Dir(over), "--files-from", over)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "it is the same file as --files-from "+over)
	requireUnchanged(t, before)
}

// entriesIn counts the entries of dialogs, as the summary line says it.
func entriesIn(dialogs map[string][]byte) string {
	n := 0
	for _, d := range dialogs {
		n += bytes.Count(d, []byte("\n"))
	}
	return cli.Plural(n, "entry")
}

// TestCompressedLongSSELine: a compressed file's read buffer is sized from
// its (compressed) size; a Server-Sent Events line longer than that buffer
// is still an event, as it is in the plain file.
func TestCompressedLongSSELine(t *testing.T) {
	dir := t.TempDir()
	line := "data: " + `{"type":"assistant","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"text","text":"` + strings.Repeat("x", 30000) + `"}]},"parent_tool_use_id":null}` + "\n\n"
	plain, packed := filepath.Join(dir, "events.txt"), filepath.Join(dir, "events.txt.zst")
	adaptertest.Put(t, plain, []byte(line))
	adaptertest.Put(t, packed, adaptertest.Zstd(t, []byte(line)))
	require.Less(t, len(readFile(t, packed)), 16<<10, "smaller than the least read buffer")
	code, want, errOut := runCLI(t, "", "-o", "-", "--clock", "0", "--cwd", "/w", plain)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, want, strings.Repeat("x", 30000))
	code, got, errOut := runCLI(t, "", "-o", "-", "--clock", "0", "--cwd", "/w", packed)
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut)
	assert.True(t, want == got, "the same dialog as from the plain file (%d bytes, got %d)", len(want), len(got))
}
