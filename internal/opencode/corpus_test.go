package opencode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// corpusDir holds real captures written by other people (not in the repo);
// labDir the lab's own recordings (run lines and serve event buses), made
// on this machine and kept out of the repo.
const (
	corpusDir = "../../../shared/corpus/opencode"
	labDir    = "../../../scratch/lab/captures"
)

// TestCorpus converts every `opencode run --format json` capture through
// the real pipeline (auto-detection among every format) and compares the
// dialog with what an independent reading of the capture says.
func TestCorpus(t *testing.T) {
	source().Oracle(t, adaptertest.Captures(t, corpusDir, "*.jsonl"), checkRun)
}

// TestLabCaptures does the same over the lab's recordings, when this
// machine has them: run lines, and the serve event bus as curl -N
// recorded it (the /global/event recordings wrap every event and are not
// this format).
func TestLabCaptures(t *testing.T) {
	runs, _ := filepath.Glob(filepath.Join(labDir, "opencode*", "*.jsonl"))
	buses, _ := filepath.Glob(filepath.Join(labDir, "opencode*", "*.sse"))
	if len(runs)+len(buses) == 0 {
		t.Skipf("no lab recordings in %s (made by the lab on the machine that runs it, never committed)", labDir)
	}
	for _, f := range runs {
		if strings.HasSuffix(f, ".requests.jsonl") { // the mock's log of what it was asked
			continue
		}
		t.Run("run/"+filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(t *testing.T) { convertFile(t, f, checkRun) })
	}
	for _, f := range buses {
		if strings.HasSuffix(f, ".global.sse") {
			continue
		}
		t.Run("bus/"+filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(t *testing.T) { convertFile(t, f, checkBus) })
	}
}

// source converts a capture as the command converts a file (detection
// among all formats is internal/registry's TestDetectionIsExclusive).
func source() adaptertest.Source {
	return adaptertest.Source{Format: Format(), Options: dialog.Options{Clock: dialog.FixedClock(time.Unix(0, 0)), DefaultCWD: "/w"}}
}

// convertFile converts the capture at path, as source does, and checks it.
func convertFile(t *testing.T, path string, check func(*testing.T, adaptertest.Capture, adaptertest.Dialog)) {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	check(t, adaptertest.Capture{Path: path, Src: src}, source().Convert(t, bytes.NewReader(src), path))
}

// The source, as encoding/json reads it.
type srcPart struct {
	ID        string  `json:"id"`
	SessionID string  `json:"sessionID"`
	MessageID string  `json:"messageID"`
	Type      string  `json:"type"`
	Text      *string `json:"text"`
	Synthetic bool    `json:"synthetic"`
	Tool      string  `json:"tool"`
	CallID    string  `json:"callID"`
	Time      struct {
		End *float64 `json:"end"`
	} `json:"time"`
	State *struct {
		Status   string         `json:"status"`
		Output   any            `json:"output"`
		Error    any            `json:"error"`
		Metadata map[string]any `json:"metadata"`
	} `json:"state"`
	Reason *string `json:"reason"`
	Tokens *struct {
		Input     int64 `json:"input"`
		Output    int64 `json:"output"`
		Reasoning int64 `json:"reasoning"`
		Cache     struct {
			Read  int64 `json:"read"`
			Write int64 `json:"write"`
		} `json:"cache"`
	} `json:"tokens"`
	Cost *float64 `json:"cost"`
}

type srcError struct {
	Name string `json:"name"`
	Data struct {
		Message string `json:"message"`
	} `json:"data"`
}

func (e srcError) text() string {
	switch {
	case e.Name != "" && e.Data.Message != "":
		return e.Name + ": " + e.Data.Message
	case e.Name != "":
		return e.Name
	}
	return e.Data.Message
}

// expected is what a capture must give.
type expected struct {
	messages, thinking []string
	parents            map[string]string // message text → parent_tool_id, for subagents' texts
	tools              []wantTool
	tokens             map[string]int64
	cost               float64
	hasCost            bool
	warnings           int
	status, message    string // status "" for none: incomplete
	prompt             string
}

type wantTool struct {
	id, name string
	isError  bool
	output   string
}

// toolWant reads a finished tool part by the rule: an error when
// its status is error, or when a shell tool's metadata.exit is there and
// not the integer 0.
func toolWant(p *srcPart) wantTool {
	w := wantTool{id: p.CallID, name: p.Tool}
	if p.State.Status == "error" {
		w.isError = true
		return w
	}
	if code, ok := p.State.Metadata["exit"]; ok {
		if f, isNum := code.(float64); !isNum || f != 0 {
			w.isError = true
		}
	}
	w.output, _ = p.State.Output.(string)
	return w
}

func (w *expected) addTokens(p *srcPart) {
	if w.tokens == nil {
		w.tokens = map[string]int64{"in": 0, "out": 0}
	}
	tk := p.Tokens
	if tk == nil {
		return
	}
	w.tokens["in"] += tk.Input + tk.Cache.Read + tk.Cache.Write
	w.tokens["out"] += tk.Output + tk.Reasoning
	for k, v := range map[string]int64{"cache_read": tk.Cache.Read, "cache_write": tk.Cache.Write, "reasoning": tk.Reasoning} {
		if v > 0 {
			w.tokens[k] += v
		}
	}
	if p.Cost != nil {
		w.cost += *p.Cost
		w.hasCost = true
	}
}

// expectRun reads run lines: every text and reasoning line's text, every
// tool_use line, the step totals, and the ending (a step whose reason is
// not tool-calls, or done, ends the run; an error ends it unless anything
// but done follows, and is then a warning).
func expectRun(t *testing.T, src []byte) expected {
	var w expected
	pending := ""
	for line := range bytes.Lines(src) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev struct {
			Type  string   `json:"type"`
			Part  *srcPart `json:"part"`
			Error srcError `json:"error"`
		}
		require.NoError(t, json.Unmarshal(line, &ev))
		switch ev.Type {
		case "error":
			if pending != "" {
				w.warnings++
			}
			pending = ev.Error.text()
			w.status = ""
			continue
		case "done":
			if pending == "" {
				w.status = "success"
			}
			continue
		}
		if pending != "" {
			w.warnings++
			pending = ""
		}
		w.status = ""
		p := ev.Part
		switch ev.Type {
		case "text":
			if p.Text != nil && *p.Text != "" {
				w.messages = append(w.messages, *p.Text)
			}
		case "reasoning":
			if p.Text != nil && *p.Text != "" {
				w.thinking = append(w.thinking, *p.Text)
			}
		case "tool_use":
			w.tools = append(w.tools, toolWant(p))
		case "step_finish":
			w.addTokens(p)
			if p.Reason == nil || (*p.Reason != "tool-calls" && *p.Reason != "unknown") {
				w.status = "success"
			}
		}
	}
	if pending != "" {
		w.status, w.message = "error", pending
	}
	if w.tokens == nil {
		w.tokens = map[string]int64{"in": 0, "out": 0}
	}
	return w
}

// busEvents reads a recorded event bus: the payload of each data: line.
func busEvents(t *testing.T, src []byte) []json.RawMessage {
	var evs []json.RawMessage
	for l := range bytes.Lines(src) {
		line := bytes.TrimSpace(l)
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			evs = append(evs, json.RawMessage(bytes.Clone(bytes.TrimSpace(rest))))
		}
	}
	return evs
}

// expectBus reads an event bus: the first session is the root, sessions
// created with a parentID are subagents (their task call named by the
// call's metadata.sessionId); the final text of every model text part (a
// user message's are the prompt, or opencode's own when synthetic);
// every tool call by its last state; each step-finish once; the root's
// idle ends the run, and its session.error is the failure unless the
// root's model works after it.
func expectBus(t *testing.T, src []byte) expected {
	w := expected{parents: map[string]string{}}
	root := ""
	children := map[string]bool{}
	taskOf := map[string]string{} // child session → task call id
	user := map[string]bool{}
	written := map[string]bool{}
	tools := map[string]int{} // call id → index in w.tools
	steps := map[string]bool{}
	pending, active := "", false
	for _, raw := range busEvents(t, src) {
		var ev struct {
			Type       string `json:"type"`
			Properties struct {
				SessionID string   `json:"sessionID"`
				Part      *srcPart `json:"part"`
				Info      struct {
					ID        string `json:"id"`
					ParentID  string `json:"parentID"`
					Role      string `json:"role"`
					SessionID string `json:"sessionID"`
				} `json:"info"`
				Status struct {
					Type string `json:"type"`
				} `json:"status"`
				Error srcError `json:"error"`
			} `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(raw, &ev))
		pr := ev.Properties
		s := pr.SessionID
		if ev.Type == "session.created" && pr.Info.ParentID != "" {
			children[pr.Info.ID] = true
			continue
		}
		if root == "" && s != "" && !children[s] {
			root = s
		}
		switch ev.Type {
		case "message.updated":
			if pr.Info.Role == "user" {
				user[pr.Info.ID] = true
			}
		case "session.status", "session.idle":
			switch {
			case s != root:
			case ev.Type == "session.idle" || pr.Status.Type == "idle":
				if active {
					active = false
					if pending == "" {
						w.status = "success"
					} else {
						w.status, w.message = "error", pending
					}
				}
			case pr.Status.Type == "busy":
				active = true
			}
		case "session.error":
			if s == "" || s == root {
				if pending != "" {
					w.warnings++
				}
				pending = pr.Error.text()
			} else {
				w.warnings++
			}
		case "message.part.updated":
			p := pr.Part
			if s == root && !user[p.MessageID] {
				active = true
				if pending != "" {
					w.warnings++
					pending = ""
				}
				w.status = ""
			}
			if user[p.MessageID] {
				if p.Type == "text" && p.Text != nil && s == root && !p.Synthetic && w.prompt == "" {
					w.prompt = *p.Text
				}
				if !p.Synthetic {
					continue
				}
			}
			switch p.Type {
			case "text", "reasoning":
				if p.Time.End == nil || written[p.ID] || p.Text == nil || *p.Text == "" {
					continue
				}
				written[p.ID] = true
				if p.Type == "text" {
					w.messages = append(w.messages, *p.Text)
					if s != root {
						w.parents[*p.Text] = taskOf[s]
					}
				} else {
					w.thinking = append(w.thinking, *p.Text)
				}
			case "tool":
				if child, ok := p.State.Metadata["sessionId"].(string); ok {
					taskOf[child] = p.CallID
				}
				if p.State.Status != "completed" && p.State.Status != "error" {
					continue
				}
				if _, seen := tools[p.CallID]; !seen {
					tools[p.CallID] = len(w.tools)
					w.tools = append(w.tools, toolWant(p))
				}
			case "step-finish":
				if !steps[p.ID] {
					steps[p.ID] = true
					w.addTokens(p)
				}
			}
		}
	}
	if w.tokens == nil {
		w.tokens = map[string]int64{"in": 0, "out": 0}
	}
	return w
}

func checkRun(t *testing.T, c adaptertest.Capture, d adaptertest.Dialog) {
	checkDialog(t, d, expectRun(t, c.Src))
}

func checkBus(t *testing.T, c adaptertest.Capture, d adaptertest.Dialog) {
	w := expectBus(t, c.Src)
	checkDialog(t, d, w)
	if w.prompt != "" {
		require.Equal(t, "prompt", d.Entries[1].Str("type"))
		assert.Equal(t, w.prompt, d.Entries[1].Str("content"))
	}
	for _, e := range d.Of("message") {
		assert.Equal(t, w.parents[e.Str("content")], e.Str("parent_tool_id"), "parent of %q", e.Str("content"))
	}
	// Every entry of a subagent names a call of the dialog.
	ids := map[string]bool{}
	for _, e := range d.Starts() {
		ids[e.Str("tool_id")] = true
	}
	for _, e := range d.Entries {
		if p := e.Str("parent_tool_id"); p != "" {
			assert.True(t, ids[p], "parent_tool_id %s names no call", p)
		}
	}
	model := d.Entries[0]["data"].(map[string]any)["model"]
	assert.NotEqual(t, "unknown", model, "the bus names the model")
}

func checkDialog(t *testing.T, d adaptertest.Dialog, w expected) {
	t.Helper()
	assert.Equal(t, "opencode", d.Entries[0]["data"].(map[string]any)["agent"])
	assert.Equal(t, w.messages, d.Messages(), "every text part once, in order")
	assert.Equal(t, w.thinking, d.Thinking(), "every reasoning part once, in order")
	assert.Len(t, d.Warnings(), w.warnings, "warnings")
	assert.EqualValues(t, w.warnings, d.Complete.Num("warnings"))

	starts, results := d.Starts(), d.Results()
	require.Len(t, starts, len(w.tools), "one start per tool call")
	require.Len(t, results, len(w.tools), "one result per tool call")
	byID := map[string]adaptertest.Entry{}
	for _, r := range results {
		byID[r.Str("tool_id")] = r
	}
	for _, want := range w.tools {
		r, ok := byID[want.id]
		if !assert.True(t, ok, "no result for %s", want.id) {
			continue
		}
		assert.Equal(t, want.name, r.Str("name"))
		status := "success"
		if want.isError {
			status = "error"
		}
		assert.Equal(t, status, r.Str("status"), "status of %s %s", want.name, want.id)
		if want.output != "" && len(want.output) < dialog.DefaultMaxText {
			assert.Contains(t, r.Text(), want.output, "output of %s", want.id)
		}
	}

	assert.Equal(t, w.tokens, d.Tokens(), "totals: the sum of the steps")
	if w.hasCost {
		assert.InDelta(t, w.cost, d.Complete["cost_usd"], 1e-9)
	} else {
		assert.NotContains(t, d.Complete, "cost_usd")
	}

	d.CheckEnding(t, w.status, w.message)
}

// The format reads, and reads the model from opencode's command line.
func TestFormat(t *testing.T) {
	f := Format()
	require.NotNil(t, f.New)
	require.NotNil(t, f.ModelFromArgs)
	assert.Equal(t, "mock/mock-model", f.ModelFromArgs([]string{"run", "-m", "mock/mock-model", "x"}))
	assert.Equal(t, []string{"opencode"}, f.Commands)
}
