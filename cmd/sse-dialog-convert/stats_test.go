package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// statsDialog is a finished run with the given complete figures.
func statsDialog(agent, status string, turns, ms, in, out int, cost string) string {
	c := `{"seq":2,"ts":"2026-01-01T00:00:09.000Z","type":"complete","status":"` + status + `","turns":` + strconv.Itoa(turns) + `,"duration_ms":` + strconv.Itoa(ms) +
		`,"total_tokens":{"in":` + strconv.Itoa(in) + `,"out":` + strconv.Itoa(out) + `}`
	if cost != "" {
		c += `,"cost_usd":` + cost
	}
	return `{"seq":0,"ts":"2026-01-01T00:00:00.000Z","type":"init","data":{"task":"","cwd":"/w","model":"m","agent":"` + agent + `"}}
{"seq":1,"ts":"2026-01-01T00:00:00.000Z","type":"prompt","content":"do it"}
` + c + "}\n"
}

// TestStats: a folder of dialogs and a transcript converted in memory give
// one row each; the totals are the sums of their complete entries
// (computed here, by hand).
func TestStats(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "deep"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.dialog.jsonl"), []byte(statsDialog("codex", "success", 3, 1000, 100, 10, "")), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "deep", "b.dialog.jsonl"), []byte(statsDialog("codex", "error", 5, 2500, 200, 20, "0.5")), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a run"), 0o644))
	transcript := filepath.Join("..", "..", "testdata", "claude", "error-max-turns.in.jsonl") // complete: turns 2, 9000 ms, in 32004, out 90, $0.02
	before, err := os.ReadFile(transcript)
	require.NoError(t, err)

	code, stdout, stderr := runCLI(t, "", "stats", "--format", "json", "--by", "agent", dir, transcript)
	require.Equal(t, 0, code, stderr)
	var rep struct {
		Runs []struct {
			File       string   `json:"file"`
			Agent      string   `json:"agent"`
			Status     string   `json:"status"`
			CostUSD    *float64 `json:"cost_usd"`
			DurationMS *int64   `json:"duration_ms"`
		} `json:"runs"`
		Totals struct {
			Runs       int     `json:"runs"`
			Turns      int     `json:"turns"`
			DurationMS int64   `json:"duration_ms"`
			In         int64   `json:"tokens_in"`
			Out        int64   `json:"tokens_out"`
			CostUSD    float64 `json:"cost_usd"`
		} `json:"totals"`
		Groups []struct {
			Agent string `json:"agent"`
			Runs  int    `json:"runs"`
		} `json:"groups"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	require.Len(t, rep.Runs, 3, "two dialogs in the folder (at any depth, notes.txt aside) and the transcript")
	assert.Equal(t, filepath.Join(dir, "a.dialog.jsonl"), rep.Runs[0].File)
	assert.Equal(t, "claude-code", rep.Runs[2].Agent)
	assert.Equal(t, 3, rep.Totals.Runs)
	assert.Equal(t, 3+5+2, rep.Totals.Turns)
	assert.EqualValues(t, 1000+2500+9000, rep.Totals.DurationMS)
	assert.EqualValues(t, 100+200+32004, rep.Totals.In)
	assert.EqualValues(t, 10+20+90, rep.Totals.Out)
	assert.InDelta(t, 0.5+0.02, rep.Totals.CostUSD, 1e-9)
	require.Len(t, rep.Groups, 2)
	assert.Equal(t, "codex", rep.Groups[0].Agent)
	assert.Equal(t, 2, rep.Groups[0].Runs)

	after, err := os.ReadFile(transcript)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the transcript is read, never written")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "nothing is written beside the inputs")

	code, stdout, _ = runCLI(t, "", "stats", "--format", "csv", "--sort", "cost", dir)
	require.Equal(t, 0, code)
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 3, "a header and one row per run")
	assert.Equal(t, "0.5000", recs[1][10], "the most expensive first")
	assert.Equal(t, "", recs[2][10], "no cost: empty, not 0")
}
