package atif

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/golden"
)

// converted is a dialog, decoded: its entries and its complete.
type converted struct {
	out      []byte
	entries  []entry
	complete entry
}

// convertCounting converts doc as ATIF and counts the records' parts
// skipped as repeated metrics.
func convertCounting(t *testing.T, doc []byte) (d converted, repeats int) {
	t.Helper()
	opt := options()
	opt.Skipped = func(kind, reason string) {
		if reason == SkipRepeatedMetrics {
			assert.Equal(t, "step/metrics", kind)
			repeats++
		}
	}
	d.out = adaptertest.Pipeline(t, Format(), opt, bytes.NewReader(doc)).Out
	d.entries = adaptertest.Decode[entry](t, d.out)
	d.complete = d.entries[len(d.entries)-1]
	return d, repeats
}

// TestClaudeCodeRepeats: a trajectory shaped like Harbor's Claude Code
// converter of 2025 (ATIF-v1.2, one step per content block, the message's
// metrics on each, final_metrics their sum). In testdata:
//   - steps 1, 2: two sidechain warm-ups, text after text, of equal cost
//     (100 prompt, 20 completion): two calls;
//   - steps 4 to 7: one message (thinking, text, Read, Grep): one call of
//     5000 prompt (2 input + 4998 cache reads) + 300 cache writes, 120
//     completion, its tokens on the text's entry;
//   - steps 8 and 10: Edit alone, of equal cost (5500, 60; 200 writes),
//     a user step between: two calls;
//   - steps 11 and 12: Bash alone, then text, of equal cost (6000, 40;
//     100 writes): two calls (a text after a tool_use step starts a call).
//
// final_metrics: 43200 prompt, 720 completion, 42952 cached, 1800 writes:
// every step's sum. Each call once: 43200 - 3×5000 = 28200 prompt, 720 -
// 3×120 = 360 completion, 42952 - 3×4998 = 27958 cached, 1800 - 3×300 =
// 900 writes; in = 28200 + 900 (the prompt figures leave writes out: 28200
// < 27958 + 900). Turns: main-thread calls 4, 8, 10, 11, 12.
func TestClaudeCodeRepeats(t *testing.T) {
	src, err := os.ReadFile("testdata/claude-code-v12-repeats.json")
	require.NoError(t, err)
	d, repeats := convertCounting(t, src)
	golden.Check(t, "testdata/claude-code-v12-repeats.dialog.jsonl", d.out)

	assert.Equal(t, 3, repeats, "steps 5, 6, 7 repeat step 4's call")
	c := d.complete
	assert.Equal(t, 5, c.Turns)
	assert.Equal(t, adaptertest.Tokens{In: 29100, Out: 360, CacheRead: 27958, CacheWrite: 900}, c.TotalTokens)
	assert.Equal(t, 1, c.Warnings)

	var notices []string
	for _, m := range adaptertest.OfType(d.entries, "message") {
		if strings.Contains(m.Content, "final_metrics") {
			notices = append(notices, m.Content)
		}
	}
	require.Len(t, notices, 1)
	for _, figure := range []string{"43200 prompt and 720 completion", "28200 prompt and 360 completion", "3 steps"} {
		assert.Contains(t, notices[0], figure)
	}

	// One response's figure once: the text of step 5 carries the call
	// of steps 4 to 7, the warm-ups and step 12 their own.
	mt := adaptertest.ReadMessageTokens(t, d.out)
	assert.Equal(t, adaptertest.Tokens{In: 100 + 100 + 5300 + 6100, Out: 20 + 20 + 120 + 40, CacheRead: 4998 + 5990, CacheWrite: 300 + 100}, mt.Sum())
}

// stepsDoc is a two-step trajectory of producer agent at version, the
// second step a tool_use block of the same metrics as the first.
func stepsDoc(agent, version, between, secondExtra string) []byte {
	m := `{"prompt_tokens":1000,"completion_tokens":50,"cached_tokens":900}`
	return []byte(`{"schema_version":"` + version + `","agent":{"name":"` + agent + `","version":"1"},"steps":[
 {"step_id":1,"source":"user","message":"go"},
 {"step_id":2,"source":"agent","message":"Looking.","metrics":` + m + `},` + between + `
 {"step_id":3,"source":"agent","message":"Executed Read toolu_R","metrics":` + m + `,"extra":` + secondExtra + `,
  "tool_calls":[{"tool_call_id":"toolu_R","function_name":"Read","arguments":{}}],
  "observation":{"results":[{"source_call_id":"toolu_R","content":"x"}]}}],
 "final_metrics":{"total_prompt_tokens":2000,"total_completion_tokens":100,"total_cached_tokens":1800}}`)
}

// TestRepeatsOnlyWhereTheFileSaysSo: the same two steps are one call only
// in Claude Code's trajectories below v1.7, adjacent, in one thread.
func TestRepeatsOnlyWhereTheFileSaysSo(t *testing.T) {
	for name, tc := range map[string]struct {
		doc     []byte
		repeats int
		in, out int64
	}{
		"claude-code v1.2: one call":      {stepsDoc("claude-code", "ATIF-v1.2", "", `{}`), 1, 1000, 50},
		"claude-code v1.6: one call":      {stepsDoc("claude-code", "ATIF-v1.6", "", `{}`), 1, 1000, 50},
		"claude-code v1.7: a step a call": {stepsDoc("claude-code", "ATIF-v1.7", "", `{}`), 0, 2000, 100},
		"another producer: a step a call": {stepsDoc("terminus-2", "ATIF-v1.2", "", `{}`), 0, 2000, 100},
		"the other thread: a call":        {stepsDoc("claude-code", "ATIF-v1.2", "", `{"is_sidechain":true}`), 0, 2000, 100},
		"a user step between: a call":     {stepsDoc("claude-code", "ATIF-v1.2", `{"step_id":9,"source":"user","message":"and?"},`, `{}`), 0, 2000, 100},
		"a system step between: a call":   {stepsDoc("claude-code", "ATIF-v1.2", `{"step_id":9,"source":"system","message":"note"},`, `{}`), 0, 2000, 100},
		"another call between: a call":    {stepsDoc("claude-code", "ATIF-v1.2", `{"step_id":9,"source":"agent","message":"Hm.","metrics":{"prompt_tokens":1,"completion_tokens":1}},`, `{}`), 0, 2000, 100},
	} {
		t.Run(name, func(t *testing.T) {
			d, repeats := convertCounting(t, tc.doc)
			assert.Equal(t, tc.repeats, repeats)
			assert.Equal(t, tc.in, d.complete.TotalTokens.In)
			assert.Equal(t, tc.out, d.complete.TotalTokens.Out)
			assert.Equal(t, tc.repeats, d.complete.Warnings, "a notice where the totals are not final_metrics")
		})
	}
}

// TestFinalMetricsOfAnotherSum: final_metrics that are not the sum over
// the steps (here: more, as terminus-2's with its subagents) are the run's figures, kept as they are, with no
// notice; the repeats still count no turn.
func TestFinalMetricsOfAnotherSum(t *testing.T) {
	doc := bytes.Replace(stepsDoc("claude-code", "ATIF-v1.2", "", `{}`), []byte(`"total_prompt_tokens":2000`), []byte(`"total_prompt_tokens":2500`), 1)
	d, repeats := convertCounting(t, doc)
	assert.Equal(t, 1, repeats)
	assert.EqualValues(t, 2500, d.complete.TotalTokens.In)
	assert.EqualValues(t, 100, d.complete.TotalTokens.Out)
	assert.Zero(t, d.complete.Warnings)
	assert.Equal(t, 1, d.complete.Turns)
}

// TestRepeatsWithoutFinalMetrics: with no final_metrics, the steps' sum
// counts each call once, and no notice is due.
func TestRepeatsWithoutFinalMetrics(t *testing.T) {
	doc := stepsDoc("claude-code", "ATIF-v1.2", "", `{}`)
	doc = doc[:bytes.Index(doc, []byte(`,
 "final_metrics"`))]
	doc = append(doc, '}')
	d, repeats := convertCounting(t, doc)
	assert.Equal(t, 1, repeats)
	assert.EqualValues(t, 1000, d.complete.TotalTokens.In)
	assert.EqualValues(t, 50, d.complete.TotalTokens.Out)
	assert.Zero(t, d.complete.Warnings)
}
