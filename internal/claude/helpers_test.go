package claude

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dialogcheck"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	_ "github.com/ssebench/sse-dialog-convert/internal/golden" // registers -update
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

var pinned = dialog.FixedClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

// runPipeline converts input through the real pipeline (framing, detection,
// the writer) and returns the dialog and what went to stderr.
func runPipeline(t testing.TB, input string) (out, stderr string) {
	t.Helper()
	var buf, errBuf bytes.Buffer
	c := dispatch.New(&buf, dialog.Options{Clock: pinned, DefaultCWD: "/work", MaxText: -1},
		dispatch.Options{Formats: []adapter.Format{Format()}, Forced: true, Stderr: &errBuf})
	require.NoError(t, c.Feed(strings.NewReader(input), "input"))
	require.NoError(t, c.Close(nil))
	return buf.String(), errBuf.String()
}

// requireValid fails when the dialog breaks the contract.
func requireValid(t testing.TB, out string) {
	t.Helper()
	var findings []string
	_, err := dialogcheck.Validate(strings.NewReader(out), func(f dialogcheck.Finding) { findings = append(findings, f.String()) })
	require.NoError(t, err)
	require.Empty(t, findings, "the dialog breaks the contract:\n%s", out)
}

// eventOf is line as the pipeline hands it to the adapter.
func eventOf(t testing.TB, line []byte) adapter.Event {
	t.Helper()
	v, ok := jsonraw.Parse(line)
	require.True(t, ok, "not JSON: %s", line)
	return adapter.Event{Value: v}
}
