package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FILEs of different agents given together are refused (cases of
// TestCLI); with --out-dir each is a dialog of its own.
func TestFilesOfDifferentFormatsInABatch(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	require.NoError(t, os.WriteFile(a, []byte(claudeRun), 0o644))
	outDir := filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(b, []byte(codexLines), 0o644))
	code, _, stderr := runCLI(t, "", a, b, "--out-dir", outDir)
	assert.Equal(t, 0, code, stderr)
	assert.Len(t, readDialogs(t, outDir), 2)
}

// A format forced on input that holds none of its events never ends in
// success, whatever its adapter made of the other format's objects (the
// Cursor and Claude adapters read Gemini's result line as an ending).
func TestForcedFormatWithNoneOfItsEventsIsNoSuccess(t *testing.T) {
	inputs := map[string]string{"claude": claudeRun, "codex": codexLines, "gemini": geminiLines, "opencode": opencodeLines, "cursor": cursorLines}
	for forced := range inputs {
		for of, in := range inputs {
			// Cursor's stream is Claude-compatible: each reads the other's
			// lines as its own, and converts them as asked.
			if of == forced || of+forced == "cursorclaude" || of+forced == "claudecursor" {
				continue
			}
			out := filepath.Join(t.TempDir(), "d.jsonl")
			code, _, stderr := runCLI(t, in, "--format", forced, "-o", out)
			es := readDialog(t, out)
			c := es[len(es)-1]
			assert.Equal(t, "error", c["status"], "--format %s on %s", forced, of)
			assert.Equal(t, "wrong_format", c["reason"], "--format %s on %s", forced, of)
			assert.Equal(t, "--format "+forced+": the input held no "+forced+" events", c["message"], "--format %s on %s", forced, of)
			assert.Equal(t, 1, code, "--format %s on %s: %s", forced, of, stderr)
			assert.Contains(t, stderr, "no "+forced+" events in standard input")
		}
	}
	// Its own events: converted as they say.
	out := filepath.Join(t.TempDir(), "d.jsonl")
	code, _, stderr := runCLI(t, geminiLines, "--format", "gemini", "-o", out)
	assert.Equal(t, 0, code, stderr)
	es := readDialog(t, out)
	assert.Equal(t, "success", es[len(es)-1]["status"])
}

// A saved file read offline: init's clock says "source" when its first
// entries carry timestamps, "conversion" when nothing does; its cwd is the
// stream's, else unknown (""), never the converter's folder. Live, from
// standard input, the times are those the lines arrived at, and the
// process's folder is the best fact.
func TestInitClockAndCWDOfSavedAndLiveInput(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	dir := t.TempDir()
	for _, tt := range []struct {
		name, in   string
		clock, cwd string
		liveCWD    string
	}{
		{"Gemini: timestamps, no cwd", geminiLines, "source", "", wd},
		{"Codex exec --json: neither", codexLines, "conversion", "", wd},
		{"Claude stream-json: a cwd, no timestamps", claudeRun, "conversion", "/src", "/src"},
	} {
		file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".jsonl")
		require.NoError(t, os.WriteFile(file, []byte(tt.in), 0o644))
		out := filepath.Join(dir, "d.jsonl")
		code, _, stderr := runCLI(t, "", file, "-o", out)
		require.Equal(t, 0, code, stderr)
		data := readDialog(t, out)[0]["data"].(map[string]any)
		assert.Equal(t, tt.clock, data["clock"], tt.name)
		assert.Equal(t, tt.cwd, data["cwd"], tt.name)

		code, _, stderr = runCLI(t, tt.in, "-o", out) // standard input: live
		require.Equal(t, 0, code, stderr)
		data = readDialog(t, out)[0]["data"].(map[string]any)
		live := "arrival"
		if tt.clock == "source" {
			live = "source"
		}
		assert.Equal(t, live, data["clock"], tt.name+", live")
		assert.Equal(t, tt.liveCWD, data["cwd"], tt.name+", live")

		// Live with the clock pinned: its times are no one's.
		code, _, stderr = runCLI(t, tt.in, "-o", out, "--clock", "0")
		require.Equal(t, 0, code, stderr)
		data = readDialog(t, out)[0]["data"].(map[string]any)
		if tt.clock != "source" {
			live = "conversion"
		}
		assert.Equal(t, live, data["clock"], tt.name+", live, --clock")
	}
}
