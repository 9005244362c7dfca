package atif

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	_ "github.com/ssebench/sse-dialog-convert/internal/golden" // registers -update
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// entry is one decoded dialog entry.
type entry = adaptertest.Fields

// convert runs input through the pipeline as ATIF (the dialog valid) and
// decodes it; stderr is what the pipeline reported.
func convert(t *testing.T, r io.Reader) (entries []entry, stderr string) {
	t.Helper()
	d := adaptertest.Pipeline(t, Format(), options(), r)
	return adaptertest.Decode[entry](t, d.Out), d.Stderr
}

// options are the writer's options of every test: the clock pinned, no cut.
func options() dialog.Options {
	return dialog.Options{Clock: adaptertest.Pinned(), MaxText: -1}
}

func TestDetect(t *testing.T) {
	adaptertest.Detects(t, Detect, map[string]adapter.Claim{
		`{"schema_version":"ATIF-v1.7","agent":{"name":"x"},"steps":[]}`: adapter.Yes,
		`{"schema_version":"ATIF-v1.0"}`:                                 adapter.Yes,
		`{"sse_atif":"result","result":{}}`:                              adapter.Yes,
		`{"schema_version":"1.0","steps":[]}`:                            adapter.No,
		`{"schema_version":7}`:                                           adapter.No,
		`{"type":"assistant","message":{}}`:                              adapter.No,
		`{"sessionId":"x","messages":[]}`:                                adapter.No,
	})
}

// writeFile writes content at dir/rel, making its folders.
func writeFile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	adaptertest.Put(t, p, []byte(content))
	return p
}

// trial is a Harbor trial's trajectory, pretty-printed as Harbor writes
// it, with a summarisation subagent file, a continuation and result.json.
const trialTrajectory = `{
  "schema_version": "ATIF-v1.7",
  "session_id": "s",
  "agent": {"name": "terminus-2", "version": "2.0.0", "model_name": "openai/gpt-4o"},
  "steps": [
    {"step_id": 1, "timestamp": "2026-01-01T00:00:01Z", "source": "user", "message": "Create hello.txt"},
    {"step_id": 2, "timestamp": "2026-01-01T00:00:02Z", "source": "agent", "message": "Summarising first.", "metrics": {"prompt_tokens": 100, "completion_tokens": 10}},
    {"step_id": 3, "timestamp": "2026-01-01T00:00:03Z", "source": "system", "message": "Performed context summarization.",
      "observation": {"results": [{"subagent_trajectory_ref": [
        {"session_id": "s-sum", "trajectory_path": "trajectory.summarization-1-summary.json", "extra": {"summary": "Summary generation"}},
        {"session_id": "s-gone", "trajectory_path": "trajectory.summarization-1-questions.json"},
        {"session_id": "s-out", "trajectory_path": "../../../etc/passwd"}]}]}}
  ],
  "continued_trajectory_ref": "trajectory.cont-1.json",
  "final_metrics": {"total_prompt_tokens": 100, "total_completion_tokens": 10}
}
`

const trialSummary = `{"schema_version": "ATIF-v1.7", "session_id": "s-sum", "agent": {"name": "terminus-2-summarization-summary", "version": "2.0.0"},
 "steps": [{"step_id": 1, "source": "user", "message": "Summarise."}, {"step_id": 2, "source": "agent", "message": "Nothing done yet."}]}`

const trialContinuation = `{"schema_version": "ATIF-v1.7", "session_id": "s", "agent": {"name": "terminus-2", "version": "2.0.0"},
 "steps": [
  {"step_id": 1, "source": "user", "message": "Create hello.txt", "is_copied_context": true},
  {"step_id": 2, "timestamp": "2026-01-01T00:00:05Z", "source": "agent", "message": "Writing it now.",
   "tool_calls": [{"tool_call_id": "call_1", "function_name": "bash_command", "arguments": {"keystrokes": "echo hi > hello.txt\n"}}],
   "observation": {"results": [{"source_call_id": "call_1", "content": "$ echo hi > hello.txt"}]},
   "metrics": {"prompt_tokens": 200, "completion_tokens": 20}}],
 "final_metrics": {"total_prompt_tokens": 300, "total_completion_tokens": 30}}`

func makeTrial(t *testing.T, dir, result string) string {
	t.Helper()
	writeFile(t, dir, "agent/trajectory.json", trialTrajectory)
	writeFile(t, dir, "agent/trajectory.summarization-1-summary.json", trialSummary)
	writeFile(t, dir, "agent/trajectory.cont-1.json", trialContinuation)
	if result != "" {
		writeFile(t, dir, "result.json", result)
	}
	return dir
}

// TestTrialFolder: a trial folder is one dialog with its continuation,
// its subagent file, a warning for the file that is not there (and for
// the one outside the folder, which is not read), and the ending of
// result.json.
func TestTrialFolder(t *testing.T) {
	trial := makeTrial(t, filepath.Join(t.TempDir(), "hello__AbC"), `{"exception_info": {"exception_type": "AgentTimeoutError", "exception_message": "timed out after 60 seconds"},
  "verifier_result": {"rewards": {"reward": 0.5}},
  "agent_execution": {"started_at": "2026-01-01T00:00:00Z", "finished_at": "2026-01-01T00:01:00Z"}}`)
	inputs, ok, err := Inputs(trial)
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, inputs, 1)
	assert.Equal(t, trial, inputs[0].Name, "the dialog is named after the trial")
	r, err := inputs[0].Open()
	require.NoError(t, err)
	es, stderr := convert(t, r)
	assert.Empty(t, stderr)

	prompts := adaptertest.OfType(es, "prompt")
	require.Len(t, prompts, 1, "the copied prompt of the continuation is not shown again")
	assert.Equal(t, "Create hello.txt", prompts[0].Content)

	var texts []string
	for _, m := range adaptertest.OfType(es, "message") {
		texts = append(texts, m.Content)
	}
	assert.Contains(t, texts, "Summarising first.")
	assert.Contains(t, texts, "Nothing done yet.", "the subagent file is read")
	assert.Contains(t, texts, "Writing it now.", "the continuation is read")
	var warnings []string
	for _, s := range texts {
		if strings.HasPrefix(s, dialog.WarningPrefix) {
			warnings = append(warnings, s)
		}
	}
	require.Len(t, warnings, 2, "%q", texts)
	assert.Contains(t, warnings[0], "trajectory.summarization-1-questions.json")
	assert.Contains(t, warnings[1], "../../../etc/passwd", "a path out of the folder is not followed")

	var sub entry
	for _, m := range adaptertest.OfType(es, "message") {
		if m.Content == "Nothing done yet." {
			sub = m
		}
	}
	tools := adaptertest.OfType(es, "tool")
	require.NotEmpty(t, tools)
	assert.Equal(t, "subagent", tools[0].Name, "a system step with refs and no context_management is a subagent call")
	assert.Equal(t, tools[0].ToolID, sub.Parent, "the subagent's entries hang on the call that started it")

	c := es[len(es)-1]
	assert.Equal(t, "timeout", c.Status)
	assert.Equal(t, "AgentTimeoutError: timed out after 60 seconds", c.Message)
	assert.EqualValues(t, 60000, c.DurationMS, "from result.json's agent_execution")
	require.NotNil(t, c.Reward, "the verifier's reward is kept")
	assert.Equal(t, 0.5, *c.Reward)
	assert.EqualValues(t, 300, c.TotalTokens.In, "the continuation's final_metrics, the whole run's")
	assert.EqualValues(t, 30, c.TotalTokens.Out)
}

// TestTrialWithoutResult: with no result.json the ending is unknown, and
// said so, not success.
func TestTrialWithoutResult(t *testing.T) {
	trial := makeTrial(t, filepath.Join(t.TempDir(), "t1"), "")
	inputs, ok, err := Inputs(filepath.Join(trial, "agent", "trajectory.json"))
	require.NoError(t, err)
	require.True(t, ok)
	r, err := inputs[0].Open()
	require.NoError(t, err)
	es, _ := convert(t, r)
	c := es[len(es)-1]
	assert.Equal(t, "error", c.Status)
	assert.Equal(t, ReasonUnknownEnding, c.Reason)
}

// TestJobFolder: a job folder (and a folder of jobs) gives one input per
// trial, in order, named after each trial; other JSON files are not taken.
func TestJobFolder(t *testing.T) {
	jobs := t.TempDir()
	makeTrial(t, filepath.Join(jobs, "job-1", "b-trial"), `{}`)
	makeTrial(t, filepath.Join(jobs, "job-1", "a-trial"), `{}`)
	writeFile(t, jobs, "job-1/config.json", `{"schema_version": "not ours"}`)
	writeFile(t, jobs, "job-1/result.json", `{"n_trials": 2}`)
	for _, root := range []string{jobs, filepath.Join(jobs, "job-1")} {
		inputs, ok, err := Inputs(root)
		require.NoError(t, err)
		require.True(t, ok)
		require.Len(t, inputs, 2)
		assert.Equal(t, filepath.Join(jobs, "job-1", "a-trial"), inputs[0].Name)
		assert.Equal(t, filepath.Join(jobs, "job-1", "b-trial"), inputs[1].Name)
	}
	_, ok, err := Inputs(filepath.Join(jobs, "job-1", "config.json"))
	require.NoError(t, err)
	assert.False(t, ok, "a JSON file that is no trajectory is not this format's")
	_, ok, err = Inputs(t.TempDir())
	require.NoError(t, err)
	assert.False(t, ok, "an empty folder is not this format's")
}

// TestJobFolderBadEntry: a dangling symlink where a trial's trajectory
// should be is one failed input; the other trial still converts.
func TestJobFolderBadEntry(t *testing.T) {
	job := t.TempDir()
	makeTrial(t, filepath.Join(job, "good"), `{}`)
	require.NoError(t, os.MkdirAll(filepath.Join(job, "bad", "agent"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(job, "nowhere.json"), filepath.Join(job, "bad", "agent", "trajectory.json")))
	inputs, ok, err := Inputs(job)
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, inputs, 2)
	_, err = inputs[0].Open()
	require.Error(t, err, "the bad trial fails when opened, and is reported")
	r, err := inputs[1].Open()
	require.NoError(t, err)
	es, _ := convert(t, r)
	assert.Equal(t, "success", es[len(es)-1].Status, "the good trial converts, its result.json read")
}

// TestReadBounded: a file beside the trajectory is read only when it is a
// regular file (a FIFO would block for ever).
func TestReadBounded(t *testing.T) {
	_, err := readDocument(t.TempDir())
	require.Error(t, err)
	_, err = readDocument(filepath.Join(t.TempDir(), "nope.json"))
	require.ErrorIs(t, err, os.ErrNotExist)

}

// TestStdinSubagentRef: on standard input a ref to a file cannot be read,
// and says so.
func TestStdinSubagentRef(t *testing.T) {
	es, _ := convert(t, strings.NewReader(trialTrajectory))
	var warned int
	for _, m := range adaptertest.OfType(es, "message") {
		if strings.HasPrefix(m.Content, dialog.WarningPrefix) {
			warned++
		}
	}
	assert.Equal(t, 3, warned, "each of the three refs is named")
}

// TestFailureFlags: each producer's way of saying a call failed, and a
// stated exit code; nothing else is a failure.
func TestFailureFlags(t *testing.T) {
	for extra, want := range map[string]bool{
		`{"tool_result_is_error":true}`:             true,
		`{"isError":false,"exec_exit_code":2}`:      true,
		`{"success":false}`:                         true,
		`{"success":true}`:                          false,
		`{"status":"failed"}`:                       true,
		`{"status":"completed"}`:                    false,
		`{"exit_code":0}`:                           false,
		`{"exitCode":127}`:                          true,
		`{"is_error":"false"}`:                      true, // a flag of the wrong type never passes for success
		`{}`:                                        false,
		`{"tool_result_metadata":{"exitCode":"x"}}`: false,
	} {
		v, ok := jsonraw.Parse([]byte(extra))
		require.True(t, ok)
		got, _ := failure("bash", "output", v)
		assert.Equal(t, want, got, extra)
	}
	failed, code := failure("bash", "Exit Code: 1")
	assert.True(t, failed)
	assert.Equal(t, "1", string(code.Bytes()))
	failed, _ = failure("bash", "Exit code: 1") // what `echo "Exit code: $?"` prints
	assert.False(t, failed)
	failed, _ = failure("bash_command", "Exit Code: 0")
	assert.False(t, failed)
	failed, _ = failure("Bash", "x\n[error] tool reported failure\n")
	assert.True(t, failed)
	// An exit code is a shell's own last line, not a line of what it
	// showed, nor another tool's output.
	failed, _ = failure("bash", "job lint\nExit Code: 2\nretrying: ok\n")
	assert.False(t, failed, "a log line the command printed")
	failed, _ = failure("Read", "job lint\nExit Code: 2\n")
	assert.False(t, failed, "a file that was read")
	failed, _ = failure("Read", "a line that mentions [error] tool reported failure in passing\nmore")
	assert.False(t, failed)
}

// TestParallelSidechains: two Task calls of one step, each subagent's
// inline steps after them: each run goes to the call whose prompt is its
// first user text, not both to the last call.
func TestParallelSidechains(t *testing.T) {
	doc := `{"schema_version":"ATIF-v1.7","agent":{"name":"claude-code","version":"2"},"steps":[
 {"step_id":1,"timestamp":"2026-06-01T10:00:00Z","source":"user","message":"Do two things"},
 {"step_id":2,"timestamp":"2026-06-01T10:00:01Z","source":"agent","message":"Starting both.",
  "tool_calls":[{"tool_call_id":"TA","function_name":"Task","arguments":{"prompt":"Do A"}},{"tool_call_id":"TB","function_name":"Task","arguments":{"prompt":"Do B"}}],
  "observation":{"results":[{"source_call_id":"TA","content":"A done"},{"source_call_id":"TB","content":"B done"}]}},
 {"step_id":3,"timestamp":"2026-06-01T10:00:02Z","source":"user","message":"Do A","extra":{"is_sidechain":true}},
 {"step_id":4,"timestamp":"2026-06-01T10:00:03Z","source":"agent","message":"I am subagent A","extra":{"is_sidechain":true}},
 {"step_id":5,"timestamp":"2026-06-01T10:00:02Z","source":"user","message":"Do B","extra":{"is_sidechain":true}},
 {"step_id":6,"timestamp":"2026-06-01T10:00:04Z","source":"agent","message":"I am subagent B","extra":{"is_sidechain":true}}]}`
	es, _ := convert(t, strings.NewReader(doc))
	parents := map[string]string{}
	for _, m := range adaptertest.OfType(es, "message") {
		parents[m.Content] = m.Parent
	}
	assert.Equal(t, "TA", parents["I am subagent A"])
	assert.Equal(t, "TB", parents["I am subagent B"])
	assert.Equal(t, "", parents["Starting both."])
}

// TestUnrecordedResultIsAnError: a call the trajectory gives no result is
// closed as an error that says so, as every format closes a call left
// open; a subagent's open call is closed before its parent's result.
func TestUnrecordedResultIsAnError(t *testing.T) {
	doc := `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[
 {"step_id":1,"source":"user","message":"go"},
 {"step_id":2,"source":"agent","message":"","tool_calls":[{"tool_call_id":"S","function_name":"delegate","arguments":{}}],
  "observation":{"results":[{"source_call_id":"S","content":"done","subagent_trajectory_ref":[{"trajectory_id":"sub"}]}]}},
 {"step_id":3,"source":"agent","message":"","tool_calls":[{"tool_call_id":"F","function_name":"finish","arguments":{}}]}],
 "subagent_trajectories":[{"schema_version":"ATIF-v1.7","trajectory_id":"sub","agent":{"name":"s","version":"1"},"steps":[
  {"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"S1","function_name":"bash","arguments":{}}]}]}]}`
	es, _ := convert(t, strings.NewReader(doc))
	order := []string{}
	for _, e := range adaptertest.OfType(es, "tool") {
		if e.Status != "running" {
			order = append(order, e.ToolID+":"+e.Status)
		}
	}
	assert.Equal(t, []string{"S1:error", "S:success", "F:error"}, order)
}

// TestSidechainsBeforeTheirCall: Claude Code's converter of 2025 wrote the
// sidechain steps first, with no user step: a warm-up that no Task
// precedes stays in the main thread; the steps after the Task's time go
// under it, shown between its start and its result.
func TestSidechainsBeforeTheirCall(t *testing.T) {
	doc := `{"schema_version":"ATIF-v1.2","session_id":"s","agent":{"name":"claude-code","version":"2.0.46"},"steps":[
 {"step_id":1,"timestamp":"2025-11-19T22:11:24Z","source":"agent","message":"I'm ready to help!","extra":{"is_sidechain":true}},
 {"step_id":2,"timestamp":"2025-11-19T22:11:34Z","source":"agent","message":"Searching the code.","extra":{"is_sidechain":true}},
 {"step_id":3,"timestamp":"2025-11-19T22:11:21Z","source":"user","message":"Fix the race"},
 {"step_id":4,"timestamp":"2025-11-19T22:11:33Z","source":"agent","message":"Executed Task toolu_T",
  "tool_calls":[{"tool_call_id":"toolu_T","function_name":"Task","arguments":{"prompt":"find it"}}],
  "observation":{"results":[{"source_call_id":"toolu_T","content":"found"}]}}]}`
	es, _ := convert(t, strings.NewReader(doc))
	var seq []string
	for _, e := range es {
		switch e.Type {
		case "prompt", "message":
			seq = append(seq, e.Type+":"+e.Content+"@"+e.Parent)
		case "tool":
			seq = append(seq, e.Status+":"+e.ToolID)
		}
	}
	assert.Equal(t, []string{"prompt:Fix the race@", "message:I'm ready to help!@", "running:toolu_T", "message:Searching the code.@toolu_T", "success:toolu_T"}, seq)
}

// TestTrialStreamHasNoProgress: a trial's stream holds each trajectory as
// one line, read whole before any of its steps is converted: it gives the
// file budget's pace no progress (adapter.ReadCounter), which would be
// near 1 from the first step on.
func TestTrialStreamHasNoProgress(t *testing.T) {
	trial := makeTrial(t, filepath.Join(t.TempDir(), "t1"), `{"verifier_result": {"rewards": {"reward": 1}}}`)
	inputs, ok, err := Inputs(trial)
	require.NoError(t, err)
	require.True(t, ok)
	r, err := inputs[0].Open()
	require.NoError(t, err)
	defer r.Close()
	_, ok = r.(adapter.ReadCounter)
	assert.False(t, ok, "%T is an adapter.ReadCounter", r)
}
