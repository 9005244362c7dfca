package convert

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// atifCalls is an ATIF trajectory of calls Bash calls, each step with its
// result: one JSON document, which the format's stream holds as one line.
func atifCalls(calls int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"schema_version":"ATIF-v1.6","session_id":"s","agent":{"name":"terminus-2","version":"1","model_name":"m"},"steps":[{"step_id":1,"source":"user","message":"go"}`)
	for i := range calls {
		fmt.Fprintf(&b, `,{"step_id":%d,"source":"agent","message":"","tool_calls":[{"tool_call_id":"call_%d","function_name":"Bash","arguments":{"command":"grep -rn 'pattern_%d' src/ | head -20","description":"Search the sources"}}],"observation":{"results":[{"source_call_id":"call_%d","content":"%s"}]}}`, i+2, i, i, i, result)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// An ATIF trajectory is one document: its stream's one line is read whole
// before its first step is converted, so the bytes read say nothing of
// how far the conversion is. One that does not fit its budget keeps every
// call, as it does paced without a progress.
func TestJobPacesATrajectoryWithoutFalseProgress(t *testing.T) {
	const calls = 8000
	path := filepath.Join(t.TempDir(), "trajectory.json")
	require.NoError(t, os.WriteFile(path, atifCalls(calls), 0o644))
	whole := convertWith(t, sessionInput(t, "atif", path), "atif", dialog.Options{MaxBytes: 64 << 20})
	const small = 3 << 20
	require.Greater(t, len(whole), small)
	cut := convertWith(t, sessionInput(t, "atif", path), "atif", dialog.Options{MaxBytes: small})
	unknown := convertWith(t, sessionInput(t, "atif", path), "atif",
		dialog.Options{MaxBytes: small, Progress: func() float64 { return 0 }})
	t.Logf("dialog %d bytes; cut to %d, %d without progress", len(whole), len(cut), len(unknown))
	assert.Equal(t, strings.Count(whole, `"type":"tool"`), strings.Count(unknown, `"type":"tool"`), "every call present, paced without progress")
	assert.Equal(t, strings.Count(whole, `"type":"tool"`), strings.Count(cut, `"type":"tool"`), "every call present")
	assert.LessOrEqual(t, len(cut), small)
}
