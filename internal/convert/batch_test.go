package convert

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReporter: on a terminal, the progress line is wiped before any other
// output, so diagnostics never share a line with it; blocks come out in
// argument order; there is no colour or other escape sequence.
func TestReporter(t *testing.T) {
	var buf bytes.Buffer
	rep := newReporter(&buf, false, 3)
	rep.tty = true
	block := func(diag string, failed bool) *fileResult {
		r := &fileResult{failed: failed, entries: 2}
		r.diag.WriteString(diag)
		return r
	}
	rep.done(1, block("b.jsonl:1: skipped\n", false)) // waits for file 0
	assert.NotContains(t, buf.String(), "b.jsonl")
	rep.done(0, block("sse-dialog-convert: open a.jsonl: no such file\n", true))
	rep.done(2, block("", false))
	failed := rep.finish(func(c counts) string {
		assert.Equal(t, counts{converted: 2, failed: 1, entries: 6}, c)
		return "summary"
	})
	assert.True(t, failed)
	out := buf.String()
	assert.NotContains(t, out, "\x1b")
	// What is left once each progress line is overwritten: the blocks, in order.
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if i := strings.LastIndexByte(l, '\r'); i >= 0 {
			l = l[i+1:]
		}
		lines = append(lines, l)
	}
	assert.Equal(t, []string{"sse-dialog-convert: open a.jsonl: no such file", "b.jsonl:1: skipped", "summary", ""}, lines)
	assert.Contains(t, out, "sse-dialog-convert: 1/3 files")
	assert.Contains(t, out, "sse-dialog-convert: 2/3 files, 1 failed")

	// Not a terminal: no progress at all.
	buf.Reset()
	rep = newReporter(&buf, false, 1)
	rep.done(0, block("", false))
	rep.finish(func(counts) string { return "summary" })
	assert.Equal(t, "summary\n", buf.String())
}
