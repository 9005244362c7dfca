package geminisession_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/geminisession"
	"github.com/ssebench/sse-dialog-convert/internal/golden"
)

// testdata holds this format's fixtures.
const testdata = "../../testdata/gemini-session"

// openOne asks Inputs about path, which must be one chat, and returns the
// stream it opens, whole.
func openOne(t *testing.T, path string) []byte {
	t.Helper()
	ins, ok, err := geminisession.Inputs(path)
	require.NoError(t, err)
	require.True(t, ok, "%s is not claimed as a chat file", path)
	require.Len(t, ins, 1)
	assert.Equal(t, path, ins[0].Name)
	r, err := ins[0].Open()
	require.NoError(t, err)
	defer r.Close()
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return b
}

// convertFile converts the chat at path as the command does (Inputs, then
// the format forced), with opt, and returns the dialog and what the
// converter said on stderr.
func convertFile(t *testing.T, path string, opt dialog.Options) (out []byte, stderr string) {
	t.Helper()
	stream := openOne(t, path)
	var o, e bytes.Buffer
	c := dispatch.New(&o, opt, dispatch.Options{Stderr: &e, Formats: []adapter.Format{geminisession.Format()}, Forced: true})
	require.NoError(t, c.Feed(bytes.NewReader(stream), path))
	require.NoError(t, c.Close(nil))
	adaptertest.RequireValid(t, o.Bytes())
	return o.Bytes(), e.String()
}

// decode reads a dialog's entries.
func decode(t *testing.T, dialog []byte) []map[string]any {
	t.Helper()
	var es []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(dialog), []byte("\n")) {
		var e map[string]any
		require.NoError(t, json.Unmarshal(line, &e), "%s", line)
		es = append(es, e)
	}
	return es
}

// A chat of the JSON-document form, pretty-printed or compact, read as a
// FILE comes out as the JSON Lines form (its members before the messages
// as the header, one message a line) and converts to the same dialog as
// the document read as one record (the golden, which the adapter kit
// makes from the stream).
func TestDocumentReadAsFile(t *testing.T) {
	for _, name := range []string{"document-pretty", "document-compact"} {
		t.Run(name, func(t *testing.T) {
			in := filepath.Join(testdata, name+".in.jsonl")
			var doc struct {
				SessionID string            `json:"sessionId"`
				Messages  []json.RawMessage `json:"messages"`
			}
			require.NoError(t, json.Unmarshal(readAll(t, in), &doc))

			lines := bytes.Split(bytes.TrimSuffix(openOne(t, in), []byte("\n")), []byte("\n"))
			require.Len(t, lines, 1+len(doc.Messages), "a header and one line per message")
			var header map[string]any
			require.NoError(t, json.Unmarshal(lines[0], &header))
			assert.Equal(t, doc.SessionID, header["sessionId"])
			assert.NotContains(t, header, "messages")
			for i, m := range doc.Messages {
				var want, got bytes.Buffer
				require.NoError(t, json.Compact(&want, m))
				require.NoError(t, json.Compact(&got, lines[i+1]))
				assert.Equal(t, want.String(), got.String(), "message %d", i+1)
				assert.Equal(t, got.Len(), len(lines[i+1]), "message %d is compact", i+1)
			}

			want := string(readAll(t, filepath.Join(testdata, name+".out.jsonl")))
			out, stderr := convertFile(t, in, adaptertest.Options())
			assert.Empty(t, stderr)
			assert.Equal(t, want, string(out), "read as a FILE")
			assert.Equal(t, want, string(adaptertest.Convert(t, geminisession.Format(), bytes.NewReader(readAll(t, in)))), "read as a stream")
		})
	}
}

// A chat file of the JSON Lines form is read as it is.
func TestJSONLinesReadAsTheyAre(t *testing.T) {
	for _, name := range []string{"basic", "tool-error", "rewritten-message"} {
		in := filepath.Join(testdata, name+".in.jsonl")
		assert.Equal(t, string(readAll(t, in)), string(openOne(t, in)), name)
	}
}

// A document cut while it was written keeps what was whole, and says what
// was lost: in the dialog (a warning; the ending incomplete) and on
// stderr.
func TestCutDocument(t *testing.T) {
	in := filepath.Join(testdata, "documents", "cut.json")
	raw := readAll(t, in)
	// The file stops inside message 3 (m-g2); message 2 (m-g1) ends at the
	// "}" before it.
	m3 := bytes.Index(raw, []byte(`"id": "m-g2"`))
	require.Positive(t, m3)
	end := bytes.LastIndexByte(raw[:m3], '}') + 1
	lost := len(raw) - end

	out, stderr := convertFile(t, in, adaptertest.Options())
	golden.Check(t, filepath.Join(testdata, "documents", "cut.out.jsonl"), out)
	want := fmt.Sprintf("the chat file's JSON document is not whole: it ends in message 3 (cut while it was written?): the %d bytes after byte %d, where message 2 ends, are lost", lost, end)
	assert.Equal(t, in+":4: skipped: "+want+"\n", stderr)

	es := decode(t, out)
	last := es[len(es)-1]
	assert.Equal(t, "error", last["status"])
	assert.Equal(t, "incomplete", last["reason"])
	assert.EqualValues(t, 1, last["warnings"])
	assert.Equal(t, dialog.WarningPrefix+want, es[len(es)-2]["content"])
	starts := 0
	results := map[string]any{}
	for _, e := range es {
		if e["type"] == "tool" && e["status"] == "running" {
			starts++
		} else if e["type"] == "tool" {
			results[e["tool_id"].(string)] = e["status"]
		}
	}
	assert.Equal(t, 2, starts, "the calls of message 2; message 3's are lost")
	assert.Equal(t, map[string]any{"run_shell_command-1760950805000-aa01": "error", "read_file-1760950805001-aa02": "success"}, results)
}

// A document that is not valid JSON from some point on is read up to
// there, and says why it stops.
func TestBrokenDocument(t *testing.T) {
	pretty := readAll(t, filepath.Join(testdata, "document-pretty.in.jsonl"))
	broken := bytes.Replace(pretty, []byte(`"id": "m-g3",`), []byte(`"id": "m-g3" "x",`), 1)
	require.NotEqual(t, pretty, broken)
	path := filepath.Join(t.TempDir(), "session-broken.json")
	require.NoError(t, os.WriteFile(path, broken, 0o644))

	out, stderr := convertFile(t, path, adaptertest.Options())
	assert.Contains(t, stderr, "the chat file's JSON document is broken in message 4 (invalid character '\"' after object key:value pair)")
	assert.Contains(t, stderr, "where message 3 ends, are lost")
	es := decode(t, out)
	last := es[len(es)-1]
	assert.Equal(t, "incomplete", last["reason"])
	assert.NotContains(t, string(out), "All tests pass.", "nothing after the break is read")
	assert.Contains(t, string(out), "add_test.go.orig", "message 3 is whole")
}

// A document whose messages are whole but whose end is cut off warns; the
// conversation ends as its messages say.
func TestDocumentCutAfterItsMessages(t *testing.T) {
	pretty := readAll(t, filepath.Join(testdata, "document-pretty.in.jsonl"))
	cut := bytes.TrimRight(pretty, "}\n \t")
	path := filepath.Join(t.TempDir(), "session-cut.json")
	require.NoError(t, os.WriteFile(path, cut, 0o644))

	out, stderr := convertFile(t, path, adaptertest.Options())
	assert.Contains(t, stderr, "it ends after its messages (cut while it was written?)")
	es := decode(t, out)
	last := es[len(es)-1]
	assert.Equal(t, "success", last["status"], "the last message is an answer")
	assert.EqualValues(t, 1, last["warnings"])
}

// Members after the messages come as a "$set" of them: a document's
// directories there still name the cwd when no message has.
func TestDocumentMembersAfterMessages(t *testing.T) {
	doc := `{"sessionId":"s-after","projectHash":"p","messages":[` +
		`{"id":"u","timestamp":"2025-10-20T09:00:00.000Z","type":"user","content":"hi"},` +
		`{"id":"g","timestamp":"2025-10-20T09:00:01.000Z","type":"gemini","content":"hello","model":"gemini-2.5-flash"}` +
		`],"directories":["/home/dev/after"],"summary":"greeting"}`
	path := filepath.Join(t.TempDir(), "session-after.json")
	require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
	lines := strings.Split(strings.TrimSuffix(string(openOne(t, path)), "\n"), "\n")
	require.Len(t, lines, 4)
	assert.Equal(t, `{"sessionId":"s-after","projectHash":"p"}`, lines[0])
	assert.Equal(t, `{"$set":{"directories":["/home/dev/after"],"summary":"greeting"}}`, lines[3])

	out, stderr := convertFile(t, path, dialog.Options{Saved: true})
	assert.Empty(t, stderr)
	es := decode(t, out)
	data := es[0]["data"].(map[string]any)
	assert.Equal(t, "gemini-2.5-flash", data["model"])
}

// A byte order mark before a document does not hide it.
func TestDocumentAfterByteOrderMark(t *testing.T) {
	pretty := readAll(t, filepath.Join(testdata, "document-pretty.in.jsonl"))
	path := filepath.Join(t.TempDir(), "session-bom.json")
	require.NoError(t, os.WriteFile(path, append([]byte("\xef\xbb\xbf"), pretty...), 0o644))
	out, stderr := convertFile(t, path, adaptertest.Options())
	assert.Empty(t, stderr)
	assert.Equal(t, string(readAll(t, filepath.Join(testdata, "document-pretty.out.jsonl"))), string(out))
}

// A document too long for the framing to join its lines (over 100,000
// lines) or for the first MiB to hold its first record still is a chat
// file, read message by message: every message and call is in the dialog.
func TestLargeDocument(t *testing.T) {
	const calls = 4000
	type call struct {
		ID     string         `json:"id"`
		Name   string         `json:"name"`
		Args   map[string]any `json:"args"`
		Result []any          `json:"result"`
		Status string         `json:"status"`
	}
	type message struct {
		ID        string `json:"id"`
		Timestamp string `json:"timestamp"`
		Type      string `json:"type"`
		Content   string `json:"content"`
		Model     string `json:"model,omitempty"`
		ToolCalls []call `json:"toolCalls,omitempty"`
	}
	msgs := []message{{ID: "u0", Timestamp: "2025-10-20T09:00:00.000Z", Type: "user", Content: "read them all"}}
	for i := range calls {
		id := fmt.Sprintf("read_file-%d", i)
		msgs = append(msgs, message{
			ID: fmt.Sprintf("g%d", i), Timestamp: "2025-10-20T09:00:01.000Z", Type: "gemini", Model: "gemini-2.5-pro",
			ToolCalls: []call{{ID: id, Name: "read_file", Args: map[string]any{"absolute_path": fmt.Sprintf("/f/%d", i), "limit": 10, "offset": 0},
				Result: []any{map[string]any{"functionResponse": map[string]any{"id": id, "name": "read_file", "response": map[string]any{"output": strings.Repeat("line\n", 60)}}}},
				Status: "success"}},
		})
	}
	msgs = append(msgs, message{ID: "gz", Timestamp: "2025-10-20T09:00:02.000Z", Type: "gemini", Content: "Done.", Model: "gemini-2.5-pro"})
	raw, err := json.MarshalIndent(struct {
		SessionID   string    `json:"sessionId"`
		ProjectHash string    `json:"projectHash"`
		Messages    []message `json:"messages"`
	}{"s-large", "p", msgs}, "", "  ")
	require.NoError(t, err)
	require.Greater(t, bytes.Count(raw, []byte("\n")), 100000, "the document must span more lines than the framing joins")
	require.Greater(t, len(raw), 1<<20, "the document must be longer than the first MiB read to claim a file")
	path := filepath.Join(t.TempDir(), "session-large.json")
	require.NoError(t, os.WriteFile(path, raw, 0o644))

	out, stderr := convertFile(t, path, adaptertest.Options())
	assert.Empty(t, stderr)
	starts, results := 0, 0
	for _, e := range decode(t, out) {
		switch {
		case e["type"] == "tool" && e["status"] == "running":
			starts++
		case e["type"] == "tool" && e["status"] == "success":
			results++
		}
	}
	assert.Equal(t, calls, starts)
	assert.Equal(t, calls, results)
	assert.Contains(t, string(out), `"content":"Done."`)
}

// A folder is searched at any depth for the sessions' chats, of both
// forms and compressed or not; subagents' chats, other JSON files and
// other files are not sessions.
func TestInputsOfAFolder(t *testing.T) {
	root := t.TempDir()
	chats := filepath.Join(root, "tmp", "0f1e2d", "chats")
	require.NoError(t, os.MkdirAll(filepath.Join(chats, "11111111-aaaa-4bbb-8ccc-000000000001"), 0o755))
	write := func(rel string, data []byte) string {
		p := filepath.Join(chats, rel)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	basic := write("session-2026-03-01T10-00-11111111.jsonl", readAll(t, filepath.Join(testdata, "basic.in.jsonl")))
	doc := write("session-2025-10-20T09-00-7d3c2b1a.json", readAll(t, filepath.Join(testdata, "document-pretty.in.jsonl")))
	write("11111111-aaaa-4bbb-8ccc-000000000001/agent-1.jsonl",
		[]byte(`{"sessionId":"22222222","projectHash":"abc","startTime":"2026-03-01T10:00:00.000Z","kind":"subagent"}`+"\n"))
	write("logs.json", []byte(`[{"sessionId":"x","messageId":0,"type":"user","message":"hi"}]`))
	write("settings.json", []byte(`{"model":{"name":"gemini-2.5-pro"}}`))
	write("notes.txt", []byte("not a chat"))
	write("checkpoint-tag.json", []byte(`[{"role":"user","parts":[{"text":"hi"}]}]`))

	ins, ok, err := geminisession.Inputs(root)
	require.NoError(t, err)
	require.True(t, ok)
	var names []string
	for _, in := range ins {
		names = append(names, in.Name)
	}
	assert.Equal(t, []string{doc, basic}, names, "the sessions, in lexical order")

	for _, p := range []string{filepath.Join(chats, "logs.json"), filepath.Join(chats, "settings.json"), filepath.Join(chats, "notes.txt")} {
		_, ok, err := geminisession.Inputs(p)
		require.NoError(t, err)
		assert.False(t, ok, "%s is no chat file", p)
	}
	_, _, err = geminisession.Inputs(filepath.Join(root, "missing"))
	assert.Error(t, err)

	empty := t.TempDir()
	_, ok, err = geminisession.Inputs(empty)
	require.NoError(t, err)
	assert.False(t, ok, "a folder with no chat file is not this format's")
}

// A subagent's chat (<folder>/<session id>/<agentId>.jsonl) is read with
// the call that ran it: its start, then its records in envelopes naming
// the call, then the record of the call; its entries in the dialog name
// the call as their parent.
func TestOpenSessionSplicesSubagents(t *testing.T) {
	dir := t.TempDir()
	session := `{"sessionId":"sess-1","projectHash":"p","startTime":"2026-03-01T14:00:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-03-01T14:00:01.000Z","type":"user","content":[{"text":"delegate it"}]}
{"id":"g1","timestamp":"2026-03-01T14:00:02.000Z","type":"gemini","content":"","model":"gemini-2.5-pro","toolCalls":[{"id":"invoke_agent__1","name":"invoke_agent","agentId":"agent-7","args":{"prompt":"count"},"result":[{"functionResponse":{"id":"invoke_agent__1","name":"invoke_agent","response":{"output":"2 files"}}}],"status":"success"}]}
{"id":"g2","timestamp":"2026-03-01T14:00:03.000Z","type":"gemini","content":"Two files.","model":"gemini-2.5-pro"}
`
	sub := `{"sessionId":"agent-7","projectHash":"p","startTime":"2026-03-01T14:00:02.100Z","kind":"subagent"}
{"id":"s1","timestamp":"2026-03-01T14:00:02.200Z","type":"gemini","content":"Counting.","model":"gemini-2.5-flash","toolCalls":[{"id":"sub#0","name":"run_shell_command","args":{"command":"ls | wc -l"},"result":[{"functionResponse":{"id":"sub#0","name":"run_shell_command","response":{"output":"Output: 2"}}}],"status":"success"}]}
`
	path := filepath.Join(dir, "session-1.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(session), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sess-1"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sess-1", "agent-7.jsonl"), []byte(sub), 0o644))

	ins, ok, err := geminisession.Inputs(dir)
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, ins, 1, "the subagent's chat is no session of its own")

	lines := strings.Split(strings.TrimSuffix(string(openOne(t, path)), "\n"), "\n")
	require.Len(t, lines, 7)
	assert.Equal(t, `{"type":"gemini-session-subagent","callId":"invoke_agent__1","name":"invoke_agent","args":{"prompt":"count"},"model":"gemini-2.5-pro"}`, lines[2])
	assert.True(t, strings.HasPrefix(lines[3], `{"type":"gemini-session-subagent","callId":"invoke_agent__1","line":{"sessionId":"agent-7"`), lines[3])
	assert.True(t, strings.HasPrefix(lines[4], `{"type":"gemini-session-subagent","callId":"invoke_agent__1","line":{"id":"s1"`), lines[4])
	assert.True(t, strings.HasPrefix(lines[5], `{"id":"g1"`), lines[5])

	out, stderr := convertFile(t, path, adaptertest.Options())
	assert.Empty(t, stderr)
	parents := map[string]any{}
	for _, e := range decode(t, out) {
		if e["type"] == "tool" && e["status"] == "running" {
			parents[e["tool_id"].(string)] = e["parent_tool_id"]
		}
		if e["content"] == "Counting." {
			assert.Equal(t, "invoke_agent__1", e["parent_tool_id"])
		}
	}
	assert.Equal(t, map[string]any{"invoke_agent__1": nil, "sub#0": "invoke_agent__1"}, parents)
	assert.Contains(t, string(out), `"model":"gemini-2.5-pro"`, "the model is the session's, not the subagent's")
}

// The cwd comes from the session context Gemini CLI puts first in a chat,
// in the wording of each version, when nothing names it before.
func TestCWDFromSessionContext(t *testing.T) {
	tests := []struct {
		name, context, want string
	}{
		{"workspace directories (0.61)", `This is the Gemini CLI.\n- **Workspace Directories:**\n  - /home/dev/proj\n  - /home/dev/lib\n- **Directory Structure:**\n`, "/home/dev/proj"},
		{"working directory (0.2x)", `This is the Gemini CLI. We are setting up the context for our chat.\nMy operating system is: linux\nI'm currently working in the directory: /srv/app\nShowing up to 200 items`, "/srv/app"},
		{"several working directories (0.2x)", `This is the Gemini CLI.\nI'm currently working in the following directories:\n  - /a/one\n  - /a/two\nHere is the folder structure`, "/a/one"},
		{"no folder named", `This is the Gemini CLI.\nMy operating system is: linux\n`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content := `[{"text":"<session_context>\n` + tt.context + `</session_context>"}]`
			chat := `{"sessionId":"s","projectHash":"p","startTime":"2026-03-01T10:00:00.000Z","kind":"main"}
{"$set":{"messages":[{"id":"c","timestamp":"2026-03-01T10:00:00.000Z","type":"user","content":` + content + `}]}}
{"id":"u","timestamp":"2026-03-01T10:00:01.000Z","type":"user","content":[{"text":"hi"}]}
{"id":"g","timestamp":"2026-03-01T10:00:02.000Z","type":"gemini","content":"hello","model":"gemini-2.5-pro"}
`
			path := filepath.Join(t.TempDir(), "session-cwd.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(chat), 0o644))
			// --cwd unset: the dialog's cwd is the stream's, else the
			// working directory's (its fallback, not this test's).
			out, stderr := convertFile(t, path, dialog.Options{Saved: true})
			assert.Empty(t, stderr)
			cwd := decode(t, out)[0]["data"].(map[string]any)["cwd"]
			if tt.want == "" {
				assert.NotContains(t, []any{"/home/dev/proj", "/srv/app", "/a/one"}, cwd)
				return
			}
			assert.Equal(t, tt.want, cwd)
		})
	}
}

func TestDetect(t *testing.T) {
	adaptertest.Detects(t, geminisession.Detect, map[string]adapter.Claim{
		`{"sessionId":"s","projectHash":"p","startTime":"2026-01-01T00:00:00Z","kind":"main"}`:                  adapter.Yes,
		`{"sessionId":"s","projectHash":"p","startTime":"2026-01-01T00:00:00Z","messages":[]}`:                  adapter.Yes,
		`{"type":"gemini-session-document-cut","messages":2,"inMessages":true,"offset":10,"lost":5,"cut":true}`: adapter.Yes,
		`{"id":"g","timestamp":"2026-01-01T00:00:00Z","type":"gemini","content":"x"}`:                           adapter.Yes,
		`{"$rewindTo":"g"}`: adapter.Yes,
		`{"$set":{"lastUpdated":"2026-01-01T00:00:00Z"}}`:                           adapter.Maybe,
		`{"id":"u","timestamp":"2026-01-01T00:00:00Z","type":"user","content":"x"}`: adapter.No,
		`{"sessionId":"s","messageId":0,"type":"user","message":"hi"}`:              adapter.No,
	})
}

// TestMaxLineReachesTheChat: --max-line holds a chat file's lines: a
// longer one is reported and not held; with no bound it converts.
func TestMaxLineReachesTheChat(t *testing.T) {
	long := strings.Repeat("x", 5000)
	chat := `{"sessionId":"s","projectHash":"h","startTime":"2026-03-01T11:00:00.000Z","lastUpdated":"2026-03-01T11:00:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-03-01T11:00:01.000Z","type":"user","content":[{"text":"say it"}]}
{"id":"g1","timestamp":"2026-03-01T11:00:02.000Z","type":"gemini","content":"` + long + `","model":"gemini-2.5-pro"}
{"id":"g2","timestamp":"2026-03-01T11:00:03.000Z","type":"gemini","content":"done","model":"gemini-2.5-pro"}
`
	path := filepath.Join(t.TempDir(), "session-1.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(chat), 0o644))
	ins, ok, err := geminisession.Inputs(path)
	require.NoError(t, err)
	require.True(t, ok)
	require.NotNil(t, ins[0].OpenLimited)
	conv := func(maxLine int64) (string, string) {
		r, err := ins[0].OpenLimited(maxLine)
		require.NoError(t, err)
		defer r.Close()
		var out, diag bytes.Buffer
		c := dispatch.New(&out, dialog.Options{}, dispatch.Options{Formats: []adapter.Format{geminisession.Format()}, Forced: true, Stderr: &diag, MaxLine: maxLine})
		require.NoError(t, c.Feed(r, path))
		require.NoError(t, c.Close(nil))
		return out.String(), diag.String()
	}
	out, diag := conv(1000)
	assert.NotContains(t, out, long)
	assert.Contains(t, out, `"done"`)
	assert.Contains(t, diag, "skipped")
	out, diag = conv(-1)
	assert.Contains(t, out, long)
	assert.Empty(t, diag)
}

// A chat's stream counts the bytes of its files (adapter.ReadCounter, for
// the file budget's pace): the chat's from the start, its subagents'
// folder as soon as the header names it, before the stream returns its
// first record; read whole, every byte of every file, each once.
func TestOpenSessionCountsItsFiles(t *testing.T) {
	dir := t.TempDir()
	session := `{"sessionId":"sess-1","projectHash":"p","startTime":"2026-03-01T14:00:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-03-01T14:00:01.000Z","type":"user","content":[{"text":"delegate it"}]}
{"id":"g1","timestamp":"2026-03-01T14:00:02.000Z","type":"gemini","content":"","model":"gemini-2.5-pro","toolCalls":[{"id":"invoke_agent__1","name":"invoke_agent","agentId":"agent-7","args":{"prompt":"count"},"status":"success"}]}
`
	sub := `{"sessionId":"agent-7","projectHash":"p","startTime":"2026-03-01T14:00:02.100Z","kind":"subagent"}
{"id":"s1","timestamp":"2026-03-01T14:00:02.200Z","type":"gemini","content":"Counting.","model":"gemini-2.5-flash"}
`
	path := filepath.Join(dir, "session-1.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(session), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sess-1"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sess-1", "agent-7.jsonl"), []byte(sub), 0o644))
	// Not this session's: another session's folder.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sess-2"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sess-2", "agent-8.jsonl"), []byte(sub), 0o644))
	both := int64(len(session) + len(sub))

	r, err := geminisession.OpenSession(path)
	require.NoError(t, err)
	defer r.Close()
	rc, ok := r.(adapter.ReadCounter)
	require.True(t, ok, "%T is no adapter.ReadCounter", r)
	_, size, _ := rc.ReadCount()
	assert.Equal(t, int64(len(session)), size, "the chat, before it is read")

	br := bufio.NewReaderSize(r, 16)
	_, err = br.ReadBytes('\n')
	require.NoError(t, err)
	_, size, _ = rc.ReadCount()
	assert.Equal(t, both, size, "the subagent's chat, from the header on")

	_, err = io.ReadAll(br)
	require.NoError(t, err)
	read, size, ahead := rc.ReadCount()
	assert.Equal(t, both, read)
	assert.Equal(t, both, size)
	assert.Equal(t, both, ahead, "small files: each may be held whole")
}
