package dialog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
	"github.com/ssebench/sse-dialog-convert/internal/sink"

	"github.com/ssebench/sse-dialog-convert/internal/dialogcheck"
)

var pinned = FixedClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

// entries decodes a dialog into one map per line, after checking it is valid.
func entries(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var findings []string
	_, err := dialogcheck.Validate(bytes.NewReader(out), func(f dialogcheck.Finding) { findings = append(findings, f.String()) })
	require.NoError(t, err)
	require.Empty(t, findings, "invalid dialog:\n%s", out)
	var es []map[string]any
	for _, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		var e map[string]any
		require.NoError(t, json.Unmarshal(line, &e))
		es = append(es, e)
	}
	return es
}

func types(es []map[string]any) string {
	var s []string
	for _, e := range es {
		typ := e["type"].(string)
		if st, ok := e["status"].(string); ok && typ == "tool" {
			typ += ":" + st
		}
		s = append(s, typ)
	}
	return strings.Join(s, " ")
}

func TestWriterOrdersInitPromptBodyComplete(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned, Prompt: "fix it", HasPrompt: true, Task: "T1", DefaultCWD: "/proc-wd"})
	w.SetAgent("codex")
	w.Message(Message{Content: Plain("hello")})
	w.StreamPrompt(Plain("ignored: the flag's prompt wins"))
	require.NoError(t, w.Close(Summary{Status: StatusSuccess, Turns: 1}, nil))

	es := entries(t, out.Bytes())
	assert.Equal(t, "init prompt message complete", types(es))
	assert.Equal(t, map[string]any{"task": "T1", "cwd": "/proc-wd", "model": "unknown", "agent": "codex", "clock": "arrival"}, es[0]["data"])
	assert.Equal(t, "fix it", es[1]["content"])
	assert.Equal(t, "2026-01-02T03:04:05.000Z", es[0]["ts"])
}

func TestWriterMetaWritesInitOnceAndFlagsWin(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned, Model: "flag-model"})
	w.Meta(Meta{Model: "stream-model", CWD: "/stream", Agent: "claude-code"})
	require.Equal(t, 1, w.Entries(), "Meta writes init at once, for the live view")
	w.Meta(Meta{Model: "second", CWD: "/second"})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	assert.Equal(t, "init complete", types(es))
	assert.Equal(t, map[string]any{"task": "", "cwd": "/stream", "model": "flag-model", "agent": "claude-code", "clock": "arrival"}, es[0]["data"])
}

// TestWriterFallbackModel: the fallback model (run's, from the agent's
// command line) is below the stream's and the options', above "unknown".
func TestWriterFallbackModel(t *testing.T) {
	for _, tt := range []struct {
		opt    Options
		stream string
		want   string
	}{
		{Options{FallbackModel: "args"}, "", "args"},
		{Options{FallbackModel: "args"}, "stream", "stream"},
		{Options{FallbackModel: "args", Model: "flag"}, "stream", "flag"},
		{Options{FallbackModel: "args", Model: "flag"}, "", "flag"},
		{Options{}, "", "unknown"},
	} {
		var out bytes.Buffer
		tt.opt.Clock = pinned
		w := NewWriter(&out, tt.opt)
		w.Meta(Meta{Model: tt.stream})
		require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
		es := entries(t, out.Bytes())
		assert.Equal(t, tt.want, es[0]["data"].(map[string]any)["model"], "%+v, stream %q", tt.opt, tt.stream)
	}
}

func TestWriterStreamPrompt(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	w.Meta(Meta{Model: "m"})
	w.StreamPrompt(rawText(`"from \"stream\""`))
	w.StreamPrompt(Plain("second is ignored"))
	w.Message(Message{Content: Plain("a")})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	assert.Equal(t, "init prompt message complete", types(es))
	assert.Equal(t, `from "stream"`, es[1]["content"])

	// A prompt that arrives after the body started has no place left.
	out.Reset()
	w = NewWriter(&out, Options{Clock: pinned})
	w.Message(Message{Content: Plain("a")})
	w.StreamPrompt(Plain("too late"))
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	assert.Equal(t, "init message complete", types(entries(t, out.Bytes())))
}

func TestWriterUserPrompt(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	w.Meta(Meta{Model: "m"})
	w.StreamPrompt(Plain("first"))
	w.Message(Message{Content: Plain("a")})
	w.UserPrompt(rawText(`"second \"turn\""`))
	w.UserPrompt(Plain("")) // no text, no entry
	w.Message(Message{Content: Plain("b")})
	w.UserPrompt(Plain("third"))
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	w.UserPrompt(Plain("after complete"))
	es := entries(t, out.Bytes())
	assert.Equal(t, "init prompt message prompt message prompt complete", types(es))
	assert.Equal(t, `second "turn"`, es[3]["content"])
	assert.Equal(t, "third", es[5]["content"])

	// The first user turn may come through UserPrompt too: it writes init
	// first, and a later StreamPrompt has no place left.
	out.Reset()
	w = NewWriter(&out, Options{Clock: pinned, Saved: true})
	w.Meta(Meta{Model: "m"})
	w.UserPrompt(Plain("only"))
	w.StreamPrompt(Plain("ignored"))
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	assert.Equal(t, "init prompt complete", types(entries(t, out.Bytes())))

	// With --prompt given, the stream's later turns still show.
	out.Reset()
	w = NewWriter(&out, Options{Clock: pinned, Prompt: "flag", HasPrompt: true})
	w.StreamPrompt(Plain("stream's first: the flag wins"))
	w.Message(Message{Content: Plain("a")})
	w.UserPrompt(Plain("next"))
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es = entries(t, out.Bytes())
	assert.Equal(t, "init prompt message prompt complete", types(es))
	assert.Equal(t, "flag", es[1]["content"])
	assert.Equal(t, "next", es[3]["content"])
}

func TestWriterPairsToolsAndMakesIDsUnique(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	w.ToolStart(ToolCall{ID: "item_0", Name: "bash", Args: rawArgs(`{"command":"ls"}`)})
	w.ToolEnd(ToolResult{ID: "item_0", Output: Plain("a\nb")})
	w.ToolStart(ToolCall{ID: "item_0", Name: "bash", Args: rawArgs(`{"command":"pwd"}`)}) // a second process restarts item_0
	w.ToolEnd(ToolResult{ID: "item_0", Output: Plain("exit 1"), IsError: true})
	w.ToolEnd(ToolResult{ID: "ghost", Output: Plain("orphan"), Name: "Read"}) // result of a call never started
	w.ToolStart(ToolCall{ID: "left-open", Name: "Agent", Args: rawArgs(`"not an object"`)})
	require.NoError(t, w.Close(Summary{}, nil))

	es := entries(t, out.Bytes())
	assert.Equal(t, "init tool:running tool:success tool:running tool:error tool:running tool:success tool:running tool:error complete", types(es))
	assert.Equal(t, "item_0", es[1]["tool_id"])
	assert.Equal(t, "item_0", es[2]["tool_id"])
	assert.Equal(t, "item_0#2", es[3]["tool_id"])
	assert.Equal(t, "item_0#2", es[4]["tool_id"])
	assert.Equal(t, "exit 1", es[4]["error"])
	assert.Equal(t, "Read", es[5]["name"])
	assert.Equal(t, "orphan", es[6]["result"])
	assert.Equal(t, map[string]any{"input": "not an object"}, es[7]["args"])
	assert.Equal(t, "left-open", es[8]["tool_id"])
	assert.Contains(t, es[8]["error"], "no result")
	assert.Equal(t, "error", es[9]["status"])
	assert.Equal(t, "incomplete", es[9]["reason"])
}

// The entry that ends a call writes its id and name as its start did,
// escapes and all, whether a result or the end of the input ends it.
func TestWriterEndsCallsWithTheirStartsIDAndName(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	w.ToolStart(ToolCall{ID: `a"b`, Name: "bash"})
	w.ToolStart(ToolCall{ID: "item_1", Name: "x\ny\u2028"})
	w.ToolStart(ToolCall{ID: "item_2", Name: "edit"})
	w.ToolEnd(ToolResult{ID: `a"b`, Output: Plain("done")})
	w.ToolEnd(ToolResult{ID: "item_2"})
	require.NoError(t, w.Close(Summary{}, nil)) // item_1 is ended as an error
	es := entries(t, out.Bytes())
	require.Equal(t, "init tool:running tool:running tool:running tool:success tool:success tool:error complete", types(es))
	for _, pair := range [][2]int{{1, 4}, {3, 5}, {2, 6}} {
		assert.Equal(t, es[pair[0]]["tool_id"], es[pair[1]]["tool_id"])
		assert.Equal(t, es[pair[0]]["name"], es[pair[1]]["name"])
	}
	assert.Equal(t, `a"b`, es[4]["tool_id"])
	assert.Equal(t, "x\ny\u2028", es[6]["name"])
	assert.Equal(t, 2, bytes.Count(out.Bytes(), []byte(`"tool_id":"a\"b","name":"bash"`)))
	assert.Equal(t, 2, bytes.Count(out.Bytes(), []byte(`"tool_id":"item_1","name":"x\ny\u2028"`)))
	assert.Equal(t, 2, bytes.Count(out.Bytes(), []byte(`"tool_id":"item_2","name":"edit"`)))
}

// A renamed id is its source id, escaped as it must be, and the suffix;
// a subagent's call names its parent by that id.
func TestWriterWritesRenamedIDs(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	w.ToolStart(ToolCall{ID: `a"b`, Name: "bash"})
	w.ToolEnd(ToolResult{ID: `a"b`})
	w.ToolStart(ToolCall{ID: `a"b`, Name: "Agent"})
	w.ToolStart(ToolCall{ID: "child", Name: "Read", Parent: `a"b`})
	w.ToolEnd(ToolResult{ID: "child"})
	w.ToolEnd(ToolResult{ID: `a"b`, Output: Plain("ok")})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	require.Equal(t, "init tool:running tool:success tool:running tool:running tool:success tool:success complete", types(es))
	assert.Equal(t, `a"b#2`, es[3]["tool_id"])
	assert.Equal(t, `a"b#2`, es[4]["parent_tool_id"])
	assert.Equal(t, `a"b#2`, es[5]["parent_tool_id"])
	assert.Equal(t, `a"b#2`, es[6]["tool_id"])
	assert.Equal(t, 2, bytes.Count(out.Bytes(), []byte(`"tool_id":"a\"b#2","name":"Agent"`)))
}

// Two source ids that differ only in bytes that are not UTF-8 are written
// alike (U+FFFD), so they are told apart like a reused id (found by FuzzWriter).
func TestWriterIDsUniqueAsWritten(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	w.ToolStart(ToolCall{ID: "\xf7", Name: "a"})
	w.ToolStart(ToolCall{ID: "\x9c", Name: "b"})
	w.ToolEnd(ToolResult{ID: "\xf7"})
	require.NoError(t, w.Close(Summary{}, nil))
	es := entries(t, out.Bytes())
	assert.Equal(t, []any{"\ufffd", "\ufffd#2", "\ufffd", "\ufffd#2"}, []any{es[1]["tool_id"], es[2]["tool_id"], es[3]["tool_id"], es[4]["tool_id"]})
	assert.Equal(t, "a", es[3]["name"], "the result ends the call of its own source id")
}

func TestWriterParentIDFollowsRenamedCall(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	w.ToolStart(ToolCall{ID: "a", Name: "Agent"})
	w.ToolEnd(ToolResult{ID: "a"})
	w.ToolStart(ToolCall{ID: "a", Name: "Agent"}) // becomes a#2
	w.ToolStart(ToolCall{ID: "r", Name: "Read", Parent: "a"})
	w.Thinking(Plain("hmm"), "a")
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	assert.Equal(t, "a#2", es[4]["parent_tool_id"])
	assert.Equal(t, "a#2", es[5]["parent_tool_id"])
}

func TestWriterCompleteOnceAndLast(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	w.Message(Message{Content: Plain("x")})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess, Turns: 3, Tokens: Tokens{In: 10, Out: 2, CacheRead: 7}}, nil))
	w.Message(Message{Content: Plain("after the end")})
	w.ToolStart(ToolCall{ID: "t", Name: "bash"})
	require.NoError(t, w.Close(Summary{Status: StatusError}, nil))
	es := entries(t, out.Bytes())
	assert.Equal(t, "init message complete", types(es))
	assert.Equal(t, map[string]any{"in": 10.0, "out": 2.0, "cache_read": 7.0}, es[2]["total_tokens"])
	assert.EqualValues(t, 3, es[2]["turns"])
}

func TestWriterEndingOverridesSummary(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	w.ToolStart(ToolCall{ID: "t", Name: "bash"})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess, Message: "done", HasCost: true, CostUSD: 0.25},
		&Ending{Status: StatusTimeout, Reason: ReasonSignal, Message: "stopped by SIGTERM"}))
	es := entries(t, out.Bytes())
	assert.Equal(t, "init tool:running tool:error complete", types(es))
	assert.Equal(t, "timeout", es[3]["status"])
	assert.Equal(t, "signal", es[3]["reason"])
	assert.Equal(t, "stopped by SIGTERM", es[3]["message"])
	assert.Equal(t, 0.25, es[3]["cost_usd"])
}

func TestWriterTimestamps(t *testing.T) {
	var out bytes.Buffer
	clock := &stepClock{t: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	w := NewWriter(&out, Options{Clock: clock})
	w.BeginLine()
	w.Message(Message{Content: Plain("clock time")}) // init + message at the clock
	w.BeginLine()
	w.SourceTime(at(t, "2026-05-01T00:00:10.5+02:00")) // before the clock, once in UTC: kept from going back
	w.Message(Message{Content: Plain("source time, clamped")})
	w.BeginLine()
	w.SourceTime(at(t, "2026-05-01T00:00:30Z"))
	w.Message(Message{Content: Plain("source time")})
	w.BeginLine() // no timestamp: the source's last one, not the clock
	w.Message(Message{Content: Plain("inherits")})
	w.BeginLine()
	w.SourceTime(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)) // past year 9999: ignored
	w.Message(Message{Content: Plain("bad source ts ignored")})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	var ts []string
	for _, e := range es {
		ts = append(ts, e["ts"].(string))
	}
	assert.Equal(t, []string{
		"2026-05-01T00:00:02.000Z", "2026-05-01T00:00:02.000Z", // NewWriter read the clock once already
		"2026-05-01T00:00:02.000Z",
		"2026-05-01T00:00:30.000Z", "2026-05-01T00:00:30.000Z", "2026-05-01T00:00:30.000Z", "2026-05-01T00:00:30.000Z",
	}, ts)
	// Duration comes from the span of the source's timestamps when the source gives none.
	assert.EqualValues(t, 30000-(-7200000+10500), es[6]["duration_ms"])
}

// stepClock advances one second per call.
type stepClock struct{ t time.Time }

func (c *stepClock) Now() time.Time { c.t = c.t.Add(time.Second); return c.t }

func TestWriterOutputIsValidUTF8(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	w.Message(Message{Content: Plain("caf\xe9 \x00 ok")})
	w.Thinking(rawText(`"lone \ud800 surrogate, pair \ud83d\ude00"`), "")
	w.ToolStart(ToolCall{ID: "t\xff", Name: "n\xfe", Args: rawArgs(`{"k\ud800":"v\udc00"}`)})
	w.ToolEnd(ToolResult{ID: "t\xff", Output: rawText("\"raw \xff byte\"")})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess, Message: "m\xc3"}, nil))
	require.True(t, utf8.Valid(out.Bytes()))
	assert.NotContains(t, out.String(), `\ud800`)
	assert.NotContains(t, out.String(), `\udc00`)
	es := entries(t, out.Bytes())
	assert.Equal(t, "caf\ufffd \x00 ok", es[1]["content"])
	assert.Equal(t, "lone \ufffd surrogate, pair 😀", es[2]["content"])
	assert.Equal(t, map[string]any{"k\ufffd": "v\ufffd"}, es[3]["args"])
	assert.Equal(t, "raw \ufffd byte", es[4]["result"])
}

// oneLineWriter records each Write, to prove an entry is one write.
type oneLineWriter struct{ writes [][]byte }

func (o *oneLineWriter) Write(p []byte) (int, error) {
	o.writes = append(o.writes, append([]byte(nil), p...))
	return len(p), nil
}

func TestWriterOneWritePerEntry(t *testing.T) {
	var o oneLineWriter
	w := NewWriter(&o, Options{Clock: pinned, Prompt: "p", HasPrompt: true})
	w.ToolStart(ToolCall{ID: "a", Name: "bash", Args: rawArgs(`{"x": [1, 2, {"y": "z"}]}`)})
	w.ToolEnd(ToolResult{ID: "a", Output: Plain(strings.Repeat("long ", 10000))})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	require.Len(t, o.writes, 5)
	for i, wr := range o.writes {
		assert.Equal(t, 1, bytes.Count(wr, []byte("\n")), "write %d", i)
		assert.True(t, bytes.HasSuffix(wr, []byte("\n")))
		assert.True(t, json.Valid(bytes.TrimSuffix(wr, []byte("\n"))))
	}
	assert.Contains(t, string(o.writes[2]), `"args":{"x":[1,2,{"y":"z"}]}`, "args are written compact")
}

type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after == 0 {
		return 0, errors.New("disk full")
	}
	f.after--
	return len(p), nil
}

func TestWriterStopsAtFirstWriteError(t *testing.T) {
	fw := &failingWriter{after: 1}
	w := NewWriter(fw, Options{Clock: pinned})
	w.Message(Message{Content: Plain("x")})
	require.EqualError(t, w.Err(), "disk full")
	assert.EqualError(t, w.Close(Summary{Status: StatusSuccess}, nil), "disk full")
}

func TestWriterCapsToolText(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned, MaxText: 10})
	w.ToolStart(ToolCall{ID: "a", Name: "Write", Args: rawArgs(`{"content":"0123456789abcdef","n":1}`)})
	w.ToolEnd(ToolResult{ID: "a", Output: Plain("ééééééé")}) // 14 bytes: cut at 10 falls on a boundary
	w.Message(Message{Content: Plain(strings.Repeat("m", 50))})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	assert.Equal(t, map[string]any{"content": "0123456789 … [6 more bytes cut]", "n": 1.0}, es[1]["args"])
	assert.Equal(t, "ééééé … [4 more bytes cut]", es[2]["result"])
	assert.Len(t, es[3]["content"], 50, "messages are not capped")
}

// Entries built in place at the end of a sink's pending entries are the
// entries written to any other writer, under every budget and cap: the
// cuts count from where each entry starts, not from the buffer's start.
func TestWriterBuildsInPlaceAsItWrites(t *testing.T) {
	for seed := range 300 {
		script, x := randomScript(seed, 7, 64)
		a, b := "x\u2028\xff", `{"k":[1,{"k":"v"}],"k":"\ud800"}`
		var plain, sunk bytes.Buffer
		runScriptTo(&plain, script, a, b, int64(x), -int64(x)<<32, uint32(seed)*500)
		s := sink.New(&sunk, 1+seed*100) // from a flush at every entry to few
		runScriptTo(s, script, a, b, int64(x), -int64(x)<<32, uint32(seed)*500)
		require.NoError(t, s.Flush())
		require.Equal(t, plain.String(), sunk.String(), "seed %d", seed)
	}
	// A file that runs into its budget with many entries pending: the
	// room left is counted from where the entry starts.
	calls := func(out io.Writer) {
		w := NewWriter(out, Options{Clock: pinned, MaxBytes: 100_000})
		res := rawText(resultText(3000))
		for i := range 200 {
			w.Message(Message{Content: res})
			w.ToolStart(ToolCall{ID: fmt.Sprint("t", i), Name: "Bash", Args: rawArgs(`{"command":` + resultText(500) + `}`)})
			w.ToolEnd(ToolResult{ID: fmt.Sprint("t", i), Output: res})
		}
		_ = w.Close(Summary{Status: StatusSuccess, Message: resultText(5000)}, nil)
	}
	// A complete entry whose message takes what the budget has left.
	last := func(out io.Writer) {
		w := NewWriter(out, Options{Clock: pinned, MaxBytes: 100_000})
		for w.budget.written < 90_000 {
			w.Message(Message{Content: Plain(strings.Repeat("m", 1000))})
		}
		_ = w.Close(Summary{Status: StatusSuccess, Message: strings.Repeat("why ", 5000)}, nil)
	}
	for _, run := range []func(io.Writer){calls, last} {
		var plain, sunk bytes.Buffer
		run(&plain)
		s := sink.New(&sunk, 1<<20)
		run(s)
		require.NoError(t, s.Flush())
		require.Equal(t, plain.String(), sunk.String())
	}
}

// The writer must produce a valid dialog whatever sequence of calls its
// callers make: the same random-but-seeded call sequences as the fuzz target.
// randomScript is n bytes of xorshift from seed (and salt), and the
// generator's last state: the same script for the same seed on every run.
func randomScript(seed, salt, n int) ([]byte, uint32) {
	script := make([]byte, n)
	x := uint32(seed*2654435761 + salt)
	for i := range script {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		script[i] = byte(x)
	}
	return script, x
}

func TestWriterAnyCallSequenceIsValid(t *testing.T) {
	for seed := range 300 {
		script, x := randomScript(seed, 1, 64)
		out := runScript(script, "x\u2028\xff", `{"k":[1,{"k":"v"}],"k":"\ud800"}`, int64(x), -int64(x)<<32, uint32(seed))
		requireWriterValid(t, out, fmt.Sprintf("seed %d", seed))
	}
}

// FuzzWriter feeds the writer arbitrary entries through all its methods
// (arbitrary strings as text, raw literals, args, ids, names, timestamps,
// init data and summaries; arbitrary numbers as counts, costs and clocks;
// budgets small enough to cut) and checks that validate accepts every file
// it writes, and that it holds no raw line separator.
func FuzzWriter(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, "x", `{"a":1}`, int64(5e18), int64(-1), uint32(0))
	f.Add([]byte{3, 3, 4, 4, 4, 9, 3}, "\u2028\xff\x00", `[[[[1]]]]`, int64(1e18), int64(2), uint32(300))
	f.Add([]byte{12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, "9999-12-31T23:59:59-23:59", `{"k":1,"k":2}`, int64(253402300799), int64(-62135596800), uint32(70000))
	f.Fuzz(func(t *testing.T, script []byte, a, b string, n1, n2 int64, budget uint32) {
		requireWriterValid(t, runScript(script, a, b, n1, n2, budget), "")
	})
}

func requireWriterValid(t *testing.T, out []byte, what string) {
	t.Helper()
	var findings []string
	if _, err := dialogcheck.Validate(bytes.NewReader(out), func(f dialogcheck.Finding) { findings = append(findings, f.String()) }); err != nil {
		t.Fatal(err)
	}
	if len(findings) > 0 {
		t.Fatalf("%s: invalid dialog %v:\n%s", what, findings, out)
	}
	if i := bytes.IndexFunc(out, jsonraw.IsLineSeparator); i >= 0 {
		t.Fatalf("%s: raw line separator at byte %d:\n%s", what, i, out)
	}
}

// literal is s as a JSON string literal: as it stands when that is valid
// JSON (escapes and all), else encoded.
func literal(s string) string {
	if l := `"` + s + `"`; gjson.Valid(l) {
		return l
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// runScript drives a Writer with calls chosen by the bytes of script, on
// values made from a, b, n1 and n2, under a budget of about budget bytes
// (0: the default).
func runScript(script []byte, a, b string, n1, n2 int64, budget uint32) []byte {
	var out bytes.Buffer
	runScriptTo(&out, script, a, b, n1, n2, budget)
	return out.Bytes()
}

// runScriptTo is runScript writing to out.
func runScriptTo(out io.Writer, script []byte, a, b string, n1, n2 int64, budget uint32) {
	opt := Options{
		Clock:         FixedClock(time.Unix(0, 0).Add(time.Duration(n2))),
		MaxText:       int(n1%40) - 1,
		MaxBytes:      int64(budget % 200000),
		Task:          a,
		CWD:           b,
		FallbackModel: b,
		Saved:         n1%2 == 0,
	}
	if n2%3 == 0 {
		opt.Prompt, opt.HasPrompt = b, true
	}
	w := NewWriter(out, opt)
	ids := []string{"a", b, "", "a#2", "c\xff", a}
	long := strings.Repeat(a+"é\n", 2000/(len(a)+3))
	texts := []Text{Plain(""), Plain(a), rawText(`"y\ud800"`), Plain(long), rawText(`""`), rawText(literal(b)),
		rawText("null"), rawText(literal(long)), Plain(b), rawText(literal(a))}
	depth := int(uint64(n1) % 300)
	args := []string{"", `{"a":1}`, "[1]", "{bad", `"s"`, a, b,
		`{"deep":` + strings.Repeat("[", depth) + literal(a) + strings.Repeat("]", depth) + `}`,
		`{"k":` + literal(a) + `,"k":{"k":` + literal(b) + `,"k":1},` + literal(a) + `:2}`,
		`{"long":` + literal(long) + `,"n":[` + literal(long) + `]}`}
	times := []string{a, b, time.Unix(n1%(400e9)-200e9, n2%1e9).UTC().Format(time.RFC3339Nano),
		time.Unix(n2%(400e9)-200e9, 0).In(time.FixedZone("", int(n1%(48*3600)-24*3600))).Format(time.RFC3339)}
	sum := func(op byte) Summary {
		return Summary{
			Status:      Status([]string{"", "success", "bogus", "error", "timeout", a}[int(op>>4)%6]),
			Message:     []string{"", a, long}[int(op>>2)%3],
			Reason:      b,
			Turns:       int(n1),
			DurationMS:  n2,
			HasDuration: op&1 != 0,
			Tokens:      Tokens{In: n1, Out: n2, CacheRead: n1 ^ n2, CacheWrite: -n1, Reasoning: n2 / 3},
			CostUSD:     math.Float64frombits(uint64(n1 ^ n2)),
			HasCost:     op&2 != 0,
			Warnings:    int(n2),
		}
	}
	for i, op := range script {
		id := ids[i%len(ids)]
		text := texts[int(op>>3)%len(texts)]
		switch op % 14 {
		case 0:
			w.Meta(Meta{Model: []string{"m", a, ""}[int(op>>4)%3], CWD: b, Agent: a})
		case 1:
			w.StreamPrompt(text)
		case 2:
			w.Message(Message{Content: text, Parent: id, HasTokens: op&16 != 0, Tokens: Tokens{In: n1, Out: n2}})
		case 3:
			w.ToolStart(ToolCall{ID: id, Name: []string{"t", a, ""}[int(op>>6)%3], Args: rawArgs(args[int(op>>4)%len(args)]), Parent: ids[int(op>>3)%len(ids)]})
		case 4:
			w.ToolEnd(ToolResult{ID: id, Output: text, IsError: op&32 != 0, Name: b, Parent: a})
		case 5:
			w.Thinking(text, id)
		case 6:
			w.BeginLine()
		case 7:
			w.SourceTime(time.Date(2026, 1, 1+int(op>>4)%9, 0, 0, 0, 0, time.UTC))
		case 8:
			w.SetAgent(b)
		case 9:
			_ = w.Close(sum(op), nil)
		case 10:
			sourceTime(w, times[int(op>>4)%len(times)])
		case 11:
			_ = w.Close(sum(op), &Ending{Status: Status([]string{"timeout", "error", a}[int(op>>4)%3]), Reason: a, Message: b})
		case 12:
			for range int(op >> 4) { // many calls, to run into the budget
				w.ToolStart(ToolCall{ID: id, Name: "bulk", Args: rawArgs(args[9])})
				w.ToolEnd(ToolResult{ID: id, Output: texts[7]})
			}
		case 13:
			w.ToolStart(ToolCall{ID: id, Name: b, Args: rawArgs(args[int(op>>4)%len(args)])})
		}
	}
	_ = w.Close(sum(0), nil)
}

// A cost sum that overflowed is kept saturated, with a warning; NaN is
// no figure at all, and is left out.
func TestWriterSaturatesACostJSONCannotHold(t *testing.T) {
	for _, c := range []struct {
		cost float64
		want any
	}{{math.Inf(1), math.MaxFloat64}, {math.Inf(-1), -math.MaxFloat64}, {math.NaN(), nil}} {
		var out bytes.Buffer
		var warned []string
		w := NewWriter(&out, Options{Clock: pinned, Warn: func(m string) { warned = append(warned, m) }})
		require.NoError(t, w.Close(Summary{Status: StatusSuccess, HasCost: true, CostUSD: c.cost}, nil))
		es := entries(t, out.Bytes())
		if c.want == nil {
			assert.NotContains(t, es[1], "cost_usd")
			assert.Empty(t, warned)
			continue
		}
		assert.Equal(t, c.want, es[1]["cost_usd"], "%v", c.cost)
		require.Len(t, warned, 1)
		assert.Contains(t, warned[0], "cost_usd is held")
	}
}

// A saved transcript's init takes the time of the first entry after it,
// so the source's timestamps are kept instead of clamped to the clock.
func TestWriterSavedTakesTheFirstEntrysTime(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: FixedClock(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)), Saved: true, Prompt: "p", HasPrompt: true})
	w.BeginLine()
	w.Meta(Meta{Model: "m", CWD: "/src", Agent: "claude-code"})
	w.Meta(Meta{Model: "second"})
	require.Equal(t, 0, w.Entries(), "init waits for the entry after it")
	w.BeginLine()
	w.SourceTime(at(t, "2026-09-06T17:14:00Z"))
	w.Message(Message{Content: Plain("hi")})
	w.BeginLine() // no timestamp: the source's last
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	assert.Equal(t, "init prompt message complete", types(es))
	assert.Equal(t, "m", es[0]["data"].(map[string]any)["model"])
	for _, e := range es {
		assert.Equal(t, "2026-09-06T17:14:00.000Z", e["ts"])
	}

	// With nothing after it, init is still written, at Close.
	out.Reset()
	w = NewWriter(&out, Options{Clock: pinned, Saved: true})
	w.Meta(Meta{Model: "m"})
	require.NoError(t, w.Close(Summary{}, nil))
	assert.Equal(t, "init complete", types(entries(t, out.Bytes())))
}

// EndOpenTools ends the open calls in the order they started, stacked
// reuses of one id included, as errors with the reason given; IsOpen
// follows them.
func TestWriterEndOpenTools(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	w.Meta(Meta{Model: "m"})
	w.ToolStart(ToolCall{ID: "b", Name: "Bash"})
	w.ToolStart(ToolCall{ID: "a", Name: "Read"})
	w.ToolStart(ToolCall{ID: "b", Name: "Bash"}) // the same id again: stacked
	assert.True(t, w.IsOpen("a"))
	assert.False(t, w.IsOpen("c"))
	w.EndOpenTools(Plain("the run ended"))
	assert.False(t, w.IsOpen("a"))
	assert.Equal(t, 0, w.OpenTools())
	w.EndOpenTools(Plain("again")) // nothing open: nothing written
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	var ends []string
	for _, e := range es {
		if e["type"] == "tool" && e["status"] == "error" {
			ends = append(ends, e["tool_id"].(string)+": "+e["error"].(string))
		}
	}
	assert.Equal(t, []string{"b: the run ended", "a: the run ended", "b#2: the run ended"}, ends)
}

func TestDecimalCountsAsStrconv(t *testing.T) {
	var d decimal
	for n := range 1_200_000 {
		if got := string(d.digits()); got != strconv.Itoa(n) {
			t.Fatalf("%d: got %s", n, got)
		}
		d.inc()
	}
}

// validUTF8 checks an ASCII start with a plain loop: it must give what
// its definition does, with the first byte that is not ASCII anywhere.
func FuzzValidUTF8(f *testing.F) {
	for _, s := range []string{"", "item_12", "item_\xff", "\xffitem", "é", "item_é\xe2\x82", "toolu_01ABCdef€"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := s
		if !utf8.ValidString(s) {
			var b strings.Builder
			for _, r := range s {
				b.WriteRune(r)
			}
			want = b.String()
		}
		if got := validUTF8(s); got != want {
			t.Fatalf("validUTF8(%q) = %q, want %q", s, got, want)
		}
	})
}

// init.data.clock says where the times come from, as known when init is
// written; a saved input's cwd is the stream's or unknown (""), never the
// converter's folder, which only a live run shares.
func TestWriterInitSaysWhereTimesAndCWDComeFrom(t *testing.T) {
	for _, c := range []struct {
		name         string
		saved, stamp bool
		pinned       bool
		clock, cwd   string
	}{
		{"saved, stamped", true, true, false, "source", ""},
		{"saved, no timestamps", true, false, false, "conversion", ""},
		{"live, stamped", false, true, false, "source", "/proc-wd"},
		{"live, no timestamps", false, false, false, "arrival", "/proc-wd"},
		{"live, no timestamps, the clock pinned", false, false, true, "conversion", "/proc-wd"},
		{"live, stamped, the clock pinned", false, true, true, "source", "/proc-wd"},
	} {
		var out bytes.Buffer
		w := NewWriter(&out, Options{Clock: pinned, PinnedClock: c.pinned, Saved: c.saved, DefaultCWD: "/proc-wd"})
		w.BeginLine()
		if c.stamp {
			w.SourceTime(at(t, "2026-09-06T17:14:00Z"))
		}
		w.Meta(Meta{Model: "m"})
		w.Message(Message{Content: Plain("hi")})
		require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
		data := entries(t, out.Bytes())[0]["data"].(map[string]any)
		assert.Equal(t, c.clock, data["clock"], c.name)
		assert.Equal(t, c.cwd, data["cwd"], c.name)
	}
	// The stream's cwd is a fact in either case.
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned, Saved: true, DefaultCWD: "/proc-wd"})
	w.Meta(Meta{CWD: "/src"})
	require.NoError(t, w.Close(Summary{}, nil))
	assert.Equal(t, "/src", entries(t, out.Bytes())[0]["data"].(map[string]any)["cwd"])
}

// On a saved input, an entry written before the source has given any time
// (an untimed notice) is held with init until a line gives one, and takes
// it: the dialog's times are the source's from the first, never the
// conversion's and then the run's, earlier ones.
func TestWriterSavedHoldsUntimedEntriesUntilASourceTime(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: FixedClock(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)), Saved: true})
	w.BeginLine()
	w.Meta(Meta{Model: "m"})
	w.BeginLine() // no timestamp
	w.Message(Message{Content: Plain("⚠ notice")})
	assert.Zero(t, out.Len(), "held until a time is known")
	w.BeginLine()
	w.SourceTime(at(t, "2026-09-06T17:14:00Z"))
	w.Message(Message{Content: Plain("hi")})
	w.BeginLine()
	w.SourceTime(at(t, "2026-09-06T17:15:00Z"))
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	require.Equal(t, "init message message complete", types(es))
	assert.Equal(t, ClockSource, es[0]["data"].(map[string]any)["clock"])
	for i, want := range []string{"2026-09-06T17:14:00.000Z", "2026-09-06T17:14:00.000Z", "2026-09-06T17:14:00.000Z", "2026-09-06T17:15:00.000Z"} {
		assert.Equal(t, want, es[i]["ts"], "entry %d", i)
		assert.EqualValues(t, i, es[i]["seq"])
	}

	// With no time in the whole input, the held entries take the
	// conversion's clock at the end, and init says so.
	out.Reset()
	w = NewWriter(&out, Options{Clock: pinned, Saved: true})
	w.BeginLine()
	w.Message(Message{Content: Plain("a")})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es = entries(t, out.Bytes())
	require.Equal(t, "init message complete", types(es))
	assert.Equal(t, ClockConversion, es[0]["data"].(map[string]any)["clock"])
	for _, e := range es {
		assert.Equal(t, "2026-01-02T03:04:05.000Z", e["ts"])
	}

	// The hold is bounded: past maxHeldEntries, they are written with the
	// clock's time, and a later source time does not go back before it.
	out.Reset()
	w = NewWriter(&out, Options{Clock: pinned, Saved: true})
	for range maxHeldEntries {
		w.BeginLine()
		w.Message(Message{Content: Plain("x")})
	}
	assert.NotZero(t, out.Len(), "written once the bound is reached")
	w.BeginLine()
	w.SourceTime(at(t, "2025-01-01T00:00:00Z"))
	w.Message(Message{Content: Plain("late")})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es = entries(t, out.Bytes())
	require.Equal(t, maxHeldEntries+3, len(es), "init, the messages, late, complete")
	assert.Equal(t, ClockConversion, es[0]["data"].(map[string]any)["clock"])
	for _, e := range es {
		assert.Equal(t, "2026-01-02T03:04:05.000Z", e["ts"])
	}

	// A live stream holds nothing: each entry is out when written.
	out.Reset()
	w = NewWriter(&out, Options{Clock: pinned})
	w.BeginLine()
	w.Message(Message{Content: Plain("now")})
	assert.Equal(t, 2, bytes.Count(out.Bytes(), []byte("\n")), "init and the message are out")
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	assert.Equal(t, "init message complete", types(entries(t, out.Bytes())))
}
