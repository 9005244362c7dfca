package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialogcheck"
	"github.com/ssebench/sse-dialog-convert/internal/golden"
	"github.com/ssebench/sse-dialog-convert/internal/inputs" // registers -update
)

// goldenArgs pin everything that would otherwise depend on the machine,
// and carry images up to the writer's default cap, as the adapters'
// goldens do (the command's own default is a placeholder for each:
// TestCLI's max-image cases).
var goldenArgs = []string{"-o", "-", "--clock", "2026-01-02T03:04:05Z", "--cwd", "/work", "--task", "fixture", "--max-image", "1M"}

// mergedStreams are the fixtures that are no file anyone has: a session's
// files (its own and its subagents') merged into the one stream their
// format's Inputs open, envelopes included. Their goldens are the
// adapter's; the command converts the files they stand for in
// TestSessionFiles and TestGeminiSessionFiles, never the merged stream as
// a FILE.
var mergedStreams = map[string]bool{
	"claude-session/subagent-files-merged": true,
	"gemini-session/subagent":              true,
}

// fileGoldens holds the command's own goldens,
// testdata/files/<format>/<case>.out.jsonl: the dialog of a fixture given
// as FILE where its format's Inputs read the file as more than the stream
// the adapter's golden was written from.
const fileGoldens = "testdata/files"

// TestGolden converts every testdata/<format>/<case>.in.jsonl given as
// FILE and compares what the command prints with a committed file, nothing
// computed in its place: the command's own golden under testdata/files
// when there is one (go test ./cmd/sse-dialog-convert -update writes
// those, and only those), else <case>.out.jsonl, which the adapter kit
// writes (internal/registry's TestGolden, -update). The same file with
// CRLF line endings gives the same dialog, and every output passes
// validate. Merged streams are left to their own tests (mergedStreams).
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob("../../testdata/*/*.in.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, inputs, "no fixtures found")
	fixtures := map[string]bool{}
	for _, in := range inputs {
		format := filepath.Base(filepath.Dir(in))
		name := format + "/" + strings.TrimSuffix(filepath.Base(in), ".in.jsonl")
		fixtures[name] = true
		if mergedStreams[name] {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Setenv("SSE_MODEL_NAME", "")
			t.Setenv("SSE_TASK_ID", "")
			args := append(append([]string{}, goldenArgs...), "--format", formatFor(format), in)
			code, stdout, stderr := runCLI(t, "", args...)
			require.Equal(t, 0, code, "stderr: %s", stderr)
			requireValid(t, []byte(stdout))
			adapterGolden, err := os.ReadFile(strings.TrimSuffix(in, ".in.jsonl") + ".out.jsonl")
			require.NoError(t, err, "no golden: run go test ./internal/registry -update")
			own := filepath.Join(fileGoldens, name+".out.jsonl")
			if _, err := os.Stat(own); err == nil || golden.Updating() && stdout != string(adapterGolden) {
				require.NotEqual(t, string(adapterGolden), stdout, "%s says what the adapter's golden says: delete it", own)
				golden.Check(t, own, []byte(stdout))
			} else {
				assert.Equal(t, string(adapterGolden), stdout, "the command's dialog differs from the golden; if the format's Inputs read this file as more than a stream, the command's own golden is written by go test ./cmd/sse-dialog-convert -update")
			}

			// The same input with CRLF line endings must give the same dialog.
			raw, err := os.ReadFile(in)
			require.NoError(t, err)
			crlf := filepath.Join(t.TempDir(), "crlf.jsonl")
			require.NoError(t, os.WriteFile(crlf, bytes.ReplaceAll(raw, []byte("\n"), []byte("\r\n")), 0o644))
			args[len(args)-1] = crlf
			code, again, stderr := runCLI(t, "", args...)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, stdout, again, "CRLF input changed the dialog")
		})
	}
	for name := range mergedStreams {
		assert.True(t, fixtures[name], "merged stream %s: no such fixture", name)
	}
	owns, err := filepath.Glob(filepath.Join(fileGoldens, "*", "*.out.jsonl"))
	require.NoError(t, err)
	for _, own := range owns {
		name := filepath.Base(filepath.Dir(own)) + "/" + strings.TrimSuffix(filepath.Base(own), ".out.jsonl")
		assert.True(t, fixtures[name] && !mergedStreams[name], "%s is the golden of no fixture read as FILE", own)
	}
}

// formatFor maps a testdata folder to a --format value: folders named after
// a format use it; any other folder (e.g. "input") uses auto-detection.
func formatFor(dir string) string {
	if _, _, ok := inputs.PickFormats(dir); ok {
		return dir
	}
	return "auto"
}

// requireValid fails the test when the dialog breaks the contract.
func requireValid(t *testing.T, out []byte) {
	t.Helper()
	var findings []string
	_, err := dialogcheck.Validate(bytes.NewReader(out), func(f dialogcheck.Finding) { findings = append(findings, f.String()) })
	require.NoError(t, err)
	require.Empty(t, findings, "the dialog breaks the contract:\n%s", out)
}
