package convert

import (
	"bytes"
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
)

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
	s := SourceSpec(inputs.Source{Name: in.Name, Inputs: []*inputs.Input{in}}, dispatch.Options{Formats: registry.All()}, wopt, "", &stderr)
	s.Converter.Formats = registry.All()
	for _, f := range registry.All() {
		if f.Name == format {
			s.Converter.Formats, s.Converter.Forced = []adapter.Format{f}, true
		}
	}
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
// buffers (each file's and the job's), over the files' sizes: 0 until
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
	ahead := 2 * int64(frame.DefaultReadSize) // the buffer of the plain file, and the job's
	assert.InDelta(t, float64(size-ahead)/float64(size), p, 1e-9)

	fed := New(Spec{Inputs: []*inputs.Input{sessionInput(t, "claude-session", path)}, Feed: func(context.Context, *dispatch.Converter) Fed { return Fed{} }})
	_, err = fed.openInputs(context.Background())
	require.NoError(t, err)
	defer fed.closeInputs()
	assert.Nil(t, fed.countInputs(), "a feed")

	opaque := inputs.SessionInput(adapter.Input{Name: path, Open: func() (io.ReadCloser, error) { return os.Open(path) }})
	j = New(Spec{Inputs: []*inputs.Input{opaque}})
	_, err = j.openInputs(context.Background())
	require.NoError(t, err)
	defer j.closeInputs()
	assert.Nil(t, j.countInputs(), "a session stream that does not count its files")
}
