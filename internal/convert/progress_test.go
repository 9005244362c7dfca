package convert

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

// claudeCalls is a Claude stream-json run of calls Bash calls, each with a
// result of about 200 bytes.
func claudeCalls(calls int) []byte {
	var b bytes.Buffer
	for i := range calls {
		fmt.Fprintf(&b, `{"type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"tool_use","id":"toolu_%06d","name":"Bash","input":{"command":"grep -rn 'pattern_%d' src/ | head -20","description":"Search the sources"}}]},"session_id":"s"}`+"\n", i, i, i)
		fmt.Fprintf(&b, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%06d","content":"%s"}]},"session_id":"s"}`+"\n", i, strings.Repeat("abcdefghijklmnopqrstuvwxyz", 8))
	}
	return b.Bytes()
}

// convertInput runs a job on in under a budget of maxBytes and returns
// the dialog.
func convertInput(t *testing.T, in *inputs.Input, maxBytes int64) string {
	t.Helper()
	var out bytes.Buffer
	var stderr bytes.Buffer
	j := New(Spec{
		Name: in.Name, Inputs: []*inputs.Input{in}, Out: WriterOutput("", &out),
		Writer:    dialog.Options{MaxBytes: maxBytes, Clock: dialog.FixedClock{}, PinnedClock: true, Saved: true},
		Converter: dispatch.Options{Formats: registry.All()},
		Lines:     "input line", Stderr: &stderr,
	})
	_, err := j.Run(context.Background())
	require.NoError(t, err, stderr.String())
	return out.String()
}

// A saved file that fits its budget is not cut by the pace: the job tells
// the writer how far through the file it is. The same bytes from a reader
// of unknown size (a stream) are paced as before: late calls lose their
// args and results.
func TestJobPacesASavedFileByItsProgress(t *testing.T) {
	data := claudeCalls(2000)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	saved := convertInput(t, inputs.FileInput(path), 2<<20)
	streamed := convertInput(t, inputs.ReaderInput(bytes.NewReader(data), "run.jsonl"), 2<<20)
	// Counted, not searched: a failure then says how many, not the dialog.
	assert.Zero(t, strings.Count(saved, `"args_cut"`))
	assert.Zero(t, strings.Count(saved, "cut for the file budget"))
	assert.Positive(t, strings.Count(streamed, `"args_cut"`))
	assert.Positive(t, strings.Count(streamed, `"result_cut"`))
	assert.Equal(t, strings.Count(streamed, "\n"), strings.Count(saved, "\n")+1, "every entry in both, and the stream's note of what the budget cut")
}

// Progress is the fraction of the files' bytes read, before decompression,
// with each file's read-ahead counted as unread; none for standard input,
// a reader of unknown size, or a feed.
func TestJobProgress(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "a.jsonl")
	require.NoError(t, os.WriteFile(plain, claudeCalls(10), 0o644))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(claudeCalls(100))
	require.NoError(t, zw.Close())
	packed := filepath.Join(dir, "b.jsonl.gz")
	require.NoError(t, os.WriteFile(packed, gz.Bytes(), 0o644))

	ins := []*inputs.Input{inputs.FileInput(plain), inputs.FileInput(packed)}
	j := New(Spec{Inputs: ins})
	_, err := j.openInputs(context.Background())
	require.NoError(t, err)
	defer j.closeInputs()
	progress := j.countInputs()
	require.NotNil(t, progress)
	assert.Zero(t, progress())

	sizeA, sizeB := int64(len(claudeCalls(10))), int64(gz.Len())
	total := float64(sizeA + sizeB + 2*frame.DefaultReadSize)
	_, err = io.ReadAll(ins[0].R)
	require.NoError(t, err)
	assert.Equal(t, float64(sizeA)/total, progress())
	r, release, err := sessionfile.Decompressed(ins[1].R)
	require.NoError(t, err)
	unpacked, err := io.ReadAll(r)
	release()
	require.NoError(t, err)
	assert.Equal(t, claudeCalls(100), unpacked)
	assert.Equal(t, float64(sizeA+sizeB)/total, progress(), "the file's bytes, not the decompressed ones")

	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	defer pw.Close()
	assert.Nil(t, New(Spec{Inputs: []*inputs.Input{inputs.StdinInput(pr)}}).countInputs(), "standard input")
	stdinFile, err := os.Open(plain)
	require.NoError(t, err)
	defer stdinFile.Close()
	assert.Nil(t, New(Spec{Inputs: []*inputs.Input{inputs.StdinInput(stdinFile)}}).countInputs(), "standard input, even a file")
	assert.Nil(t, New(Spec{Inputs: []*inputs.Input{inputs.ReaderInput(strings.NewReader("x"), "r")}}).countInputs(), "a reader of unknown size")
	fed := New(Spec{Inputs: []*inputs.Input{inputs.FileInput(plain)}, Feed: func(context.Context, *dispatch.Converter) Fed { return Fed{} }})
	_, err = fed.openInputs(context.Background())
	require.NoError(t, err)
	defer fed.closeInputs()
	assert.Nil(t, fed.countInputs(), "a feed (--follow, run's agent)")
}
