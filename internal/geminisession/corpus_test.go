package geminisession_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/geminisession"
)

// corpusDir holds real chat files of the lab's Gemini CLI runs (not in
// the repo).
const corpusDir = "../../../shared/corpus/gemini-session"

// TestCorpus converts every real chat folder as the command does (Inputs,
// subagents spliced) and compares the dialog with what an independent
// reading of the files with encoding/json says.
func TestCorpus(t *testing.T) {
	ins := adaptertest.Sessions(t, corpusDir, geminisession.Inputs)
	require.NotEmpty(t, ins)
	documents := 0
	for _, in := range ins {
		require.Contains(t, filepath.Base(in.Name), "session-", "a subagent's chat listed as a session: %s", in.Name)
		if strings.HasSuffix(in.Name, ".json") {
			documents++
		}
		t.Run(chatName(in), func(t *testing.T) {
			want := expectFrom(t, in.Name)
			got := adaptertest.Decode[entry](t, source().Input(t, in).Out)
			check(t, got, want)
		})
	}
	docs, err := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	require.NoError(t, err)
	assert.Equal(t, len(docs), documents, "every chat of the JSON-document form in the corpus is listed")
}

// entry is the part of a dialog entry the checks read.
type entry struct {
	Type    string           `json:"type"`
	ToolID  string           `json:"tool_id"`
	Status  string           `json:"status"`
	Content string           `json:"content"`
	Parent  string           `json:"parent_tool_id"`
	Turns   int              `json:"turns"`
	Total   map[string]int64 `json:"total_tokens"`
	Data    struct {
		Model string `json:"model"`
		CWD   string `json:"cwd"`
	} `json:"data"`
}

// chatName names a chat's subtest: its folder and file.
func chatName(in adapter.Input) string {
	return filepath.Base(filepath.Dir(in.Name)) + "/" + filepath.Base(in.Name)
}

// source converts a chat as the command does an input of Inputs.
func source() adaptertest.Source {
	return adaptertest.Source{Format: geminisession.Format(), Forced: true, Options: dialog.Options{Clock: dialog.FixedClock(time.Unix(0, 0)), Saved: true}}
}

// expected is what the files say, read independently.
type expected struct {
	model   string
	cwd     string // the first workspace folder the session context names
	prompts []string
	// calls: id -> "success" or "error"; nested: the ids of subagents'
	// calls, by the id of the call that ran them.
	calls  map[string]string
	nested map[string]string
	in     int64
	out    int64
	turns  int
	// texts and thoughts: the model messages (by id) with text, and with
	// thoughts.
	texts, thoughts map[string]bool
}

// record is a line of a chat file, as encoding/json reads it.
type record struct {
	ID        string            `json:"id"`
	SessionID string            `json:"sessionId"`
	Thoughts  []json.RawMessage `json:"thoughts"`
	Type      string            `json:"type"`
	Content   json.RawMessage   `json:"content"`
	Model     string            `json:"model"`
	Tokens    *struct {
		Input, Output, Thoughts, Tool int64
	} `json:"tokens"`
	ToolCalls []struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Status  string `json:"status"`
		AgentID string `json:"agentId"`
		Result  []struct {
			FunctionResponse struct {
				Response struct {
					Output string `json:"output"`
				} `json:"response"`
			} `json:"functionResponse"`
		} `json:"result"`
	} `json:"toolCalls"`
}

// exitTrailer is the end of a shell call's output that states a failing
// exit code: an "Exit Code: N" line followed only by the lines the shell
// tool writes after it.
var exitTrailer = regexp.MustCompile(`(?:^|\n)Exit Code: (-?\d+)(?:\n(?:Signal|Background PIDs|Process Group PGID): [^\n]*)*(?:\n</untrusted_context>)?\n?$`)

// shellFailed reports whether a shell call's output states an exit code
// other than 0.
func shellFailed(name string, outputs ...string) bool {
	if name != "run_shell_command" {
		return false
	}
	for _, o := range outputs {
		if m := exitTrailer.FindStringSubmatch(o); m != nil && m[1] != "0" {
			return true
		}
	}
	return false
}

// readRecords reads a chat file's records: its lines, or the messages of
// a JSON document (before 0.39), after the document's own members.
func readRecords(t *testing.T, path string) []record {
	t.Helper()
	if strings.HasSuffix(path, ".json") {
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		var doc struct {
			SessionID string   `json:"sessionId"`
			Messages  []record `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(raw, &doc))
		require.NotEmpty(t, doc.Messages)
		return append([]record{{SessionID: doc.SessionID}}, doc.Messages...)
	}
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	var rs []record
	for line := range bytes.Lines(src) {
		var r record
		require.NoError(t, json.Unmarshal(line, &r))
		rs = append(rs, r)
	}
	return rs
}

// modelText is a model message's text: a string, or its parts' texts
// that are no thoughts, joined.
func modelText(content json.RawMessage) (string, error) {
	var parts []struct {
		Text    string `json:"text"`
		Thought bool   `json:"thought"`
	}
	if json.Unmarshal(content, &parts) != nil {
		var s string
		err := json.Unmarshal(content, &s)
		return s, err
	}
	var text string
	for _, p := range parts {
		if !p.Thought {
			text += p.Text
		}
	}
	return text, nil
}

// workspace finds the first workspace folder in a session context's
// text, as the file holds it (JSON-escaped).
var workspace = regexp.MustCompile(`<session_context>.*?Workspace Directories:\*\*\\n +- ([^\\"]+)\\n`)

func readAll(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func expectFrom(t *testing.T, path string) expected {
	t.Helper()
	w := expected{calls: map[string]string{}, nested: map[string]string{}, texts: map[string]bool{}, thoughts: map[string]bool{}}
	var sessionID string
	seenTokens := map[string]bool{}
	seenMsg := map[string]bool{}
	turn := map[string]bool{}
	var read func(path, parent string)
	read = func(path, parent string) {
		if m := workspace.FindSubmatch(readAll(t, path)); m != nil && w.cwd == "" && parent == "" {
			w.cwd = string(m[1])
		}
		for _, r := range readRecords(t, path) {
			if r.SessionID != "" && sessionID == "" {
				sessionID = r.SessionID
			}
			switch r.Type {
			case "user":
				if parent != "" || seenMsg[r.ID] {
					break
				}
				var parts []struct {
					Text *string `json:"text"`
				}
				var text string // content is a string (documents), or parts
				if json.Unmarshal(r.Content, &text) == nil && text != "" {
					w.prompts = append(w.prompts, text)
				} else if json.Unmarshal(r.Content, &parts) == nil && len(parts) > 0 && parts[0].Text != nil &&
					!strings.HasPrefix(*parts[0].Text, "<session_context>") {
					w.prompts = append(w.prompts, *parts[0].Text)
				}
			case "gemini":
				if w.model == "" && parent == "" {
					w.model = r.Model
				}
				if r.Tokens != nil && !seenTokens[r.ID] {
					seenTokens[r.ID] = true
					w.in += r.Tokens.Input + r.Tokens.Tool
					w.out += r.Tokens.Output + r.Tokens.Thoughts
				}
				if parent == "" {
					turn[r.ID] = true
				}
				text, err := modelText(r.Content)
				require.NoError(t, err)
				if text != "" {
					w.texts[r.ID] = true
				}
				if len(r.Thoughts) > 0 {
					w.thoughts[r.ID] = true
				}
				for _, c := range r.ToolCalls {
					st := "error"
					var outputs []string
					for _, r := range c.Result {
						outputs = append(outputs, r.FunctionResponse.Response.Output)
					}
					if c.Status == "success" && !shellFailed(c.Name, outputs...) {
						st = "success"
					}
					w.calls[c.ID] = st
					if parent != "" {
						w.nested[c.ID] = parent
					}
					sub := filepath.Join(filepath.Dir(path), sessionID, c.AgentID+".jsonl")
					if c.AgentID != "" && parent == "" {
						if _, err := os.Stat(sub); err == nil {
							read(sub, c.ID)
						}
					}
				}
			}
			if r.ID != "" {
				seenMsg[r.ID] = true
			}
		}
	}
	read(path, "")
	w.turns = len(turn)
	return w
}

func check(t *testing.T, es []entry, w expected) {
	t.Helper()
	require.NotEmpty(t, es)
	assert.Equal(t, w.model, es[0].Data.Model, "init's model")
	if w.cwd != "" {
		assert.Equal(t, w.cwd, es[0].Data.CWD, "init's cwd")
	}
	var prompts []string
	var texts, thoughts int
	starts := map[string]int{}
	results := map[string]string{}
	parents := map[string]string{}
	for _, e := range es {
		switch e.Type {
		case "prompt":
			prompts = append(prompts, e.Content)
		case "message":
			if !strings.HasPrefix(e.Content, "⚠ ") {
				texts++
			}
		case "thinking":
			thoughts++
		case "tool":
			if e.Status == "running" {
				starts[e.ToolID]++
				if e.Parent != "" {
					parents[e.ToolID] = e.Parent
				}
			} else {
				_, dup := results[e.ToolID]
				assert.False(t, dup, "two results for %s", e.ToolID)
				results[e.ToolID] = e.Status
			}
		}
	}
	assert.Equal(t, w.prompts, prompts, "prompts")
	assert.Equal(t, len(w.texts), texts, "model messages with text: one message entry each")
	assert.Equal(t, len(w.thoughts), thoughts, "model messages with thoughts: one thinking entry each")
	assert.Len(t, starts, len(w.calls), "tool calls")
	for id, st := range w.calls {
		assert.Equal(t, 1, starts[id], "starts of %s", id)
		assert.Equal(t, st, results[id], "status of %s", id)
	}
	assert.Equal(t, w.nested, parents, "subagents' calls and their parents")
	last := es[len(es)-1]
	assert.Equal(t, "complete", last.Type)
	assert.Equal(t, "success", last.Status, "every lab capture ends with an answer")
	assert.Equal(t, w.turns, last.Turns, "turns")
	assert.Equal(t, w.in, last.Total["in"], "tokens in")
	assert.Equal(t, w.out, last.Total["out"], "tokens out")
}
