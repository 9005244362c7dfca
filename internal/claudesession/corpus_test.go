package claudesession_test

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

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/claudesession"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
)

// corpusDir holds real session files written by other people and by the
// lab (not in the repo).
const corpusDir = "../../../shared/corpus/claude-session"

// TestCorpus reads every session of the corpus folder through Inputs (the
// two-pass way, subagents' files merged) and every session file alone
// through detection (one pass), and compares each dialog with an
// independent reading of the files with encoding/json. The corpus has no
// rewound branch, so both ways hold the whole file.
func TestCorpus(t *testing.T) {
	ins := adaptertest.Sessions(t, corpusDir, claudesession.Inputs)
	require.GreaterOrEqual(t, len(ins), 10, "sessions in the corpus")
	merged, detected := sources(t)
	for _, in := range ins {
		t.Run(sessionName(in), func(t *testing.T) {
			agents := agentFilesOf(t, in.Name)
			t.Run("merged", func(t *testing.T) {
				got := adaptertest.Decode[entry](t, merged.Input(t, in).Out)
				check(t, got, expectFrom(t, in.Name, agents))
			})
			t.Run("one pass", func(t *testing.T) {
				f, err := os.Open(in.Name)
				require.NoError(t, err)
				defer f.Close()
				got := adaptertest.Decode[entry](t, detected.Convert(t, f, "session").Out)
				want := expectFrom(t, in.Name, nil)
				if len(agents) > 0 {
					want.ownTotal = nil // Claude Code's figure counts the subagents' files, not read here
				}
				check(t, got, want)
			})
		})
	}
}

// sessionName names a session's subtest: its path in the corpus folder.
func sessionName(in adapter.Input) string {
	rel, _ := filepath.Rel(corpusDir, in.Name)
	return rel
}

// sources convert a session as the command does: forced to this format
// (the input of Inputs, subagents merged), or detected among every format.
func sources(t *testing.T) (forced, detected adaptertest.Source) {
	format, ok := registry.Lookup("claude-session")
	require.True(t, ok)
	options := dialog.Options{Clock: dialog.FixedClock(time.Unix(0, 0)), Saved: true}
	return adaptertest.Source{Format: format, Forced: true, Options: options},
		adaptertest.Source{Format: format, Among: registry.All(), Options: options}
}

type entry struct {
	Type    string           `json:"type"`
	TS      string           `json:"ts"`
	ToolID  string           `json:"tool_id"`
	Status  string           `json:"status"`
	Content string           `json:"content"`
	Parent  string           `json:"parent_tool_id"`
	Reason  string           `json:"reason"`
	Total   map[string]int64 `json:"total_tokens"`
}

// agentFilesOf finds a session's subagent files the way the issue
// describes the layouts: <session>/subagents/agent-*.jsonl, and
// agent-*.jsonl beside the session naming the same session.
func agentFilesOf(t *testing.T, session string) []string {
	dir := filepath.Dir(session)
	stem := strings.TrimSuffix(filepath.Base(session), ".jsonl")
	nested, _ := filepath.Glob(filepath.Join(dir, stem, "subagents", "agent-*.jsonl"))
	beside, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	sid := ""
	for _, l := range lines(t, session) {
		if l.SessionID != "" {
			sid = l.SessionID
			break
		}
	}
	files := nested
	for _, b := range beside {
		for _, l := range lines(t, b) {
			if l.SessionID != "" {
				if l.SessionID == sid {
					files = append(files, b)
				}
				break
			}
		}
	}
	return files
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
}

type sessionLine struct {
	Type           string  `json:"type"`
	UUID           string  `json:"uuid"`
	ParentUUID     *string `json:"parentUuid"`
	SessionID      string  `json:"sessionId"`
	AgentID        string  `json:"agentId"`
	IsSidechain    bool    `json:"isSidechain"`
	IsMeta         bool    `json:"isMeta"`
	CompactSummary bool    `json:"isCompactSummary"`
	TranscriptOnly bool    `json:"isVisibleInTranscriptOnly"`
	Timestamp      string  `json:"timestamp"`
	Error          any     `json:"error"`
	Message        struct {
		ID         string          `json:"id"`
		Model      string          `json:"model"`
		StopReason string          `json:"stop_reason"`
		Content    json.RawMessage `json:"content"`
		Usage      map[string]any  `json:"usage"`
	} `json:"message"`
	ToolUseResult json.RawMessage `json:"toolUseResult"`
	// progress lines (2.1.x): a subagent's message copied into the
	// session file, under its call.
	Data struct {
		Type    string          `json:"type"`
		Message json.RawMessage `json:"message"`
	} `json:"data"`
	ParentToolUseID string `json:"parentToolUseID"`
	ModelUsage      map[string]struct {
		Input      int64 `json:"inputTokens"`
		Output     int64 `json:"outputTokens"`
		CacheRead  int64 `json:"cacheReadInputTokens"`
		CacheWrite int64 `json:"cacheCreationInputTokens"`
	} `json:"modelUsage"`
}

func (l sessionLine) blocks() []block {
	var bs []block
	if json.Unmarshal(l.Message.Content, &bs) == nil {
		return bs
	}
	var s string
	if json.Unmarshal(l.Message.Content, &s) == nil && s != "" {
		return []block{{Type: "text", Text: s}}
	}
	return nil
}

func lines(t *testing.T, path string) []sessionLine {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	var ls []sessionLine
	for line := range bytes.Lines(src) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var l sessionLine
		require.NoError(t, json.Unmarshal(line, &l))
		ls = append(ls, l)
	}
	return ls
}

type expected struct {
	calls      map[string]string // tool_use id -> the call it runs under ("" main)
	failed     map[string]bool   // tool_use id -> its result says is_error (or it has none)
	texts      int               // assistant text blocks
	prompts    int
	tokens     map[string]int64
	ownTotal   map[string]int64 // Claude Code's own cost-state figure, when the file has one
	status     string
	timestamps map[string]bool
}

// notPrompt is the list of user text that is not the user's turn.
func notPrompt(text string) bool {
	for _, p := range []string{"<command-", "<local-command-", "<bash-", "<user-prompt-submit-hook>", "<task-notification>", "<system-reminder>", "Caveat: The messages below", "[Request interrupted by user"} {
		if strings.HasPrefix(strings.TrimSpace(text), p) {
			return true
		}
	}
	return false
}

// expectFrom reads a session file and its subagents' files with
// encoding/json alone.
func expectFrom(t *testing.T, session string, agentFiles []string) expected {
	t.Helper()
	w := expected{calls: map[string]string{}, failed: map[string]bool{}, timestamps: map[string]bool{}}
	type usage struct{ in, out, cr, cw int64 }
	msgs := map[string]*usage{}
	stamp := func(ts string) {
		if tm, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			w.timestamps[tm.UTC().Format("2006-01-02T15:04:05.000Z")] = true
		}
	}
	results := map[string]bool{}
	seen := map[string]bool{}
	count := func(l sessionLine, parent string) {
		if l.UUID != "" {
			if seen[l.UUID] {
				return
			}
			seen[l.UUID] = true
		}
		switch l.Type {
		case "user", "assistant", "system":
			stamp(l.Timestamp)
		default:
			return
		}
		synthetic := l.Message.Model == "<synthetic>" || l.Error != nil
		if l.Type == "assistant" && !synthetic && l.Message.ID != "" && l.Message.Usage != nil {
			u := msgs[l.Message.ID]
			if u == nil {
				u = &usage{}
				msgs[l.Message.ID] = u
			}
			get := func(k string) int64 { f, _ := l.Message.Usage[k].(float64); return int64(f) }
			u.in = max(u.in, get("input_tokens"))
			u.out = max(u.out, get("output_tokens"))
			u.cr = max(u.cr, get("cache_read_input_tokens"))
			u.cw = max(u.cw, get("cache_creation_input_tokens"))
		}
		for _, b := range l.blocks() {
			switch {
			case l.Type == "assistant" && b.Type == "tool_use":
				if _, dup := w.calls[b.ID]; !dup {
					w.calls[b.ID] = parent
				}
			case l.Type == "assistant" && b.Type == "text" && b.Text != "":
				w.texts++
			case l.Type == "user" && b.Type == "tool_result":
				if !results[b.ToolUseID] {
					results[b.ToolUseID] = true
					w.failed[b.ToolUseID] = b.IsError
				}
			}
		}
	}
	main := lines(t, session)
	// Inline sidechains: a root's prompt is its Task call's args.prompt.
	taskByPrompt := map[string]string{}
	sideOwner := map[string]string{}
	lastMain := sessionLine{}
	// A slash command is the user's turn unless the next user or
	// assistant line of the main thread is its output in the CLI.
	command := false
	settle := func(l sessionLine) {
		if !command || l.IsSidechain || l.Type != "user" && l.Type != "assistant" {
			return
		}
		text := ""
		if bs := l.blocks(); len(bs) > 0 && l.Type == "user" {
			text = strings.TrimSpace(bs[0].Text)
		}
		if strings.HasPrefix(text, "<local-command-caveat>") || strings.HasPrefix(text, "Caveat: The messages below") {
			return
		}
		command = false
		if !strings.HasPrefix(text, "<local-command-stdout>") && !strings.HasPrefix(text, "<local-command-stderr>") {
			w.prompts++
		}
	}
	filed := map[string]bool{} // calls whose subagent's own file is read
	if len(agentFiles) > 0 {
		for _, id := range agentCalls(t, main, agentFiles) {
			filed[id] = true
		}
	}
	for _, l := range main {
		settle(l)
		if l.Type == "progress" && l.Data.Type == "agent_progress" && !filed[l.ParentToolUseID] {
			var inner sessionLine
			require.NoError(t, json.Unmarshal(l.Data.Message, &inner))
			count(inner, l.ParentToolUseID)
			continue
		}
		if l.Type == "cost-state" && l.ModelUsage != nil {
			w.ownTotal = map[string]int64{"in": 0, "out": 0}
			for _, m := range l.ModelUsage {
				w.ownTotal["in"] += m.Input + m.CacheRead + m.CacheWrite
				w.ownTotal["out"] += m.Output
			}
		}
		parent := ""
		if l.IsSidechain && (l.Type == "user" || l.Type == "assistant" || l.Type == "system") {
			if l.ParentUUID == nil {
				var text string
				if bs := l.blocks(); len(bs) > 0 {
					text = bs[0].Text
				}
				sideOwner[l.UUID] = taskByPrompt[text]
			} else {
				sideOwner[l.UUID] = sideOwner[*l.ParentUUID]
			}
			parent = sideOwner[l.UUID]
			if parent == "" {
				continue
			}
		}
		if l.Type == "assistant" && !l.IsSidechain {
			for _, b := range l.blocks() {
				if b.Type == "tool_use" && (b.Name == "Task" || b.Name == "Agent") {
					var in struct {
						Prompt string `json:"prompt"`
					}
					_ = json.Unmarshal(b.Input, &in)
					taskByPrompt[in.Prompt] = b.ID
				}
			}
			if l.Message.ID != lastMain.Message.ID {
				lastMain = l
			} else if l.Message.StopReason != "" {
				lastMain.Message.StopReason = l.Message.StopReason
			}
		}
		if l.Type == "user" && !l.IsSidechain && !l.IsMeta && !l.CompactSummary && !l.TranscriptOnly {
			var texts []string
			for _, b := range l.blocks() {
				if b.Type == "text" && strings.Contains(b.Text, "<command-name>") {
					command = true
				}
				if b.Type == "text" && !notPrompt(b.Text) {
					texts = append(texts, b.Text)
				}
			}
			if len(texts) > 0 {
				w.prompts++
			}
		}
		count(l, parent)
	}
	if command {
		w.prompts++ // a command last in the file: nothing says it stayed in the CLI
	}
	for i, id := range agentCalls(t, main, agentFiles) {
		if id == "" {
			continue // a warm-up agent: no call
		}
		for _, l := range lines(t, agentFiles[i]) {
			count(l, id)
		}
	}
	for id := range w.calls {
		if !results[id] {
			w.failed[id] = true
		}
	}
	var u usage
	for _, m := range msgs {
		u.in += m.in + m.cr + m.cw
		u.out += m.out
		u.cr += m.cr
		u.cw += m.cw
	}
	w.tokens = map[string]int64{"in": u.in, "out": u.out}
	if u.cr > 0 {
		w.tokens["cache_read"] = u.cr
	}
	if u.cw > 0 {
		w.tokens["cache_write"] = u.cw
	}
	switch {
	case len(results) < len(w.calls) && anyOpen(w, results, ""):
		w.status = "error"
	case lastMain.Message.StopReason == "end_turn":
		w.status = "success"
	}
	return w
}

// agentCalls returns the call each subagent file runs under ("" none):
// tied by its .meta.json toolUseId or by the result that names the agent.
func agentCalls(t *testing.T, main []sessionLine, agentFiles []string) []string {
	byAgent := map[string]string{}
	for _, l := range main {
		var tur struct {
			AgentID string `json:"agentId"`
		}
		if json.Unmarshal(l.ToolUseResult, &tur) == nil && tur.AgentID != "" {
			for _, b := range l.blocks() {
				if b.Type == "tool_result" {
					byAgent[tur.AgentID] = b.ToolUseID
				}
			}
		}
	}
	ids := make([]string, len(agentFiles))
	for i, af := range agentFiles {
		stem := strings.TrimSuffix(filepath.Base(af), ".jsonl")
		ids[i] = byAgent[strings.TrimPrefix(stem, "agent-")]
		if meta, err := os.ReadFile(filepath.Join(filepath.Dir(af), stem+".meta.json")); err == nil {
			var m struct {
				ToolUseID string `json:"toolUseId"`
			}
			require.NoError(t, json.Unmarshal(meta, &m))
			ids[i] = m.ToolUseID
		}
	}
	return ids
}

// anyOpen reports whether a call of the main thread has no result.
func anyOpen(w expected, results map[string]bool, thread string) bool {
	for id, parent := range w.calls {
		if parent == thread && !results[id] {
			return true
		}
	}
	return false
}

func check(t *testing.T, es []entry, w expected) {
	t.Helper()
	starts := map[string]string{}
	ends := map[string]string{}
	texts, prompts := 0, 0
	for _, e := range es {
		assert.True(t, w.timestamps[e.TS], "entry %s at %s: a time no line of the files has", e.Type, e.TS)
		switch e.Type {
		case "tool":
			if e.Status == "running" {
				assert.NotContains(t, starts, e.ToolID, "%s started twice", e.ToolID)
				starts[e.ToolID] = e.Parent
			} else {
				assert.NotContains(t, ends, e.ToolID, "%s ended twice", e.ToolID)
				ends[e.ToolID] = e.Status
			}
		case "message":
			if !strings.HasPrefix(e.Content, "⚠ ") {
				texts++
			}
		case "prompt":
			prompts++
		}
	}
	assert.Len(t, starts, len(w.calls), "one start per call")
	for id, parent := range w.calls {
		assert.Equal(t, parent, starts[id], "the call %s belongs to", id)
		want := "success"
		if w.failed[id] {
			want = "error"
		}
		assert.Equal(t, want, ends[id], "status of %s", id)
	}
	assert.Equal(t, w.texts, texts, "assistant texts")
	assert.Equal(t, w.prompts, prompts, "the user's turns")
	last := es[len(es)-1]
	require.Equal(t, "complete", last.Type)
	assert.Equal(t, w.tokens, last.Total, "usage: last/largest per message.id, each once, subagents included")
	if w.ownTotal != nil {
		assert.Equal(t, w.ownTotal["in"], last.Total["in"], "Claude Code's own total (cost-state)")
		assert.Equal(t, w.ownTotal["out"], last.Total["out"], "Claude Code's own total (cost-state)")
	}
	if w.status != "" {
		assert.Equal(t, w.status, last.Status)
	}
}
