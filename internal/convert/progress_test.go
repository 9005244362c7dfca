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

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
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

// claudeReads is a Claude stream-json run of calls Read calls, each with
// a result of 3,000 bytes: a dialog mostly of text.
func claudeReads(calls int) []byte {
	result := strings.Repeat(`src/parse.go:120: func parseLine(b []byte) error\n`, 60)[:3000]
	var b bytes.Buffer
	for i := range calls {
		fmt.Fprintf(&b, `{"type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"tool_use","id":"toolu_%06d","name":"Read","input":{"file_path":"/work/src/parse_%d.go"}}]},"session_id":"s"}`+"\n", i, i, i)
		fmt.Fprintf(&b, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%06d","content":"%s"}]},"session_id":"s"}`+"\n", i, result)
	}
	return b.Bytes()
}

// A saved file whose dialog fits its budget but whose text is more than
// the half of it a stream's text may take (450 results of 3,000 bytes in
// 2 MiB) is written whole: as with no budget at all. The same bytes as a
// stream are cut. Under a budget it does not fit (1 MiB), every call is
// there, ended, and the dialog under the budget.
func TestJobLeavesATextHeavySavedFileWhole(t *testing.T) {
	const calls = 450
	data := claudeReads(calls)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	uncut := convertInput(t, inputs.FileInput(path), -1)
	require.Less(t, len(uncut), 2<<20)
	require.Greater(t, strings.Count(uncut, "src/parse.go:120")*50, 1<<20, "the results' text alone is more than half the budget")
	saved := convertInput(t, inputs.FileInput(path), 2<<20)
	streamed := convertInput(t, inputs.ReaderInput(bytes.NewReader(data), "run.jsonl"), 2<<20)
	// Counted, not searched: a failure then says how many, not the dialog.
	assert.Zero(t, strings.Count(saved, "cut for the file budget"))
	assert.True(t, saved == uncut, "the saved file's dialog is the one written with no budget")
	assert.Positive(t, strings.Count(streamed, "cut for the file budget"), "a stream's text is held to half the budget")

	const small = 1 << 20
	cut := convertInput(t, inputs.FileInput(path), small)
	assert.LessOrEqual(t, len(cut), small)
	assert.Positive(t, strings.Count(cut, "cut for the file budget"))
	assert.Equal(t, calls, strings.Count(cut, `"status":"running"`), "every call")
	assert.Equal(t, calls, strings.Count(cut, `"status":"success"`), "every call ended")
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

// result is a tool's output of about 200 bytes.
var result = strings.Repeat("abcdefghijklmnopqrstuvwxyz", 8)

// claudeSessionCalls is a Claude Code session file (~/.claude/projects) of
// calls Bash calls, each line's parentUuid the line before it.
func claudeSessionCalls(calls int) []byte {
	var b bytes.Buffer
	prev := "null"
	for i := range calls {
		line := func(typ, message string) {
			uuid := fmt.Sprintf(`"00000000-0000-4000-8000-%012d"`, b.Len())
			fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"sessionId":"s","type":"%s","message":%s,"uuid":%s,"timestamp":"2026-01-01T00:00:00.000Z"}`+"\n", prev, typ, message, uuid)
			prev = uuid
		}
		line("assistant", fmt.Sprintf(`{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"tool_use","id":"toolu_%06d","name":"Bash","input":{"command":"grep -rn 'pattern_%d' src/ | head -20","description":"Search the sources"}}]}`, i, i, i))
		line("user", fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%06d","content":"%s"}]}`, i, result))
	}
	return b.Bytes()
}

// codexRolloutCalls is a Codex rollout (~/.codex/sessions) of calls shell
// calls.
func codexRolloutCalls(calls int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"019c8f00-0000-7000-8000-00000000c0de","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/srv","originator":"codex_exec","cli_version":"0.171.0","source":"exec","model_provider":"openai"}}` + "\n")
	for i := range calls {
		fmt.Fprintf(&b, `{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"grep -rn pattern_%d src/ | head -20\"}","call_id":"call_%d"}}`+"\n", i, i)
		fmt.Fprintf(&b, `{"timestamp":"2026-01-01T00:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_%d","output":"%s"}}`+"\n", i, result)
	}
	return b.Bytes()
}

// sessionInput is the one dialog the format's Inputs find at path.
func sessionInput(t *testing.T, format, path string) *inputs.Input {
	t.Helper()
	for _, f := range registry.All() {
		if f.Name != format {
			continue
		}
		ins, ok, err := f.Inputs(path)
		require.NoError(t, err)
		require.True(t, ok)
		require.Len(t, ins, 1)
		return inputs.SessionInput(ins[0])
	}
	t.Fatalf("no format %s", format)
	return nil
}

// convertWith runs a job on in under wopt and returns the dialog.
func convertWith(t *testing.T, in *inputs.Input, format string, wopt dialog.Options) string {
	t.Helper()
	var out, stderr bytes.Buffer
	wopt.Clock, wopt.PinnedClock, wopt.Saved = dialog.FixedClock{}, true, true
	src := inputs.Source{Name: in.Name, Inputs: []*inputs.Input{in}}
	for _, f := range registry.All() {
		if f.Name == format {
			src.Format = &f
		}
	}
	require.NotNil(t, src.Format, format)
	s := SourceSpec(src, dispatch.Options{}, wopt, "", &stderr)
	s.Out = WriterOutput("", &out)
	_, err := New(s).Run(context.Background())
	require.NoError(t, err, stderr.String())
	return out.String()
}

// A session a format opens itself is paced by how much of its files has
// been read, as a saved stream file is: one whose dialog fits its budget
// is not cut by the pace (the same session paced without knowing its
// progress loses late calls' args and results), and one that does not
// fit stays under the budget with every entry present.
func TestJobPacesASessionByItsProgress(t *testing.T) {
	const calls = 8000
	for _, tc := range []struct {
		format string
		data   []byte
	}{
		{"claude-session", claudeSessionCalls(calls)},
		{"codex-rollout", codexRolloutCalls(calls)},
	} {
		t.Run(tc.format, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			require.NoError(t, os.WriteFile(path, tc.data, 0o644))
			const budget = 8 << 20

			paced := convertWith(t, sessionInput(t, tc.format, path), tc.format, dialog.Options{MaxBytes: budget})
			unknown := convertWith(t, sessionInput(t, tc.format, path), tc.format,
				dialog.Options{MaxBytes: budget, Progress: func() float64 { return 0 }})
			// Counted, not searched: a failure then says how many, not the dialog.
			assert.Zero(t, strings.Count(paced, `"args_cut"`))
			assert.Zero(t, strings.Count(paced, `"result_cut"`))
			assert.Zero(t, strings.Count(paced, "cut for the file budget"))
			assert.Equal(t, calls, strings.Count(paced, result), "every result whole")
			assert.Positive(t, strings.Count(unknown, `"args_cut"`)+strings.Count(unknown, "cut for the file budget"),
				"the session is one the pace cuts when its progress is not known")
			assert.Equal(t, strings.Count(unknown, "\n"), strings.Count(paced, "\n")+1, "every entry in both, and the note of what the budget cut")

			const small = 3 << 20
			t.Logf("session %d bytes, dialog %d bytes, %d without progress", len(tc.data), len(paced), len(unknown))
			require.Greater(t, len(paced), small)
			cut := convertWith(t, sessionInput(t, tc.format, path), tc.format, dialog.Options{MaxBytes: small})
			assert.LessOrEqual(t, len(cut), small)
			assert.Positive(t, strings.Count(cut, "cut for the file budget")+strings.Count(cut, `"args_cut"`), "the budget cut")
			assert.Equal(t, strings.Count(paced, `"type":"tool"`), strings.Count(cut, `"type":"tool"`), "every call present")
		})
	}
}

// A session's Progress is what its files read, less what may wait in
// their buffers (one each), over the files' sizes: 0 until
// more than the buffers hold is read, and below 1 once every byte is.
// None for a session fed from elsewhere (--follow) or a stream that does
// not count its files.
func TestJobSessionProgress(t *testing.T) {
	data := claudeSessionCalls(3000)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	in := sessionInput(t, "claude-session", path)
	j := New(Spec{Inputs: []*inputs.Input{in}})
	_, err := j.openInputs(context.Background())
	require.NoError(t, err)
	defer j.closeInputs()
	progress := j.countInputs()
	require.NotNil(t, progress)
	assert.Zero(t, progress(), "nothing converted yet")
	_, err = io.ReadAll(in.R)
	require.NoError(t, err)
	p := progress()
	assert.Greater(t, p, 0.0)
	assert.Less(t, p, 1.0, "the buffers may still hold entries")
	size := int64(len(data))
	ahead := int64(frame.DefaultReadSize) // the file's one buffer: the stream's, which hands the job one record a Read
	assert.InDelta(t, float64(size-ahead)/float64(size), p, 1e-9)

	fed := New(Spec{Inputs: []*inputs.Input{sessionInput(t, "claude-session", path)}, Feed: func(context.Context, *dispatch.Converter) Fed { return Fed{} }})
	_, err = fed.openInputs(context.Background())
	require.NoError(t, err)
	defer fed.closeInputs()
	assert.Nil(t, fed.countInputs(), "a feed")

	opaque := sessionInput(t, "claude-session", path)
	j = New(Spec{Inputs: []*inputs.Input{opaque}})
	_, err = j.openInputs(context.Background())
	require.NoError(t, err)
	defer j.closeInputs()
	opaque.R = io.MultiReader(opaque.R) // no ReadCount
	assert.Nil(t, j.countInputs(), "a session stream that does not count its files")
}

// A session stream that merges files frames them itself and hands its
// reader one record a Read: the job's buffer then holds no more than the
// record it converts, and a session's progress counts no buffer of the
// job's besides its files' own (countInputs).
func TestMergedSessionStreamsHandOneRecordARead(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "s.jsonl")
	require.NoError(t, os.WriteFile(claude, claudeSessionCalls(300), 0o644))
	gemini := filepath.Join(dir, "session-2026-01-01T00-00-chat.jsonl")
	var chat bytes.Buffer
	chat.WriteString(`{"sessionId":"11111111-aaaa-4bbb-8ccc-000000000001","projectHash":"abc","startTime":"2026-01-01T00:00:00.000Z","lastUpdated":"2026-01-01T00:00:00.000Z","kind":"main"}` + "\n")
	for i := range 300 {
		fmt.Fprintf(&chat, `{"id":"g%d","timestamp":"2026-01-01T00:00:01.000Z","type":"gemini","content":"%s","model":"gemini-2.5-pro"}`+"\n", i, result)
	}
	require.NoError(t, os.WriteFile(gemini, chat.Bytes(), 0o644))
	for format, path := range map[string]string{"claude-session": claude, "gemini-session": gemini} {
		in := sessionInput(t, format, path)
		j := New(Spec{Inputs: []*inputs.Input{in}})
		_, err := j.openInputs(context.Background())
		require.NoError(t, err)
		_, ok := in.R.(adapter.ReadCounter)
		require.True(t, ok, format)
		buf := make([]byte, frame.DefaultReadSize)
		reads, records := 0, 0
		for {
			n, err := in.R.Read(buf)
			if n > 0 {
				reads++
				lines := bytes.Count(buf[:n], []byte("\n"))
				records += lines
				require.LessOrEqual(t, lines, 1, "%s: read %d", format, reads)
			}
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
		}
		j.closeInputs()
		assert.Greater(t, records, 300, format)
	}
}
