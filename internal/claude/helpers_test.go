package claude

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	_ "github.com/ssebench/sse-dialog-convert/internal/golden" // registers -update
)

var pinned = dialog.FixedClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

// format is this package's entry for the pipeline.
var format = convert.Format{
	Name:   "claude",
	Detect: Detect,
	New:    func(w *dialog.Writer) convert.Adapter { return New(w) },
}

// runPipeline converts input through the real pipeline (framing, detection,
// the writer) and returns the dialog and what went to stderr.
func runPipeline(t testing.TB, input string) (out, stderr string) {
	t.Helper()
	var buf, errBuf bytes.Buffer
	w := dialog.NewWriter(&buf, dialog.Options{Clock: pinned, DefaultCWD: "/work", MaxText: -1})
	c := convert.New(w, convert.Options{Formats: []convert.Format{format}, Stderr: &errBuf})
	require.NoError(t, c.Feed(strings.NewReader(input), "input"))
	require.NoError(t, c.Close(nil))
	return buf.String(), errBuf.String()
}

// requireValid fails when the dialog breaks the contract.
func requireValid(t testing.TB, out string) {
	t.Helper()
	var findings []string
	_, err := dialog.Validate(strings.NewReader(out), func(f dialog.Finding) { findings = append(findings, f.String()) })
	require.NoError(t, err)
	require.Empty(t, findings, "the dialog breaks the contract:\n%s", out)
}
