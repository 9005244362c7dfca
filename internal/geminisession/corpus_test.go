package geminisession_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/geminisession"
	"github.com/ssebench/sse-dialog-convert/internal/testskip"
)

// corpusDir holds real chat files of the lab's Gemini CLI runs (not in
// the repo).
const corpusDir = "../../../shared/corpus/gemini-session"

// TestCorpus converts every real chat folder as the command does (Inputs,
// subagents spliced) and compares the dialog with what an independent
// reading of the files with encoding/json says.
func TestCorpus(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		testskip.Missingf(t, "no chat files in %s (the shared corpus is not checked out beside the repo)", corpusDir)
	}
	ins, ok, err := geminisession.Inputs(corpusDir)
	require.NoError(t, err)
	require.True(t, ok)
	require.NotEmpty(t, ins)
	for _, in := range ins {
		require.True(t, strings.HasPrefix(filepath.Base(in.Name), "session-"), "a subagent's chat listed as a session: %s", in.Name)
		t.Run(filepath.Base(filepath.Dir(in.Name)), func(t *testing.T) {
			want := expectFrom(t, in.Name)
			got := convert(t, in)
			check(t, got, want)
		})
	}
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
	} `json:"data"`
}

func convert(t *testing.T, in adapter.Input) []entry {
	t.Helper()
	r, err := in.Open()
	require.NoError(t, err)
	defer r.Close()
	var out, stderr bytes.Buffer
	c := dispatch.New(&out, dialog.Options{Clock: dialog.FixedClock(time.Unix(0, 0)), Saved: true},
		dispatch.Options{Stderr: &stderr, Formats: []adapter.Format{geminisession.Format()}, Forced: true})
	require.NoError(t, c.Feed(r, in.Name))
	require.NoError(t, c.Close(nil))
	assert.Empty(t, stderr.String(), "the pipeline reported bad input")

	var findings []string
	_, err = dialog.Validate(bytes.NewReader(out.Bytes()), func(f dialog.Finding) { findings = append(findings, f.String()) })
	require.NoError(t, err)
	require.Empty(t, findings, "invalid dialog")

	var es []entry
	dec := json.NewDecoder(&out)
	for {
		var e entry
		if err := dec.Decode(&e); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		es = append(es, e)
	}
	return es
}

// expected is what the files say, read independently.
type expected struct {
	model   string
	prompts []string
	// calls: id -> "success" or "error"; nested: the ids of subagents'
	// calls, by the id of the call that ran them.
	calls  map[string]string
	nested map[string]string
	in     int64
	out    int64
	turns  int
}

// record is a line of a chat file, as encoding/json reads it.
type record struct {
	ID        string          `json:"id"`
	SessionID string          `json:"sessionId"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Model     string          `json:"model"`
	Tokens    *struct {
		Input, Output, Thoughts, Tool int64
	} `json:"tokens"`
	ToolCalls []struct {
		ID      string `json:"id"`
		Status  string `json:"status"`
		AgentID string `json:"agentId"`
	} `json:"toolCalls"`
}

func readRecords(t *testing.T, path string) []record {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var rs []record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r record
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		rs = append(rs, r)
	}
	require.NoError(t, sc.Err())
	return rs
}

func expectFrom(t *testing.T, path string) expected {
	t.Helper()
	w := expected{calls: map[string]string{}, nested: map[string]string{}}
	var sessionID string
	seenTokens := map[string]bool{}
	seenMsg := map[string]bool{}
	turn := map[string]bool{}
	var read func(path, parent string)
	read = func(path, parent string) {
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
				if json.Unmarshal(r.Content, &parts) == nil && len(parts) > 0 && parts[0].Text != nil &&
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
				for _, c := range r.ToolCalls {
					st := "error"
					if c.Status == "success" {
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
	var prompts []string
	starts := map[string]int{}
	results := map[string]string{}
	parents := map[string]string{}
	for _, e := range es {
		switch e.Type {
		case "prompt":
			prompts = append(prompts, e.Content)
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
