package convert

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/inputs"
)

// A saved file that grows while it is read (a session still being
// written) no longer has the size it was counted at: past it, the
// projection knows nothing of the rest, and the budget paces the rest as
// a stream's. Every call is kept, as a stream keeps it, none left out at
// the end for a file taken to be read through.
func TestJobPacesAFileThatGrowsAsAStream(t *testing.T) {
	const calls, budget = 2000, 1 << 20
	data := claudeCalls(calls)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(path, data[:len(claudeCalls(100))], 0o644))
	info, err := os.Stat(path)
	require.NoError(t, err)
	grown := &inputs.Input{Name: path, Label: path, R: bytes.NewReader(data), Stream: true, Info: info}

	got := convertInput(t, grown, budget)
	streamed := convertInput(t, inputs.ReaderInput(bytes.NewReader(data), "run.jsonl"), budget)
	assert.Equal(t, calls, strings.Count(streamed, `"status":"running"`), "the stream keeps every call")
	assert.LessOrEqual(t, len(got), budget)
	assert.Equal(t, calls, strings.Count(got, `"status":"running"`), "every call")
	assert.Zero(t, strings.Count(got, "left out at the end"))
}
