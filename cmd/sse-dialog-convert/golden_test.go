package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	_ "github.com/ssebench/sse-dialog-convert/internal/golden"
	"github.com/ssebench/sse-dialog-convert/internal/inputs" // registers -update
	"github.com/ssebench/sse-dialog-convert/internal/registry"
)

// goldenArgs pin everything that would otherwise depend on the machine.
var goldenArgs = []string{"-o", "-", "--clock", "2026-01-02T03:04:05Z", "--cwd", "/work", "--task", "fixture"}

// TestGolden converts every testdata/<format>/<case>.in.jsonl with the
// command and compares the dialog with <case>.out.jsonl. The goldens are
// written by the adapter kit (internal/registry's TestGolden, with
// -update); this checks that the command, its flags and its file handling
// give the same bytes. A fixture its format's Inputs claim as a session
// file is read the way they say (a session's stream is the golden's
// input, the merged subagents' envelopes included): its dialog is the
// kit's conversion of the stream they open. Every output must also pass
// validate.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob("../../testdata/*/*.in.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, inputs, "no fixtures found")
	for _, in := range inputs {
		format := filepath.Base(filepath.Dir(in))
		name := format + "/" + strings.TrimSuffix(filepath.Base(in), ".in.jsonl")
		t.Run(name, func(t *testing.T) {
			t.Setenv("SSE_MODEL_NAME", "")
			t.Setenv("SSE_TASK_ID", "")
			args := append(append([]string{}, goldenArgs...), "--format", formatFor(format), in)
			code, stdout, stderr := runCLI(t, "", args...)
			require.Equal(t, 0, code, "stderr: %s", stderr)
			requireValid(t, []byte(stdout))
			want, err := os.ReadFile(strings.TrimSuffix(in, ".in.jsonl") + ".out.jsonl")
			require.NoError(t, err, "no golden: run go test ./internal/registry -update")
			if f, ok := registry.Lookup(format); ok && f.Inputs != nil {
				if ins, ok, err := f.Inputs(in); err == nil && ok {
					require.Len(t, ins, 1)
					r, err := ins[0].Open()
					require.NoError(t, err)
					want = adaptertest.Convert(t, f, r)
					require.NoError(t, r.Close())
				}
			}
			assert.Equal(t, string(want), stdout, "the command's dialog differs from the golden")

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
	_, err := dialog.Validate(bytes.NewReader(out), func(f dialog.Finding) { findings = append(findings, f.String()) })
	require.NoError(t, err)
	require.Empty(t, findings, "the dialog breaks the contract:\n%s", out)
}
