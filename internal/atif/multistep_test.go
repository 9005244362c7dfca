package atif

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
)

// multiStepDoc is shaped like Harbor's aggregate of a multi-step trial
// (agent/trajectory.json beside steps/<name>/agent/trajectory.json): the
// steps' trajectories one after another in the order of their names
// ("report" before "setup"), each segment's length in
// extra.step_trajectories; "setup" ran first.
const multiStepDoc = `{"schema_version":"ATIF-v1.7","agent":{"name":"openclaw","version":"unknown"},
 "extra":{"harbor_multi_step":true,"source":"multi_step_aggregate","step_trajectories":[
  {"step_name":"report","path":"steps/report/agent/trajectory.json","steps":2},
  {"step_name":"setup","path":"steps/setup/agent/trajectory.json","steps":3}]},
 "steps":[
 {"step_id":1,"timestamp":"2026-05-27T09:41:50.000000Z","source":"user","message":"Write the report"},
 {"step_id":2,"timestamp":"2026-05-27T09:41:52.000000Z","source":"agent","message":"Report written."},
 {"step_id":3,"timestamp":"2026-05-27T09:36:20.000000Z","source":"user","message":"Set the project up"},
 {"step_id":4,"timestamp":"2026-05-27T09:36:25.000000Z","source":"agent","message":"","tool_calls":[{"tool_call_id":"c1","function_name":"exec","arguments":{"command":"make"}}],
  "observation":{"results":[{"source_call_id":"c1","content":"built"}]}},
 {"step_id":5,"timestamp":"2026-05-27T09:37:00.000000Z","source":"agent","message":"Set up."}]}`

// TestMultiStepAggregateInRunOrder: the segments are converted in the
// order they ran (their first step's time), so that the first prompt is
// the run's first, times are the steps' own and the span is the run's.
func TestMultiStepAggregateInRunOrder(t *testing.T) {
	es, _ := convert(t, strings.NewReader(multiStepDoc))
	var seq []string
	for _, e := range es {
		switch e.Type {
		case "prompt", "message":
			seq = append(seq, e.Type+":"+e.Content+"@"+e.TS)
		}
	}
	assert.Equal(t, []string{
		"prompt:Set the project up@2026-05-27T09:36:20.000Z",
		"message:Set up.@2026-05-27T09:37:00.000Z",
		"prompt:Write the report@2026-05-27T09:41:50.000Z",
		"message:Report written.@2026-05-27T09:41:52.000Z",
	}, seq)
	done := adaptertest.OfType(es, "complete")
	require.Len(t, done, 1)
	assert.Equal(t, int64(332000), done[0].DurationMS, "09:36:20 to 09:41:52")
}

// TestMultiStepAggregateCountsMismatch: segment lengths that do not add up
// to the steps leave the file's order as it is.
func TestMultiStepAggregateCountsMismatch(t *testing.T) {
	doc := strings.Replace(multiStepDoc, `"steps":3}`, `"steps":4}`, 1)
	es, _ := convert(t, strings.NewReader(doc))
	prompts := adaptertest.OfType(es, "prompt")
	require.NotEmpty(t, prompts)
	assert.Equal(t, "Write the report", prompts[0].Content)
}

// TestJobFolderMultiStepTrial: in a job folder, a multi-step trial is one
// dialog, its aggregate (<trial>/agent/trajectory.json); the steps' own
// trajectories (<trial>/steps/<name>/agent/trajectory.json) hold the same
// steps again and are not converted a second time. A step trajectory
// whose trial has no aggregate is still converted.
func TestJobFolderMultiStepTrial(t *testing.T) {
	jobs := t.TempDir()
	step := `{"schema_version":"ATIF-v1.7","agent":{"name":"openclaw","version":"unknown"},"steps":[{"step_id":1,"source":"user","message":"go"}]}`
	writeFile(t, jobs, "job/multi/agent/trajectory.json", multiStepDoc)
	writeFile(t, jobs, "job/multi/result.json", `{}`)
	writeFile(t, jobs, "job/multi/steps/report/agent/trajectory.json", step)
	writeFile(t, jobs, "job/multi/steps/setup/agent/trajectory.json", step)
	writeFile(t, jobs, "job/lone/steps/only/agent/trajectory.json", step)
	inputs, ok, err := Inputs(jobs)
	require.NoError(t, err)
	require.True(t, ok)
	var names []string
	for _, in := range inputs {
		names = append(names, in.Name)
	}
	assert.Equal(t, []string{filepath.Join(jobs, "job", "lone", "steps", "only"), filepath.Join(jobs, "job", "multi")}, names)
}
