package claudesession_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/claudesession"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
)

func testdata(name string) string {
	return filepath.Join("..", "..", "testdata", "claude-session", name)
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// convert converts one input as the command does with its format.
func convert(t *testing.T, in adapter.Input) []byte {
	t.Helper()
	r, err := in.Open()
	require.NoError(t, err)
	defer func() { require.NoError(t, r.Close()) }()
	out := adaptertest.Convert(t, claudesession.Format(), r)
	adaptertest.RequireValid(t, out)
	return out
}

func only(t *testing.T, path string) adapter.Input {
	t.Helper()
	ins, ok, err := claudesession.Inputs(path)
	require.NoError(t, err)
	require.True(t, ok, "%s is a session", path)
	require.Len(t, ins, 1, "one session in %s", path)
	return ins[0]
}

// TestSubagentsFolderLayout: Claude Code 2.1 keeps each subagent in
// <session>/subagents/agent-<id>.jsonl, with a .meta.json naming its call
// (or, in older 2.1 builds, only the parent's tool result naming the
// agent). The session file, the session's folder and the project folder
// all give the one dialog, merged by time: the merged-stream golden.
func TestSubagentsFolderLayout(t *testing.T) {
	main, agents, order := adaptertest.UnmergeSubagents(t, read(t, testdata("subagent-files-merged.in.jsonl")))
	require.Equal(t, []string{"a579bb95fbbe1ebce", "a08cbc765fa4d8604"}, order)
	project := filepath.Join(t.TempDir(), "-sandbox-work-sub")
	sid := "98d34dcc-b045-4dce-81c6-77796f4e5163"
	session := filepath.Join(project, sid+".jsonl")
	adaptertest.Put(t, session, main)
	sub := filepath.Join(project, sid, "subagents")
	adaptertest.Put(t, filepath.Join(sub, "agent-a579bb95fbbe1ebce.jsonl"), agents["a579bb95fbbe1ebce"])
	adaptertest.Put(t, filepath.Join(sub, "agent-a579bb95fbbe1ebce.meta.json"), []byte(`{"agentType":"general-purpose","description":"Count files","toolUseId":"toolu_fg","spawnDepth":1}`))
	// No .meta.json: tied by toolUseResult.agentId of the call's result.
	adaptertest.Put(t, filepath.Join(sub, "agent-a08cbc765fa4d8604.jsonl"), agents["a08cbc765fa4d8604"])
	adaptertest.Put(t, filepath.Join(project, "memory", "MEMORY.md"), []byte("# notes\n"))
	// A subagent of a call the conversation does not hold (a rewound
	// branch's): left out.
	rewound := []byte(`{"parentUuid":null,"isSidechain":true,"sessionId":"` + sid + `","agentId":"a1111111111111111","type":"user","message":{"role":"user","content":"REWOUND AGENT"},"uuid":"e1000000-0000-4000-8000-000000000001","timestamp":"2026-11-30T16:56:04.300Z"}` + "\n" +
		`{"parentUuid":"e1000000-0000-4000-8000-000000000001","isSidechain":true,"sessionId":"` + sid + `","agentId":"a1111111111111111","message":{"model":"claude-opus-5-5","id":"msg_rw","type":"message","role":"assistant","content":[{"type":"text","text":"REWOUND AGENT ANSWER"}],"usage":{"input_tokens":5,"output_tokens":5}},"type":"assistant","uuid":"e1000000-0000-4000-8000-000000000002","timestamp":"2026-11-30T16:56:04.301Z"}` + "\n")
	adaptertest.Put(t, filepath.Join(sub, "agent-a1111111111111111.jsonl"), rewound)
	adaptertest.Put(t, filepath.Join(sub, "agent-a1111111111111111.meta.json"), []byte(`{"toolUseId":"toolu_rewound"}`))

	want := read(t, testdata("subagent-files-merged.out.jsonl"))
	for _, path := range []string{session, filepath.Join(project, sid), project, filepath.Dir(project)} {
		in := only(t, path)
		assert.Equal(t, session, in.Name)
		assert.Equal(t, string(want), string(convert(t, in)), "from %s", path)
	}

	// The stream counts the bytes of the files it merges (for the file
	// budget's pace): the session's and its included subagents', known
	// before the first record; the rewound branch's agent is read too,
	// for its lines to be counted (TestUntiedSubagentFilesCounted).
	r, err := only(t, session).Open()
	require.NoError(t, err)
	rc, ok := r.(adapter.ReadCounter)
	require.True(t, ok, "%T is no adapter.ReadCounter", r)
	merged := int64(len(main) + len(agents["a579bb95fbbe1ebce"]) + len(agents["a08cbc765fa4d8604"]) + len(rewound))
	_, size, _ := rc.ReadCount()
	assert.Equal(t, merged, size)
	_, err = io.ReadAll(r)
	require.NoError(t, err)
	read, _, _ := rc.ReadCount()
	assert.Equal(t, merged, read, "the second pass alone")
	require.NoError(t, r.Close())

	// A subagent's file given alone is its own conversation.
	in := only(t, filepath.Join(sub, "agent-a579bb95fbbe1ebce.jsonl"))
	got := string(convert(t, in))
	assert.Contains(t, got, `"type":"prompt","content":"SUBAGENT-JOB: count files in the cwd"`)
	assert.NotContains(t, got, "parent_tool_id")
}

// TestAgentFilesBesideSession: Claude Code 2.0 keeps subagents in
// agent-<id>.jsonl beside the session file, every line naming the parent
// session. A warm-up agent (tied to no call) and another session's agent
// are left out.
func TestAgentFilesBesideSession(t *testing.T) {
	main, agents, _ := adaptertest.UnmergeSubagents(t, read(t, testdata("subagent-files-merged.in.jsonl")))
	project := t.TempDir()
	sid := "98d34dcc-b045-4dce-81c6-77796f4e5163"
	session := filepath.Join(project, sid+".jsonl")
	adaptertest.Put(t, session, main)
	for id, lines := range agents {
		adaptertest.Put(t, filepath.Join(project, "agent-"+id+".jsonl"), lines)
	}
	warmup := `{"parentUuid":null,"isSidechain":true,"sessionId":"` + sid + `","agentId":"36541525","type":"user","message":{"role":"user","content":"Warmup"},"uuid":"22c35574-fe45-420a-873e-cd0e43965950","timestamp":"2026-11-30T16:56:04.000Z"}
{"parentUuid":"22c35574-fe45-420a-873e-cd0e43965950","isSidechain":true,"sessionId":"` + sid + `","agentId":"36541525","message":{"model":"claude-opus-5-5","id":"msg_warm","type":"message","role":"assistant","content":[{"type":"text","text":"WARMUP ANSWER"}],"usage":{"input_tokens":999,"output_tokens":9}},"type":"assistant","uuid":"22c35574-fe45-420a-873e-cd0e43965951","timestamp":"2026-11-30T16:56:04.001Z"}
`
	adaptertest.Put(t, filepath.Join(project, "agent-36541525.jsonl"), []byte(warmup))
	other := strings.ReplaceAll(warmup, sid, "11111111-2222-4333-8444-555555555555")
	other = strings.ReplaceAll(other, "36541525", "a579bb95fbbe1ebce")
	adaptertest.Put(t, filepath.Join(project, "agent-a579bb95fbbe1ebce-other.jsonl"), []byte(strings.ReplaceAll(other, "WARMUP", "OTHER SESSION")))

	ins, ok, err := claudesession.Inputs(project)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []string{session}, adaptertest.Names(ins), "agent files are no sessions of their own")
	got := convert(t, ins[0])
	assert.Equal(t, string(read(t, testdata("subagent-files-merged.out.jsonl"))), string(got))
	assert.NotContains(t, string(got), "WARMUP")
	assert.NotContains(t, string(got), "OTHER SESSION")
}

// TestTwoPassKeepsOnePassDialogs: for sessions with no rewound branch,
// reading the file through Inputs gives the dialog the one-pass golden
// holds (inline sidechains, commands, compaction through
// logicalParentUuid, duplicate lines, a .zst file).
func TestTwoPassKeepsOnePassDialogs(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"commands-and-inline-sidechains", "compaction-and-interrupt", "interactive-turns", "print-mode-2.1", "interrupted-last", "open-call-at-end"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name, "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
			adaptertest.Put(t, path, read(t, testdata(name+".in.jsonl")))
			assert.Equal(t, string(read(t, testdata(name+".out.jsonl"))), string(convert(t, only(t, path))))
		})
	}
	t.Run("zstd", func(t *testing.T) {
		path := filepath.Join(dir, "cold", "cf913de5-a0b1-431c-bfce-3ba285da4d5f.jsonl.zst")
		adaptertest.Put(t, path, adaptertest.Zstd(t, read(t, testdata("print-mode-2.1.in.jsonl"))))
		in := only(t, filepath.Dir(path))
		assert.Equal(t, path, in.Name)
		assert.Equal(t, string(read(t, testdata("print-mode-2.1.out.jsonl"))), string(convert(t, in)))
	})
}

// session lines for the rewind tests: u(ser) and a(ssistant) lines with a
// parent.
func userLine(uuid, parent, ts, text string) string {
	p := `null`
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"parentUuid":` + p + `,"isSidechain":false,"sessionId":"s1","cwd":"/w","type":"user","message":{"role":"user","content":` + text + `},"uuid":"` + uuid + `","timestamp":"` + ts + `"}`
}

func assistantLine(uuid, parent, ts, msgID, stop, content string) string {
	return `{"parentUuid":"` + parent + `","isSidechain":false,"sessionId":"s1","cwd":"/w","type":"assistant","message":{"id":"` + msgID + `","model":"claude-opus-5-5","role":"assistant","type":"message","stop_reason":` + stop + `,"content":` + content + `,"usage":{"input_tokens":100,"output_tokens":10}},"uuid":"` + uuid + `","timestamp":"` + ts + `"}`
}

// TestRewoundBranchDropped: after a rewind the file holds both branches;
// the conversation is the one last-prompt marks. Its message with two
// parallel tool calls (one line per call, results each on their own
// branch) is kept whole.
func TestRewoundBranchDropped(t *testing.T) {
	lines := []string{
		userLine("00000000-0000-4000-8000-000000000001", "", "2026-02-01T10:00:00.000Z", `"fix the bug"`),
		assistantLine("00000000-0000-4000-8000-000000000002", "00000000-0000-4000-8000-000000000001", "2026-02-01T10:00:01.000Z", "msg_old", `"end_turn"`, `[{"type":"text","text":"OLD BRANCH: done"}]`),
		userLine("00000000-0000-4000-8000-000000000003", "00000000-0000-4000-8000-000000000002", "2026-02-01T10:00:02.000Z", `"OLD BRANCH: and the docs"`),
		assistantLine("00000000-0000-4000-8000-000000000004", "00000000-0000-4000-8000-000000000003", "2026-02-01T10:00:03.000Z", "msg_old2", `"end_turn"`, `[{"type":"text","text":"OLD BRANCH: docs done"}]`),
		// rewound to the first prompt, asked again differently
		userLine("00000000-0000-4000-8000-000000000005", "", "2026-02-01T10:01:00.000Z", `"fix the bug, with a test"`),
		assistantLine("00000000-0000-4000-8000-000000000006", "00000000-0000-4000-8000-000000000005", "2026-02-01T10:01:01.000Z", "msg_new", `"tool_use"`, `[{"type":"tool_use","id":"toolu_a","name":"Read","input":{"file_path":"a.go"}}]`),
		assistantLine("00000000-0000-4000-8000-000000000007", "00000000-0000-4000-8000-000000000006", "2026-02-01T10:01:01.100Z", "msg_new", `"tool_use"`, `[{"type":"tool_use","id":"toolu_b","name":"Read","input":{"file_path":"a_test.go"}}]`),
		assistantLine("00000000-0000-4000-8000-00000000000d", "00000000-0000-4000-8000-000000000007", "2026-02-01T10:01:01.200Z", "msg_new", `"tool_use"`, `[{"type":"tool_use","id":"toolu_c","name":"Read","input":{"file_path":"go.mod"}}]`),
		userLine("00000000-0000-4000-8000-000000000008", "00000000-0000-4000-8000-000000000006", "2026-02-01T10:01:02.000Z", `[{"type":"tool_result","tool_use_id":"toolu_a","content":"package a"}]`),
		userLine("00000000-0000-4000-8000-00000000000e", "00000000-0000-4000-8000-00000000000d", "2026-02-01T10:01:02.050Z", `[{"type":"tool_result","tool_use_id":"toolu_c","content":"module a"}]`),
		// The next answer hangs off the last result written: the calls
		// after toolu_b and their results are on branches of their own.
		userLine("00000000-0000-4000-8000-000000000009", "00000000-0000-4000-8000-000000000007", "2026-02-01T10:01:02.100Z", `[{"type":"tool_result","tool_use_id":"toolu_b","content":"package a_test"}]`),
		assistantLine("00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-000000000009", "2026-02-01T10:01:03.000Z", "msg_new2", `"end_turn"`, `[{"type":"text","text":"NEW BRANCH: fixed, with a test"}]`),
		`{"type":"last-prompt","lastPrompt":"fix the bug, with a test","leafUuid":"00000000-0000-4000-8000-00000000000a","sessionId":"s1"}`,
		// a turn written after the last marker still belongs to it
		userLine("00000000-0000-4000-8000-00000000000b", "00000000-0000-4000-8000-00000000000a", "2026-02-01T10:02:00.000Z", `"thanks"`),
		assistantLine("00000000-0000-4000-8000-00000000000c", "00000000-0000-4000-8000-00000000000b", "2026-02-01T10:02:01.000Z", "msg_new3", `"end_turn"`, `[{"type":"text","text":"NEW BRANCH: you're welcome"}]`),
	}
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	src := []byte(strings.Join(lines, "\n") + "\n")
	adaptertest.Put(t, path, src)
	got := string(convert(t, only(t, path)))
	assert.NotContains(t, got, "OLD BRANCH")
	assert.Contains(t, got, `"type":"prompt","content":"fix the bug, with a test"`)
	assert.NotContains(t, got, `"content":"fix the bug"`)
	for _, id := range []string{"toolu_a", "toolu_b", "toolu_c"} {
		assert.Equal(t, 2, strings.Count(got, `"tool_id":"`+id+`"`), "%s has a start and a result", id)
	}
	assert.Contains(t, got, `"status":"success","result":"package a"`)
	assert.Contains(t, got, `"status":"success","result":"package a_test"`)
	assert.Contains(t, got, `"status":"success","result":"module a"`)
	assert.Contains(t, got, "NEW BRANCH: you're welcome")
	assert.Contains(t, got, `"turns":3`, "the new branch's three answers")
	assert.Contains(t, got, `"total_tokens":{"in":300,"out":30}`, "usage of the active branch's messages only")

	// Read in one pass (standard input), both branches stay: the file
	// order cannot tell a rewind before the file ends.
	one := string(adaptertest.Convert(t, claudesession.Format(), bytes.NewReader(src)))
	assert.Contains(t, one, "OLD BRANCH")
	assert.Contains(t, one, "NEW BRANCH: you're welcome")
}

// TestPromptWithoutAnswer: a session cut before any answer still shows
// its prompt when read from disk (the first pass found no model to wait
// for).
func TestPromptWithoutAnswer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	adaptertest.Put(t, path, []byte(userLine("00000000-0000-4000-8000-000000000001", "", "2026-02-01T10:00:00.000Z", `"are you there?"`)+"\n"))
	got := string(convert(t, only(t, path)))
	assert.Contains(t, got, `"type":"prompt","content":"are you there?"`)
	assert.Contains(t, got, `"reason":"incomplete"`)
}

// TestInputsRefusesOtherFiles: stream-json output, rollouts and folders
// without sessions are not this format's.
func TestInputsRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"stream.jsonl":  `{"type":"system","subtype":"init","session_id":"x","tools":[],"model":"m","cwd":"/"}` + "\n",
		"rollout.jsonl": `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}` + "\n",
		"notes.txt":     "parentUuid\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		adaptertest.Put(t, p, []byte(text))
		ins, ok, err := claudesession.Inputs(p)
		require.NoError(t, err)
		assert.False(t, ok, name)
		assert.Empty(t, ins)
	}
	ins, ok, err := claudesession.Inputs(dir)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Empty(t, ins)
	_, _, err = claudesession.Inputs(filepath.Join(dir, "missing"))
	require.Error(t, err)
}

// TestOpenReadsWhatTheFirstPassSaw: a session file that grows between the
// passes (Claude Code still writing) is read up to where the first pass
// stopped, so the two passes agree.
func TestOpenReadsWhatTheFirstPassSaw(t *testing.T) {
	src := read(t, testdata("interactive-turns.in.jsonl"))
	path := filepath.Join(t.TempDir(), "3fb74381-1bf4-475e-8c6f-442d872b1bcf.jsonl")
	adaptertest.Put(t, path, src)
	r, err := claudesession.OpenSession(path)
	require.NoError(t, err)
	adaptertest.Append(t, path, userLine("99999999-0000-4000-8000-000000000001", "d00ffe68-1b2c-4d3e-8f4a-5b6c7d8e9f0a", "2026-01-15T17:40:00.000Z", `"LATE LINE"`)+"\n")
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	assert.NotContains(t, string(b), "LATE LINE")
	assert.Equal(t, string(read(t, testdata("interactive-turns.out.jsonl"))), string(adaptertest.Convert(t, claudesession.Format(), bytes.NewReader(b))))
}

// TestCompactionWithLogicalParentNotInFile: Claude Code 2.1.39 wrote a
// compact_boundary whose logicalParentUuid names no line of the file (the
// line before it in the file is the compacted conversation's last). The
// conversation before the compaction is this session's and stays in the
// dialog, with the subagent its Task call started; before, the walk from
// the leaf stopped at the boundary and everything before it was dropped,
// counted nowhere.
func TestCompactionWithLogicalParentNotInFile(t *testing.T) {
	const (
		u1, a1, r1, a2 = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002", "00000000-0000-4000-8000-000000000003", "00000000-0000-4000-8000-000000000004"
		boundary, sum  = "00000000-0000-4000-8000-000000000005", "00000000-0000-4000-8000-000000000006"
		u2, a3         = "00000000-0000-4000-8000-000000000007", "00000000-0000-4000-8000-000000000008"
		nowhere        = "00000000-0000-4000-8000-0000000000ff"
	)
	lines := []string{
		userLine(u1, "", "2026-02-12T19:00:00.000Z", `"count the parsers"`),
		assistantLine(a1, u1, "2026-02-12T19:00:01.000Z", "msg_1", `"tool_use"`, `[{"type":"tool_use","id":"toolu_task","name":"Task","input":{"description":"count","prompt":"count the parsers","subagent_type":"Explore"}}]`),
		`{"parentUuid":"` + a1 + `","isSidechain":false,"sessionId":"s1","cwd":"/w","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_task","content":[{"type":"text","text":"three parsers"}]}]},"toolUseResult":{"status":"completed","agentId":"a1b2c3d","content":[{"type":"text","text":"three parsers"}]},"uuid":"` + r1 + `","timestamp":"2026-02-12T19:00:05.000Z"}`,
		assistantLine(a2, r1, "2026-02-12T19:00:06.000Z", "msg_2", `"end_turn"`, `[{"type":"text","text":"BEFORE COMPACTION: there are three"}]`),
		`{"parentUuid":null,"logicalParentUuid":"` + nowhere + `","isSidechain":false,"sessionId":"s1","cwd":"/w","type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"timestamp":"2026-02-12T19:30:00.000Z","uuid":"` + boundary + `","level":"info","compactMetadata":{"trigger":"auto","preTokens":170000}}`,
		`{"parentUuid":"` + boundary + `","isSidechain":false,"sessionId":"s1","cwd":"/w","type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context."},"isVisibleInTranscriptOnly":true,"isCompactSummary":true,"uuid":"` + sum + `","timestamp":"2026-02-12T19:30:00.001Z"}`,
		userLine(u2, sum, "2026-02-12T19:31:00.000Z", `"and the writers?"`),
		assistantLine(a3, u2, "2026-02-12T19:31:01.000Z", "msg_3", `"end_turn"`, `[{"type":"text","text":"AFTER COMPACTION: two writers"}]`),
	}
	agent := []string{
		`{"parentUuid":null,"isSidechain":true,"sessionId":"s1","agentId":"a1b2c3d","cwd":"/w","type":"user","message":{"role":"user","content":"count the parsers"},"uuid":"00000000-0000-4000-8000-0000000000a1","timestamp":"2026-02-12T19:00:02.000Z"}`,
		`{"parentUuid":"00000000-0000-4000-8000-0000000000a1","isSidechain":true,"sessionId":"s1","agentId":"a1b2c3d","cwd":"/w","type":"assistant","message":{"id":"msg_sub","model":"claude-haiku-9","role":"assistant","type":"message","stop_reason":"end_turn","content":[{"type":"text","text":"SUBAGENT: three parsers"}],"usage":{"input_tokens":50,"output_tokens":5}},"uuid":"00000000-0000-4000-8000-0000000000a2","timestamp":"2026-02-12T19:00:04.000Z"}`,
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s1.jsonl")
	adaptertest.Put(t, path, []byte(strings.Join(lines, "\n")+"\n"))
	adaptertest.Put(t, filepath.Join(dir, "s1", "subagents", "agent-a1b2c3d.jsonl"), []byte(strings.Join(agent, "\n")+"\n"))
	got := string(convert(t, only(t, path)))
	assert.Contains(t, got, `"type":"prompt","content":"count the parsers"`)
	assert.Contains(t, got, "BEFORE COMPACTION: there are three")
	assert.Contains(t, got, `"status":"success","result":"three parsers"`)
	assert.Contains(t, got, `"parent_tool_id":"toolu_task"`, "the subagent's file is tied to its call")
	assert.Contains(t, got, "SUBAGENT: three parsers")
	assert.Contains(t, got, "context compacted (auto, 170k tokens)")
	assert.Contains(t, got, "AFTER COMPACTION: two writers")
	assert.Contains(t, got, `"turns":3`)
	assert.Contains(t, got, `"total_tokens":{"in":350,"out":35}`, "three main-thread messages and the subagent's")
}

// TestEveryLineCountedFromDisk: read from disk, every line of the session
// file and of its subagent's file is counted, converted or skipped under
// a named reason, as when the same file is read as a stream: snapshots,
// queue operations, hook progress, the progress copies of a subagent whose
// own file is read, a rewound branch. Before, the second pass left them
// out before the adapter saw them, and --stats counted 7 of the 15
// records.
// convertCounted converts the session at path read from disk, each
// record's kind counted: the dialog, what was said on stderr, and the
// accounting of the records.
func convertCounted(t *testing.T, path string) (string, string, dispatch.Accounting) {
	t.Helper()
	r, err := claudesession.OpenSession(path)
	require.NoError(t, err)
	defer r.Close()
	var out, errs bytes.Buffer
	c := dispatch.New(&out, adaptertest.Options(), dispatch.Options{Formats: []adapter.Format{claudesession.Format()}, Forced: true, Stderr: &errs, CountKinds: true})
	require.NoError(t, c.Feed(r, path))
	require.NoError(t, c.Close(nil))
	return out.String(), errs.String(), c.Accounting()
}

func TestEveryLineCountedFromDisk(t *testing.T) {
	const (
		u1, a1, r1, a2 = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002", "00000000-0000-4000-8000-000000000003", "00000000-0000-4000-8000-000000000004"
		old, oldA      = "00000000-0000-4000-8000-000000000005", "00000000-0000-4000-8000-000000000006"
		hook, copyOf   = "00000000-0000-4000-8000-000000000007", "00000000-0000-4000-8000-000000000008"
	)
	lines := []string{
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-12T19:00:00.000Z","sessionId":"s1","content":"count the parsers"}`,
		`{"type":"file-history-snapshot","messageId":"` + u1 + `","snapshot":{"messageId":"` + u1 + `","trackedFileBackups":{},"timestamp":"2026-02-12T19:00:00.000Z"},"isSnapshotUpdate":false}`,
		userLine(u1, "", "2026-02-12T19:00:00.000Z", `"count the parsers"`),
		`{"parentUuid":"` + u1 + `","isSidechain":false,"sessionId":"s1","cwd":"/w","type":"progress","data":{"type":"hook_progress","hookEvent":"PreToolUse","hookName":"PreToolUse:Task","command":"true"},"parentToolUseID":"toolu_task","toolUseID":"toolu_task","uuid":"` + hook + `","timestamp":"2026-02-12T19:00:01.000Z"}`,
		assistantLine(a1, u1, "2026-02-12T19:00:01.000Z", "msg_1", `"tool_use"`, `[{"type":"tool_use","id":"toolu_task","name":"Task","input":{"description":"count","prompt":"count the parsers","subagent_type":"Explore"}}]`),
		`{"parentUuid":"` + a1 + `","isSidechain":false,"sessionId":"s1","cwd":"/w","type":"progress","data":{"type":"agent_progress","agentId":"a1b2c3d","message":{"type":"assistant","uuid":"00000000-0000-4000-8000-0000000000a2","timestamp":"2026-02-12T19:00:04.000Z","message":{"id":"msg_sub","model":"claude-haiku-9","role":"assistant","type":"message","stop_reason":"end_turn","content":[{"type":"text","text":"SUBAGENT: three parsers"}],"usage":{"input_tokens":50,"output_tokens":5}}}},"parentToolUseID":"toolu_task","toolUseID":"agent_msg_1","uuid":"` + copyOf + `","timestamp":"2026-02-12T19:00:04.000Z"}`,
		`{"parentUuid":"` + a1 + `","isSidechain":false,"sessionId":"s1","cwd":"/w","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_task","content":[{"type":"text","text":"three parsers"}]}]},"toolUseResult":{"status":"completed","agentId":"a1b2c3d","content":[{"type":"text","text":"three parsers"}]},"uuid":"` + r1 + `","timestamp":"2026-02-12T19:00:05.000Z"}`,
		// an answer the user rewound, and the one that stayed
		assistantLine(old, r1, "2026-02-12T19:00:06.000Z", "msg_old", `"end_turn"`, `[{"type":"text","text":"OLD BRANCH: three"}]`),
		userLine(oldA, old, "2026-02-12T19:00:07.000Z", `"OLD BRANCH: and the writers?"`),
		assistantLine(a2, r1, "2026-02-12T19:01:00.000Z", "msg_2", `"end_turn"`, `[{"type":"text","text":"there are three"}]`),
		`{"type":"last-prompt","lastPrompt":"count the parsers","leafUuid":"` + a2 + `","sessionId":"s1"}`,
	}
	agent := []string{
		`{"parentUuid":null,"isSidechain":true,"sessionId":"s1","agentId":"a1b2c3d","cwd":"/w","type":"user","message":{"role":"user","content":"count the parsers"},"uuid":"00000000-0000-4000-8000-0000000000a1","timestamp":"2026-02-12T19:00:02.000Z"}`,
		`{"parentUuid":"00000000-0000-4000-8000-0000000000a1","isSidechain":true,"sessionId":"s1","agentId":"a1b2c3d","cwd":"/w","type":"progress","data":{"type":"bash_progress","output":"","elapsedTimeSeconds":1},"uuid":"00000000-0000-4000-8000-0000000000a3","timestamp":"2026-02-12T19:00:03.000Z"}`,
		`{"parentUuid":"00000000-0000-4000-8000-0000000000a1","isSidechain":true,"sessionId":"s1","agentId":"a1b2c3d","cwd":"/w","type":"assistant","message":{"id":"msg_sub","model":"claude-haiku-9","role":"assistant","type":"message","stop_reason":"end_turn","content":[{"type":"text","text":"SUBAGENT: three parsers"}],"usage":{"input_tokens":50,"output_tokens":5}},"uuid":"00000000-0000-4000-8000-0000000000a2","timestamp":"2026-02-12T19:00:04.000Z"}`,
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s1.jsonl")
	adaptertest.Put(t, path, []byte(strings.Join(lines, "\n")+"\n"))
	adaptertest.Put(t, filepath.Join(dir, "s1", "subagents", "agent-a1b2c3d.jsonl"), []byte(strings.Join(agent, "\n")+"\n"))

	got, _, acc := convertCounted(t, path)
	assert.Equal(t, 1, strings.Count(got, "SUBAGENT: three parsers"), "the subagent's answer once")
	assert.NotContains(t, got, "OLD BRANCH")

	assert.Equal(t, 1+len(lines)+len(agent), acc.Read, "the stream's header, then every line of both files")
	assert.Equal(t, acc.Read, acc.Converted+acc.Skipped)
	const metadata = "not shown: metadata" // the reasons --stats prints (docs/usage.md)
	for _, want := range []dispatch.Skip{
		{Kind: "queue-operation", Reason: metadata},
		{Kind: "file-history-snapshot", Reason: metadata},
		{Kind: "last-prompt", Reason: metadata},
		{Kind: "progress", Reason: claudesession.SkipProgress},
		{Kind: "progress", Reason: "duplicate"},
		{Kind: "assistant", Reason: claudesession.SkipOffChain},
		{Kind: "user", Reason: claudesession.SkipOffChain},
	} {
		assert.Positive(t, acc.Reasons[want], "%+v in %v", want, acc.Reasons)
	}
}

// TestCompactionRequestTokens: Claude Code 2.1.x writes a compaction's own
// summary request to subagents/agent-acompact-<id>.jsonl (its lines
// sidechain, its first lines children of the conversation's last lines).
// Its usage is spent by the session and counts in the totals, as a
// subagent's does; its text is no entry (the compact_boundary says the
// compaction happened). A compaction file hanging off no line of the
// conversation (a rewound branch's) is left out, as a subagent's is.
// Before, every such file was left out: about 170k input tokens per
// compaction were missing from the totals of real 2.1.39 sessions.
func TestCompactionRequestTokens(t *testing.T) {
	const (
		u1, a1   = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"
		boundary = "00000000-0000-4000-8000-000000000003"
		u2, a2   = "00000000-0000-4000-8000-000000000004", "00000000-0000-4000-8000-000000000005"
	)
	lines := []string{
		userLine(u1, "", "2026-02-12T19:00:00.000Z", `"list the parsers"`),
		assistantLine(a1, u1, "2026-02-12T19:00:01.000Z", "msg_1", `"end_turn"`, `[{"type":"text","text":"three of them"}]`),
		`{"parentUuid":null,"logicalParentUuid":"` + a1 + `","isSidechain":false,"sessionId":"s1","cwd":"/w","type":"system","subtype":"compact_boundary","content":"Conversation compacted","timestamp":"2026-02-12T19:30:00.000Z","uuid":"` + boundary + `","compactMetadata":{"trigger":"auto","preTokens":170000}}`,
		userLine(u2, boundary, "2026-02-12T19:31:00.000Z", `"and the writers?"`),
		assistantLine(a2, u2, "2026-02-12T19:31:01.000Z", "msg_2", `"end_turn"`, `[{"type":"text","text":"two writers"}]`),
	}
	compaction := func(agent, parent string) string {
		return `{"parentUuid":"` + parent + `","isSidechain":true,"sessionId":"s1","agentId":"` + agent + `","cwd":"/w","type":"user","message":{"role":"user","content":"Summarize the conversation so far."},"uuid":"00000000-0000-4000-8000-0000000001` + agent[len(agent)-2:] + `","timestamp":"2026-02-12T19:29:00.000Z"}` + "\n" +
			`{"parentUuid":"00000000-0000-4000-8000-0000000001` + agent[len(agent)-2:] + `","isSidechain":true,"sessionId":"s1","agentId":"` + agent + `","cwd":"/w","type":"assistant","message":{"id":"msg_sum_` + agent + `","model":"claude-x","role":"assistant","type":"message","stop_reason":null,"content":[{"type":"text","text":"SUMMARY OF ` + agent + `"}],"usage":{"input_tokens":3,"cache_read_input_tokens":160000,"cache_creation_input_tokens":9000,"output_tokens":7}},"uuid":"00000000-0000-4000-8000-0000000002` + agent[len(agent)-2:] + `","timestamp":"2026-02-12T19:29:50.000Z"}` + "\n"
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s1.jsonl")
	adaptertest.Put(t, path, []byte(strings.Join(lines, "\n")+"\n"))
	adaptertest.Put(t, filepath.Join(dir, "s1", "subagents", "agent-acompact-0a1b2c.jsonl"), []byte(compaction("acompact-0a1b2c", a1)))
	adaptertest.Put(t, filepath.Join(dir, "s1", "subagents", "agent-acompact-0d0e0f.jsonl"), []byte(compaction("acompact-0d0e0f", "00000000-0000-4000-8000-0000000000ee")))
	got := string(convert(t, only(t, path)))
	assert.NotContains(t, got, "SUMMARY OF", "the summary is no entry")
	assert.NotContains(t, got, "Summarize the conversation")
	assert.Contains(t, got, "context compacted (auto, 170k tokens)")
	assert.Contains(t, got, `"turns":2`, "the compaction's request is no turn")
	// msg_1 and msg_2: 100 in and 10 out each; the tied compaction file:
	// 3 + 160000 + 9000 in, 7 out; the other file is not counted.
	assert.Contains(t, got, `"total_tokens":{"in":169203,"out":27,"cache_read":160000,"cache_write":9000}`)
}

// TestUntiedSubagentFilesCounted: subagent files of the session that are
// tied to no call of its conversation (Claude Code 2.0's warm-up agents
// beside the session file, a rewound branch's subagent under subagents/)
// add nothing to the dialog, and every line of theirs is counted, skipped
// as a subagent line tied to no call, broken lines too. Before, --stats
// counted none of them.
func TestUntiedSubagentFilesCounted(t *testing.T) {
	const u1, a1 = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"
	lines := []string{
		userLine(u1, "", "2026-02-12T19:00:00.000Z", `"say hi"`),
		assistantLine(a1, u1, "2026-02-12T19:00:01.000Z", "msg_1", `"end_turn"`, `[{"type":"text","text":"hi"}]`),
	}
	warmUp := []string{
		`{"parentUuid":null,"isSidechain":true,"sessionId":"s1","agentId":"0f1e2d3c","cwd":"/w","type":"user","message":{"role":"user","content":"Warmup"},"uuid":"00000000-0000-4000-8000-0000000000b1","timestamp":"2026-02-12T18:59:00.000Z"}`,
		`{"parentUuid":"00000000-0000-4000-8000-0000000000b1","isSidechain":true,"sessionId":"s1","agentId":"0f1e2d3c","cwd":"/w","type":"assistant","message":{"id":"msg_warm","model":"claude-haiku-9","role":"assistant","type":"message","stop_reason":"end_turn","content":[{"type":"text","text":"WARM-UP ANSWER"}],"usage":{"input_tokens":7,"output_tokens":3}},"uuid":"00000000-0000-4000-8000-0000000000b2","timestamp":"2026-02-12T18:59:01.000Z"}`,
		`{"parentUuid":"00000000-0000-4000-8000-0000000000b2","isSidechain":true,"sessionId":"s1","agentId":"0f1e2d3c","type":"assis`,
	}
	rewound := []string{
		`{"parentUuid":null,"isSidechain":true,"sessionId":"s1","agentId":"a9b8c7d","cwd":"/w","type":"user","message":{"role":"user","content":"count the parsers"},"uuid":"00000000-0000-4000-8000-0000000000c1","timestamp":"2026-02-12T19:00:02.000Z"}`,
		`{"parentUuid":"00000000-0000-4000-8000-0000000000c1","isSidechain":true,"sessionId":"s1","agentId":"a9b8c7d","cwd":"/w","type":"assistant","message":{"id":"msg_rew","model":"claude-haiku-9","role":"assistant","type":"message","stop_reason":"end_turn","content":[{"type":"text","text":"REWOUND ANSWER"}],"usage":{"input_tokens":5,"output_tokens":2}},"uuid":"00000000-0000-4000-8000-0000000000c2","timestamp":"2026-02-12T19:00:03.000Z"}`,
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s1.jsonl")
	adaptertest.Put(t, path, []byte(strings.Join(lines, "\n")+"\n"))
	adaptertest.Put(t, filepath.Join(dir, "agent-0f1e2d3c.jsonl"), []byte(strings.Join(warmUp, "\n")+"\n"))
	adaptertest.Put(t, filepath.Join(dir, "s1", "subagents", "agent-a9b8c7d.jsonl"), []byte(strings.Join(rewound, "\n")+"\n"))

	got, errs, acc := convertCounted(t, path)
	assert.NotContains(t, got, "WARM-UP")
	assert.NotContains(t, got, "REWOUND")
	assert.NotContains(t, got, "⚠", "a file the dialog does not use is no warning")
	assert.Empty(t, errs)
	assert.Contains(t, got, `"total_tokens":{"in":100,"out":10}`, "the untied files' usage is no part of the session's")

	assert.Equal(t, 1+len(lines)+len(warmUp)+len(rewound), acc.Read, "the stream's header, then every line of the three files")
	assert.Equal(t, acc.Read, acc.Converted+acc.Skipped)
	assert.Equal(t, 2, acc.Reasons[dispatch.Skip{Kind: "user", Reason: claudesession.SkipNoCall}], "%v", acc.Reasons)
	assert.Equal(t, 2, acc.Reasons[dispatch.Skip{Kind: "assistant", Reason: claudesession.SkipNoCall}], "%v", acc.Reasons)
}
