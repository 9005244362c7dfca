package adapter

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

func TestProcesses(t *testing.T) {
	var out bytes.Buffer
	w := dialog.NewWriter(&out, dialog.Options{Clock: dialog.FixedClock(time.Unix(0, 0))})
	w.SetAgent("test")
	var p Processes
	var sum dialog.Summary

	assert.False(t, p.Start(w, &sum), "the first process has none before it")
	w.ToolStart(dialog.ToolCall{ID: "c1", Name: "Shell"})
	sum.Status, sum.Message = dialog.StatusError, "boom" // its result: a failure
	p.Ended()

	assert.True(t, p.Start(w, &sum))
	assert.Zero(t, w.OpenTools(), "the first process's open call ended")
	assert.Equal(t, 1, sum.Warnings)
	assert.Empty(t, sum.Status, "the failure stops being the dialog's ending")

	assert.True(t, p.Start(w, &sum)) // the second gave no result
	assert.Equal(t, 2, sum.Warnings)

	sum.Status = dialog.StatusSuccess
	p.Ended()
	p.Start(w, &sum) // a success is no warning
	assert.Equal(t, 2, sum.Warnings)

	require.NoError(t, w.Close(sum, nil))
	text := out.String()
	for _, want := range []string{"the run ended before the tool call finished", dialog.WarningPrefix + "run failed: boom", dialog.WarningPrefix + "run ended without a result (interrupted or killed)"} {
		assert.Equal(t, 1, strings.Count(text, want), want)
	}
}
