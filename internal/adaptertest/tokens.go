package adaptertest

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/testskip"
)

// Tokens is a tokens object of the dialog, read with encoding/json.
type Tokens struct {
	In         int64 `json:"in"`
	Out        int64 `json:"out"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
	Reasoning  int64 `json:"reasoning"`
}

func (t Tokens) plus(u Tokens) Tokens {
	return Tokens{t.In + u.In, t.Out + u.Out, t.CacheRead + u.CacheRead, t.CacheWrite + u.CacheWrite, t.Reasoning + u.Reasoning}
}

// MessageTokens is what a dialog says of tokens: the sums of its message
// entries' tokens, of the main thread and of subagents (parent_tool_id
// set), how many message entries carry tokens, and complete's total.
type MessageTokens struct {
	Main, Subagents Tokens
	Carried         int
	Total           Tokens
}

// Sum is the message tokens of every thread.
func (m MessageTokens) Sum() Tokens { return m.Main.plus(m.Subagents) }

// ReadMessageTokens reads a dialog's tokens. It fails the test on a
// tokens object on any entry but a message, on a message's breakdown
// larger than its in or out (cache_read + cache_write > in, reasoning >
// out), and on a dialog with no complete entry.
func ReadMessageTokens(t testing.TB, dialog []byte) MessageTokens {
	t.Helper()
	var m MessageTokens
	complete := false
	for line := range bytes.Lines(dialog) {
		var e struct {
			Type   string  `json:"type"`
			Parent string  `json:"parent_tool_id"`
			Tokens *Tokens `json:"tokens"`
			Total  Tokens  `json:"total_tokens"`
		}
		require.NoError(t, json.Unmarshal(line, &e))
		switch {
		case e.Type == "complete":
			complete = true
			m.Total = e.Total
		case e.Tokens == nil:
		case e.Type != "message":
			t.Errorf("a %s entry carries tokens: %s", e.Type, line)
		default:
			tk := *e.Tokens
			assert.LessOrEqual(t, tk.CacheRead+tk.CacheWrite, tk.In, "cache reads and writes are part of in: %s", line)
			assert.LessOrEqual(t, tk.Reasoning, tk.Out, "reasoning is part of out: %s", line)
			m.Carried++
			if e.Parent == "" {
				m.Main = m.Main.plus(tk)
			} else {
				m.Subagents = m.Subagents.plus(tk)
			}
		}
	}
	require.True(t, complete, "no complete entry")
	return m
}

// RequireWithin checks that sum, message tokens added up, is no more than
// total in any counter: one response's figure is never written twice.
func RequireWithin(t testing.TB, sum, total Tokens) {
	t.Helper()
	assert.LessOrEqual(t, sum.In, total.In, "message tokens in, summed, vs total_tokens.in")
	assert.LessOrEqual(t, sum.Out, total.Out, "message tokens out, summed, vs total_tokens.out")
	assert.LessOrEqual(t, sum.CacheRead, total.CacheRead, "message cache_read, summed, vs total")
	assert.LessOrEqual(t, sum.CacheWrite, total.CacheWrite, "message cache_write, summed, vs total")
	assert.LessOrEqual(t, sum.Reasoning, total.Reasoning, "message reasoning, summed, vs total")
}

// NoMessageTokens converts each file with f and checks that no message
// entry carries tokens: for a format whose usage of a response arrives
// only after its text was written (or never per response), where an
// entry, written once, cannot carry it.
func NoMessageTokens(t *testing.T, f adapter.Format, files []string) {
	t.Helper()
	if len(files) == 0 {
		testskip.Missing(t, "no captures (the shared corpus is not checked out beside the repo)")
	}
	source := Source{Format: f, Forced: true, Options: Options()}
	source.Oracle(t, files, func(t *testing.T, _ Capture, d Dialog) {
		got := ReadMessageTokens(t, d.Out)
		assert.Zero(t, got.Carried, "message entries with tokens")
		RequireWithin(t, got.Sum(), got.Total)
	})
}

// Files is the files of dir matching any of patterns.
func Files(t testing.TB, dir string, patterns ...string) []string {
	t.Helper()
	var files []string
	for _, p := range patterns {
		m, err := filepath.Glob(filepath.Join(dir, p))
		require.NoError(t, err)
		files = append(files, m...)
	}
	return files
}
