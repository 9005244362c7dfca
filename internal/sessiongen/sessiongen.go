// Package sessiongen builds long, realistic agent sessions for benchmarks,
// from the repository's own fixtures (testdata/claude, testdata/codex; never
// from the shared corpus, whose text must not enter the repository).
//
// A session repeats episodes, each the body of one fixture, picked at random
// with fixed weights, with every tool and message id renamed per copy so
// that every call stays unique, and with its texts replaced by generated
// ones of realistic sizes: tool results from tens of bytes to a hundred KiB
// (code with Read's line numbers, command output with ANSI codes and CR,
// grep output), thinking, messages and subagent reports, all with escapes
// and multi-byte characters. The same options give the same bytes.
package sessiongen

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Options say what to build.
type Options struct {
	// Size is the target size in bytes: episodes are added until the
	// session reaches it, then the closing lines follow.
	Size int
	// Seed picks the episodes and the texts.
	Seed uint64
	// Testdata is the repository's testdata folder; "" finds it in the
	// working directory or the nearest parent that holds go.mod.
	Testdata string
}

// Fill is the content of a huge tool result.
type Fill uint8

const (
	// FillPlain repeats "x", as ../shared/bench/compare.py --huge does.
	FillPlain Fill = iota
	// FillLog is command output with escapes, ANSI codes and multi-byte
	// characters: the costlier case for a converter that copies strings.
	FillLog
)

// episode is the body of one fixture, as lines ready to be copied.
type episode struct {
	name   string
	weight int
	lines  [][]byte
	tools  map[string]string // source tool id → tool name (Claude)
}

// claudeEpisodes are the fixtures a Claude session is built from, with how
// often each comes up. split-message has parallel tool calls over several
// assistant lines of one message.id and thinking; the subagent ones have
// calls and results under a parent_tool_use_id; synthetic-api-error and
// error-max-turns contribute a Read and a Bash call.
var claudeEpisodes = []struct {
	name   string
	weight int
}{
	{"split-message", 5},
	{"subagent-agent", 3},
	{"subagent-task-old", 1},
	{"synthetic-api-error", 4},
	{"error-max-turns", 2},
	{"no-result", 2},
	{"tool-result-shapes", 1},
	{"thinking-omitted-redacted", 1},
	{"server-tools", 1},
	{"several-results", 1},
}

// codexEpisodes are the fixtures a Codex session is built from; each of
// their turns is an episode.
var codexEpisodes = []struct {
	name   string
	weight int
}{
	{"current-commands", 6},
	{"todo-list", 2},
	{"resume-two-processes", 2},
	{"file-change", 1},
	{"mcp-tool-call", 1},
	{"web-search", 1},
	{"collab-tool-call", 1},
}

// Claude returns a Claude Code stream-json session of about opt.Size bytes:
// the first fixture's hooks and init, episodes, and its result line.
func Claude(opt Options) ([]byte, error) {
	dir, err := testdata(opt.Testdata)
	if err != nil {
		return nil, err
	}
	var prologue [][]byte
	var result []byte
	eps := make([]episode, 0, len(claudeEpisodes))
	for i, e := range claudeEpisodes {
		lines, err := readLines(filepath.Join(dir, "claude", e.name+".in.jsonl"))
		if err != nil {
			return nil, err
		}
		if i == 0 {
			prologue, result = claudeFrame(lines)
		}
		ep := claudeBody(lines)
		ep.name, ep.weight = e.name, e.weight
		eps = append(eps, ep)
	}
	if result == nil {
		return nil, fmt.Errorf("sessiongen: %s has no init and result lines", claudeEpisodes[0].name)
	}
	g := newGen(opt.Seed)
	out := make([]byte, 0, opt.Size+opt.Size/4+64<<10)
	for _, l := range prologue {
		out = append(append(out, l...), '\n')
	}
	for n := 0; len(out) < opt.Size; n++ {
		ep := g.pick(eps)
		tag := "c" + strconv.Itoa(n) + "_"
		for _, l := range ep.lines {
			out = append(g.claudeLine(out, l, tag, ep.tools), '\n')
		}
	}
	return append(append(out, result...), '\n'), nil
}

// Codex returns a `codex exec --json` session of about opt.Size bytes:
// several processes (thread.started, a new thread or the same one resumed),
// each with many turns whose items come from the fixtures' turns, item ids
// numbered from item_0 per process as Codex does, usage a running total per
// process.
func Codex(opt Options) ([]byte, error) {
	dir, err := testdata(opt.Testdata)
	if err != nil {
		return nil, err
	}
	var eps []episode
	for _, e := range codexEpisodes {
		lines, err := readLines(filepath.Join(dir, "codex", e.name+".in.jsonl"))
		if err != nil {
			return nil, err
		}
		for _, turn := range codexTurns(lines) {
			eps = append(eps, episode{name: e.name, weight: e.weight, lines: turn})
		}
	}
	if len(eps) == 0 {
		return nil, errors.New("sessiongen: no Codex turns in the fixtures")
	}
	g := newGen(opt.Seed)
	out := make([]byte, 0, opt.Size+opt.Size/4+64<<10)
	thread := ""
	for len(out) < opt.Size {
		if thread == "" || g.r.IntN(2) == 0 {
			thread = g.uuid()
		}
		out = append(out, `{"type":"thread.started","thread_id":"`...)
		out = append(append(out, thread...), "\"}\n"...)
		var in, cached, output, reasoning int
		items := 0
		for turns := 10 + g.r.IntN(50); turns > 0 && len(out) < opt.Size; turns-- {
			out = append(out, `{"type":"turn.started"}`+"\n"...)
			ids := make(map[string]string)
			for _, l := range g.pick(eps).lines {
				out = append(g.codexLine(out, l, ids, &items), '\n')
			}
			in += 2000 + g.r.IntN(30000)
			cached += g.r.IntN(in - cached)
			output += 50 + g.r.IntN(2000)
			reasoning += g.r.IntN(output - reasoning)
			out = fmt.Appendf(out, `{"type":"turn.completed","usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d}}`+"\n",
				in, cached, output, reasoning)
		}
	}
	return out, nil
}

// ClaudeHuge returns a Claude session whose one tool result is a string
// literal of size bytes, the shape of compare.py's --huge input.
func ClaudeHuge(size int, fill Fill) []byte {
	out := make([]byte, 0, size+1024)
	out = append(out, `{"type":"system","subtype":"init","cwd":"/home/dev/app","session_id":"7d1c2b9e-0000-4000-8000-000000000001","tools":["Bash","Read"],"mcp_servers":[],"model":"claude-sonnet-4-6","permissionMode":"bypassPermissions","apiKeySource":"none"}
{"type":"assistant","message":{"model":"claude-sonnet-4-6","id":"msg_01HugeA","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_01HugeA","name":"Bash","input":{"command":"cat build.log"}}],"stop_reason":null,"usage":{"input_tokens":2,"output_tokens":3}},"parent_tool_use_id":null,"session_id":"7d1c2b9e-0000-4000-8000-000000000001"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01HugeA","type":"tool_result","content":`...)
	out = hugeLiteral(out, size, fill)
	return append(out, `}]},"parent_tool_use_id":null,"session_id":"7d1c2b9e-0000-4000-8000-000000000001"}
{"type":"result","subtype":"success","is_error":false,"duration_ms":1000,"num_turns":1,"result":"done","session_id":"7d1c2b9e-0000-4000-8000-000000000001","total_cost_usd":0.01,"usage":{"input_tokens":2,"output_tokens":3}}
`...)
}

// CodexHuge returns a Codex session whose one command output is a string
// literal of size bytes.
func CodexHuge(size int, fill Fill) []byte {
	out := make([]byte, 0, size+1024)
	out = append(out, `{"type":"thread.started","thread_id":"01a10000-0000-7000-8000-000000000001"}
{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"bash -lc 'cat build.log'","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"bash -lc 'cat build.log'","aggregated_output":`...)
	out = hugeLiteral(out, size, fill)
	return append(out, `,"exit_code":0,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"The log is long."}}
{"type":"turn.completed","usage":{"input_tokens":2000,"cached_input_tokens":0,"output_tokens":50}}
`...)
}

func hugeLiteral(out []byte, size int, fill Fill) []byte {
	if fill == FillLog {
		return newTextGen(1).literal(out, kindLog, size, false, nil)
	}
	out = append(out, '"')
	out = append(out, bytes.Repeat([]byte("x"), max(size-2, 0))...)
	return append(out, '"')
}

// testdata returns dir, or finds the repository's testdata folder.
func testdata(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "testdata"), nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("sessiongen: no go.mod in %s or above it", wd)
		}
		d = up
	}
}

// readLines returns the JSON lines of a fixture (a pretty-printed object
// spread over lines is left out: the generated sessions are compact).
func readLines(path string) ([][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sessiongen: %w", err)
	}
	var lines [][]byte
	for l := range bytes.SplitSeq(b, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) > 0 && l[0] == '{' && gjson.ValidBytes(l) {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// claudeFrame returns the lines up to init (hooks and init) and the last
// result line of a fixture.
func claudeFrame(lines [][]byte) (prologue [][]byte, result []byte) {
	for _, l := range lines {
		if gjson.GetBytes(l, "type").Str != "system" {
			break
		}
		prologue = append(prologue, l)
		if gjson.GetBytes(l, "subtype").Str == "init" {
			break
		}
	}
	for _, l := range lines {
		if gjson.GetBytes(l, "type").Str == "result" {
			result = l
		}
	}
	return prologue, result
}

// claudeBody returns the lines of a fixture that a long session repeats:
// not its init, hooks and results (one of each frames the session), nor
// stream events and replays (other modes), nor synthetic error messages.
// A call the fixture never answers is left out too, so that no call stays
// open for the rest of a long session.
func claudeBody(lines [][]byte) episode {
	ep := episode{tools: make(map[string]string)}
	answered := make(map[string]bool)
	for _, l := range lines {
		gjson.GetBytes(l, "message.content").ForEach(func(_, b gjson.Result) bool {
			if id := b.Get("tool_use_id").Str; id != "" {
				answered[id] = true
			}
			if b.Get("type").Str == "tool_use" || b.Get("type").Str == "server_tool_use" {
				ep.tools[b.Get("id").Str] = b.Get("name").Str
			}
			return true
		})
	}
	for _, l := range lines {
		typ, sub := gjson.GetBytes(l, "type").Str, gjson.GetBytes(l, "subtype").Str
		switch {
		case typ == "result", typ == "stream_event", gjson.GetBytes(l, "isReplay").Bool():
			continue
		case typ == "system" && (sub == "init" || strings.HasPrefix(sub, "hook_")):
			continue
		case typ == "assistant" && gjson.GetBytes(l, "message.model").Str == "<synthetic>":
			continue
		case typ == "assistant" && unanswered(l, answered):
			continue
		}
		ep.lines = append(ep.lines, l)
	}
	return ep
}

// unanswered reports whether every block of an assistant line is a call
// with no result in the fixture.
func unanswered(l []byte, answered map[string]bool) bool {
	calls, all := 0, 0
	gjson.GetBytes(l, "message.content").ForEach(func(_, b gjson.Result) bool {
		all++
		if t := b.Get("type").Str; (t == "tool_use" || t == "server_tool_use") && !answered[b.Get("id").Str] {
			calls++
		}
		return true
	})
	return all > 0 && calls == all
}

// codexTurns returns the item lines of each turn of a current-format fixture.
func codexTurns(lines [][]byte) [][][]byte {
	var turns [][][]byte
	var cur [][]byte
	for _, l := range lines {
		switch typ := gjson.GetBytes(l, "type").Str; {
		case strings.HasPrefix(typ, "item."):
			cur = append(cur, l)
		case typ == "turn.completed" || typ == "turn.failed":
			if len(cur) > 0 {
				turns = append(turns, cur)
			}
			cur = nil
		}
	}
	return turns
}

// gen holds the state of one generation.
type gen struct {
	*textGen
	edits []edit
	plain []byte
	ms    int64 // source time of the last timestamp written, Unix ms
}

// edit replaces n bytes at offset at of a line with val.
type edit struct {
	at, n int
	val   []byte
}

func newGen(seed uint64) *gen {
	return &gen{textGen: newTextGen(seed), ms: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).UnixMilli()}
}

func (g *gen) pick(eps []episode) *episode {
	total := 0
	for _, e := range eps {
		total += e.weight
	}
	n := g.r.IntN(total)
	for i := range eps {
		if n -= eps[i].weight; n < 0 {
			return &eps[i]
		}
	}
	return &eps[len(eps)-1]
}

func (g *gen) uuid() string {
	return fmt.Sprintf("%08x-%04x-7%03x-8%03x-%012x", g.r.Uint32(), g.r.IntN(1<<16), g.r.IntN(1<<12), g.r.IntN(1<<12), g.r.Uint64()&(1<<48-1))
}

// replace records an edit of value r (found by a gjson path on the line)
// to a generated literal.
func (g *gen) replace(r gjson.Result, val []byte) {
	if r.Index > 0 {
		g.edits = append(g.edits, edit{at: r.Index, n: len(r.Raw), val: val})
	}
}

// text returns a generated literal of kind k and about n bytes; with
// plain, g.plain gets the same text without line numbers.
func (g *gen) text(k kind, n int, numbered, plain bool) []byte {
	if plain {
		return g.literal(nil, k, n, numbered, &g.plain)
	}
	return g.literal(nil, k, n, numbered, nil)
}

// apply appends line to out with the recorded edits made.
func (g *gen) apply(out, line []byte) []byte {
	slices.SortFunc(g.edits, func(a, b edit) int { return cmp.Compare(a.at, b.at) })
	pos := 0
	for _, e := range g.edits {
		if e.at < pos {
			continue // inside an earlier edit
		}
		out = append(append(out, line[pos:e.at]...), e.val...)
		pos = e.at + e.n
	}
	g.edits = g.edits[:0]
	return append(out, line[pos:]...)
}

// timestamp returns the next source time as a literal: a second or so
// after the last, so that the session's clock moves forward.
func (g *gen) timestamp() []byte {
	g.ms += 50 + int64(g.r.IntN(3000))
	return []byte(`"` + time.UnixMilli(g.ms).UTC().Format("2006-01-02T15:04:05.000Z") + `"`)
}

// claudeLine appends a copy of a Claude fixture line with its ids tagged
// and its texts generated.
func (g *gen) claudeLine(out, src []byte, tag string, tools map[string]string) []byte {
	l := src
	for _, p := range []string{`"toolu_`, `"srvtoolu_`, `"msg_`} {
		l = bytes.ReplaceAll(l, []byte(p), []byte(p+tag))
	}
	if ts := gjson.GetBytes(l, "timestamp"); ts.Type == gjson.String {
		g.replace(ts, g.timestamp())
	}
	content := gjson.GetBytes(l, "message.content")
	n := int(content.Get("#").Int())
	switch gjson.GetBytes(l, "type").Str {
	case "assistant":
		for i := range n {
			p := "message.content." + strconv.Itoa(i)
			switch b := gjson.GetBytes(l, p); b.Get("type").Str {
			case "thinking":
				if b.Get("thinking").Str != "" {
					g.replace(gjson.GetBytes(l, p+".thinking"), g.text(kindProse, g.logSize(200, 6000), false, false))
				}
			case "text":
				g.replace(gjson.GetBytes(l, p+".text"), g.text(kindProse, g.logSize(40, 2000), false, false))
			case "tool_use":
				switch b.Get("name").Str {
				case "Edit":
					g.replace(gjson.GetBytes(l, p+".input.old_string"), g.text(kindCode, g.logSize(80, 3000), false, false))
					g.replace(gjson.GetBytes(l, p+".input.new_string"), g.text(kindCode, g.logSize(80, 3000), false, false))
				case "Write":
					g.replace(gjson.GetBytes(l, p+".input.content"), g.text(kindCode, g.logSize(500, 20000), false, false))
				}
			}
		}
	case "user":
		for i := range n {
			p := "message.content." + strconv.Itoa(i)
			b := gjson.GetBytes(l, p)
			if b.Get("type").Str != "tool_result" {
				continue
			}
			name := tools[strings.Replace(b.Get("tool_use_id").Str, tag, "", 1)]
			g.toolResult(l, p, b, name, n == 1)
		}
	}
	return g.apply(out, l)
}

// toolResult records the edits of one tool_result block at path p: its
// content, and the copy of it that Claude Code keeps in tool_use_result
// (Bash's stdout, Read's file) when the line has one result.
func (g *gen) toolResult(l []byte, p string, b gjson.Result, name string, only bool) {
	c := b.Get("content")
	if c.IsArray() { // a subagent's report, as text blocks
		if t := gjson.GetBytes(l, p+".content.0.text"); t.Type == gjson.String && (name == "Agent" || name == "Task") {
			g.replace(t, g.text(kindProse, g.logSize(300, 6000), false, false))
		}
		return
	}
	if c.Type != gjson.String {
		return
	}
	if b.Get("is_error").Bool() {
		g.replace(gjson.GetBytes(l, p+".content"), g.text(kindLog, g.logSize(60, 1500), false, false))
		return
	}
	switch name {
	case "Read":
		g.replace(gjson.GetBytes(l, p+".content"), g.text(kindCode, g.logSize(1500, 64<<10), true, true))
		if only && !gjson.GetBytes(l, "tool_use_result").Exists() {
			file := fmt.Appendf(nil, `,"tool_use_result":{"type":"text","file":{"filePath":"/home/dev/app/internal/%s/%s.go","content":%s,"numLines":%d,"startLine":1,"totalLines":%d}}`,
				g.textGen.pick(idents), g.textGen.pick(idents), g.plain, g.n, g.n)
			g.edits = append(g.edits, edit{at: bytes.LastIndexByte(l, '}'), val: file})
		}
	case "Bash":
		out := g.text(kindLog, g.outputSize(40, 11), false, false)
		g.replace(gjson.GetBytes(l, p+".content"), out)
		if only {
			if s := gjson.GetBytes(l, "tool_use_result.stdout"); s.Type == gjson.String {
				g.replace(s, out)
			}
		}
	case "Grep", "Glob":
		g.replace(gjson.GetBytes(l, p+".content"), g.text(kindPaths, g.logSize(60, 6000), false, false))
	case "Agent", "Task":
		g.replace(gjson.GetBytes(l, p+".content"), g.text(kindProse, g.logSize(300, 6000), false, false))
	}
}

// codexLine appends a copy of a Codex item line with its item id numbered
// in the current process and its texts generated.
func (g *gen) codexLine(out, src []byte, ids map[string]string, items *int) []byte {
	l := src
	if id := gjson.GetBytes(l, "item.id"); id.Type == gjson.String && strings.HasPrefix(id.Str, "item_") {
		to, ok := ids[id.Str]
		if !ok {
			to = "item_" + strconv.Itoa(*items)
			*items++
			ids[id.Str] = to
		}
		l = slices.Concat(l[:id.Index], []byte(`"`+to+`"`), l[id.Index+len(id.Raw):])
	}
	completed := gjson.GetBytes(l, "type").Str == "item.completed"
	switch gjson.GetBytes(l, "item.type").Str {
	case "command_execution":
		if completed {
			g.replace(gjson.GetBytes(l, "item.aggregated_output"), g.text(kindLog, g.outputSize(20, 10), false, false))
		}
	case "reasoning":
		if t := gjson.GetBytes(l, "item.text"); t.Str != "" {
			g.replace(t, g.text(kindProse, g.logSize(100, 3000), false, false))
		}
	case "agent_message":
		g.replace(gjson.GetBytes(l, "item.text"), g.text(kindProse, g.logSize(40, 2000), false, false))
	}
	return g.apply(out, l)
}
