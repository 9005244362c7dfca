package opencode

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

func TestModelFromArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--format", "json", "fix it"}, ""},
		{[]string{"run", "-m", "anthropic/claude-sonnet-4-5", "fix it"}, "anthropic/claude-sonnet-4-5"},
		{[]string{"run", "--model", "openai/gpt-5", "--format", "json", "x"}, "openai/gpt-5"},
		{[]string{"run", "--model=openrouter/qwen/qwen3-coder", "x"}, "openrouter/qwen/qwen3-coder"},
		{[]string{"run", "-m=mock/mock-model", "x"}, "mock/mock-model"},
		{[]string{"run", "-m", "a/one", "--model", "b/two", "x"}, "b/two"},  // the later flag wins
		{[]string{"run", "--format", "json", "--", "-m", "not/a-flag"}, ""}, // after --: the message
		{[]string{"run", "-m"}, ""},                                                  // no value
		{[]string{"run", "--format", "json", "use -m provider/model"}, ""},           // one argument, the message
		{[]string{"run", "--agent", "build", "-m", "x/y", "--thinking", "p"}, "x/y"}, // among other flags
	} {
		assert.Equal(t, tc.want, modelFromArgs(tc.args), "%q", tc.args)
	}
}

func TestDetect(t *testing.T) {
	adaptertest.Detects(t, Detect, map[string]adapter.Claim{
		runStep("prt_1"):          adapter.Yes,
		runError("APIError", "x"): adapter.Yes,
		`{"type":"done","timestamp":1,"sessionID":"ses_r","reason":"idle","rejected":[]}`: adapter.Yes,
		busEvent("server.connected", `{}`):                                                adapter.Yes,
		idle("ses_x"):                                                                     adapter.Yes,
		`{"type":"thread.started","thread_id":"t"}`:                                       adapter.No, // Codex: dotted, no properties
		`{"type":"item.completed","item":{"id":"item_0"}}`:                                adapter.No,
		`{"type":"error","message":"x"}`:                                                  adapter.No, // anyone's
		`{"type":"text","part":{}}`:                                                       adapter.No, // no sessionID
		`{"type":"assistant","message":{}}`:                                               adapter.No,
		`{"type":"noDots","properties":{}}`:                                               adapter.No,
	})
}

// The stream's cwd and model reach init: the root session's directory, or
// an assistant message's path.cwd; provider/model.
func TestInitFromTheBus(t *testing.T) {
	d, _ := convertLines(t,
		busEvent("session.created", `{"sessionID":"ses_a","info":{"id":"ses_a","directory":"/srv/repo","time":{"created":1}}}`),
		busEvent("message.updated", `{"sessionID":"ses_a","info":{"id":"msg_u","role":"user","sessionID":"ses_a","model":{"providerID":"anthropic","modelID":"claude-opus-4"}}}`),
		partUpdate("ses_a", `{"id":"prt_u","messageID":"msg_u","sessionID":"ses_a","type":"text","text":"fix the bug"}`),
		busy("ses_a"),
		idle("ses_a"),
	)
	data := d.Entries[0]["data"].(map[string]any)
	assert.Equal(t, "/srv/repo", data["cwd"])
	assert.Equal(t, "anthropic/claude-opus-4", data["model"])
	assert.Equal(t, "opencode", data["agent"])
	assert.Equal(t, "prompt", d.Entries[1].Str("type"))
	assert.Equal(t, "fix the bug", d.Entries[1].Str("content"))

	d, _ = convertLines(t,
		busy("ses_b"),
		busEvent("message.updated", `{"sessionID":"ses_b","info":{"id":"msg_a","role":"assistant","sessionID":"ses_b","providerID":"openai","modelID":"gpt-5","path":{"cwd":"/home/u/p","root":"/"}}}`),
		textPart("ses_b", "msg_a", "prt_t", "hi", true),
		idle("ses_b"),
	)
	data = d.Entries[0]["data"].(map[string]any)
	assert.Equal(t, "/home/u/p", data["cwd"])
	assert.Equal(t, "openai/gpt-5", data["model"])
}

// A part is written when it is final, not before: live, the entry appears
// with the event that finishes it, and deltas write nothing.
func TestPartsAreWrittenWhenFinal(t *testing.T) {
	var buf bytes.Buffer
	w := dialog.NewWriter(&buf, testOptions())
	a := New(w)
	feed := func(line string) int {
		w.BeginLine()
		require.NoError(t, a.Event(adaptertest.Event(t, line)))
		return w.Entries()
	}
	feed(busy("ses_a"))
	feed(stepStart("ses_a", "prt_s"))
	n := feed(textPart("ses_a", "msg_a", "prt_t", "", false))
	assert.Equal(t, n, feed(busEvent("message.part.delta", `{"sessionID":"ses_a","messageID":"msg_a","partID":"prt_t","field":"text","delta":"Hel"}`)))
	assert.Equal(t, n, feed(busEvent("message.part.delta", `{"sessionID":"ses_a","messageID":"msg_a","partID":"prt_t","field":"text","delta":"lo"}`)))
	assert.Greater(t, feed(textPart("ses_a", "msg_a", "prt_t", "Hello", true)), n, "the final update writes the message")
	n = w.Entries()
	assert.Equal(t, n, feed(textPart("ses_a", "msg_a", "prt_t", "Hello", true)), "a repeated final update writes nothing")
	n = feed(toolPart("ses_a", "call_1", "bash", `{"status":"pending","input":{},"raw":""}`))
	m := feed(toolPart("ses_a", "call_1", "bash", `{"status":"running","input":{"command":"ls"},"time":{"start":1796061000200}}`))
	assert.Equal(t, n+1, m, "running starts the call")
	assert.Equal(t, m, feed(toolPart("ses_a", "call_1", "bash", `{"status":"running","input":{"command":"ls"},"metadata":{"output":"a"},"time":{"start":1796061000200}}`)))
	assert.Equal(t, m+1, feed(toolPart("ses_a", "call_1", "bash", `{"status":"completed","input":{"command":"ls"},"output":"a\n","metadata":{"exit":0},"time":{"start":1796061000200,"end":1796061000300}}`)))
	assert.Zero(t, a.parts.len(), "no part left open")
	assert.Empty(t, a.calls, "no call left open")
}

// Deltas are the hot path of the bus: appending one to its open part
// allocates nothing.
func TestDeltaAllocatesNothing(t *testing.T) {
	var buf bytes.Buffer
	w := dialog.NewWriter(&buf, testOptions())
	a := New(w)
	for _, l := range []string{busy("ses_a"), stepStart("ses_a", "prt_s"), textPart("ses_a", "msg_a", "prt_t", "", false)} {
		require.NoError(t, a.Event(adaptertest.Event(t, l)))
	}
	ev := adaptertest.Event(t, busEvent("message.part.delta", `{"sessionID":"ses_a","messageID":"msg_a","partID":"prt_t","field":"text","delta":"x"}`))
	require.NoError(t, a.Event(ev)) // the buffer grows once
	a.parts.byID["prt_t"].text.Reset()
	allocs := testing.AllocsPerRun(100, func() { _ = a.Event(ev) })
	assert.Zero(t, allocs)
}

// What the adapter keeps is bounded by what is open: after a subagent's
// task call ends, nothing of it is left.
func TestStateIsReleased(t *testing.T) {
	_, a := convertLines(t,
		busy("ses_a"),
		stepStart("ses_a", "prt_s"),
		toolPart("ses_a", "call_t", "task", `{"status":"running","input":{"prompt":"p"},"metadata":{"sessionId":"ses_c"},"time":{"start":1796061000000}}`),
		busEvent("session.created", `{"sessionID":"ses_c","info":{"id":"ses_c","parentID":"ses_a"}}`),
		textPart("ses_c", "msg_c", "prt_c1", "", false),
		textPart("ses_c", "msg_c", "prt_c1", "child text", true),
		toolPart("ses_c", "call_c", "bash", `{"status":"completed","input":{"command":"ls"},"output":"","metadata":{"exit":0}}`),
		idle("ses_c"),
		toolPart("ses_a", "call_t", "task", `{"status":"completed","input":{"prompt":"p"},"output":"done","metadata":{"sessionId":"ses_c"}}`),
		busEvent("session.updated", `{"sessionID":"ses_c","info":{"id":"ses_c","parentID":"ses_a"}}`),
		idle("ses_a"),
	)
	assert.Zero(t, a.parts.len())
	assert.Empty(t, a.calls)
	assert.Empty(t, a.children, "the subagent's session is forgotten once its call ended")
}

// Subagent entries carry their task call's id, mapped by the call's
// metadata.sessionId; the subagent's prompt is not repeated; its steps
// count in the tokens but not in the turns.
func TestChildSessionCarriesParent(t *testing.T) {
	d, _ := convertLines(t,
		busy("ses_a"),
		stepStart("ses_a", "prt_s1"),
		toolPart("ses_a", "call_t", "task", `{"status":"running","input":{"prompt":"look"},"metadata":{"sessionId":"ses_c"}}`),
		busEvent("message.updated", `{"sessionID":"ses_c","info":{"id":"msg_cu","role":"user","sessionID":"ses_c"}}`),
		partUpdate("ses_c", `{"id":"prt_cu","messageID":"msg_cu","sessionID":"ses_c","type":"text","text":"look"}`),
		stepStart("ses_c", "prt_cs"),
		textPart("ses_c", "msg_c", "prt_ct", "looked", true),
		partUpdate("ses_c", `{"id":"prt_cf","reason":"stop","messageID":"msg_c","sessionID":"ses_c","type":"step-finish","tokens":{"input":100,"output":10,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0.5}`),
		toolPart("ses_a", "call_t", "task", `{"status":"completed","input":{"prompt":"look"},"output":"looked","metadata":{"sessionId":"ses_c"}}`),
		partUpdate("ses_a", `{"id":"prt_f1","reason":"stop","messageID":"msg_a","sessionID":"ses_a","type":"step-finish","tokens":{"input":7,"output":3,"reasoning":1,"cache":{"read":0,"write":0}},"cost":0.25}`),
		idle("ses_a"),
	)
	assert.Equal(t, []string{"looked"}, d.Messages(), "the child's prompt is not a message")
	msg := d.Of("message")[0]
	assert.Equal(t, "call_t", msg.Str("parent_tool_id"))
	assert.Equal(t, int64(1), d.Complete.Num("turns"), "the child's step is not a turn of the dialog")
	assert.Equal(t, map[string]int64{"in": 107, "out": 14, "reasoning": 1}, d.Tokens())
	assert.InDelta(t, 0.75, d.Complete["cost_usd"], 1e-9)
}

// The type rule for exit codes: anything but an integer 0 is a failure.
func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		exit, head string
		isErr      bool
	}{
		{`0`, "", false},
		{`2`, "[exit code 2]", true},
		{`-1`, "[exit code -1]", true},
		{`null`, "[no exit code: the command was stopped]", true},
		{`"0"`, `[exit code "0"]`, true},
		{`0.5`, "[exit code 0.5]", true},
	} {
		d, _ := convertLines(t,
			runStep("prt_s"),
			runTool("call_x", "bash", `{"status":"completed","input":{"command":"x"},"output":"out","metadata":{"exit":`+tc.exit+`}}`),
			runFinish("prt_f", "stop"),
		)
		r := d.Results()
		require.Len(t, r, 1)
		if !tc.isErr {
			assert.Equal(t, "success", r[0].Str("status"), "exit %s", tc.exit)
			assert.Equal(t, "out", r[0].Text())
			continue
		}
		assert.Equal(t, "error", r[0].Str("status"), "exit %s", tc.exit)
		assert.Equal(t, tc.head+"\nout", r[0].Text(), "exit %s", tc.exit)
	}
	// No metadata.exit: not a shell tool; its result stands.
	d, _ := convertLines(t, runStep("prt_s"), runTool("call_w", "write", `{"status":"completed","input":{},"output":"Wrote file successfully.","metadata":{"exists":false}}`), runFinish("prt_f", "stop"))
	assert.Equal(t, "success", d.Results()[0].Str("status"))
}

// Endings of a run: the last thing decides.
func TestRunEndings(t *testing.T) {
	for _, tc := range []struct {
		name           string
		lines          []string
		status, reason string
		message        string
		warnings       int64
	}{
		{"final step", []string{runStep("s"), runText("t", `"x"`), runFinish("f", "stop")}, "success", "", "", 0},
		{"length: the output-token cap", []string{runStep("s"), runText("t", `"x"`), runFinish("f", "length")}, "error", "max_tokens", `the model's answer stopped at its output-token limit (step_finish reason "length")`, 0},
		{"length, then done", []string{runStep("s"), runFinish("f", "length"), `{"type":"done","timestamp":2,"sessionID":"ses_r","reason":"idle","rejected":[]}`}, "error", "max_tokens", `the model's answer stopped at its output-token limit (step_finish reason "length")`, 0},
		{"content-filter", []string{runStep("s"), runText("t", `"x"`), runFinish("f", "content-filter")}, "error", "refusal", `the model's answer was stopped by its content filter (step_finish reason "content-filter")`, 0},
		{"length, then a step that stops", []string{runStep("s"), runFinish("f", "length"), runStep("s2"), runFinish("f2", "stop")}, "success", "", "", 0},
		{"tool-calls is not", []string{runStep("s"), runText("t", `"x"`), runFinish("f", "tool-calls")}, "error", "incomplete", "the input ended before the agent's final event", 0},
		{"a step after the final one reopens the run", []string{runStep("s"), runFinish("f", "stop"), runStep("s2")}, "error", "incomplete", "the input ended before the agent's final event", 0},
		{"error last", []string{runStep("s"), runFinish("f", "stop"), runError("APIError", "boom")}, "error", "", "APIError: boom", 0},
		{"error then more", []string{runError("APIError", "boom"), runStep("s"), runFinish("f", "stop")}, "success", "", "", 1},
		{"two errors: the first is a warning", []string{runStep("s"), runError("A", "one"), runError("B", "two")}, "error", "", "B: two", 1},
		{"done", []string{runStep("s"), runFinish("f", "tool-calls"), `{"type":"done","timestamp":2,"sessionID":"ses_r","reason":"idle","rejected":[]}`}, "success", "", "", 0},
		{"error then done", []string{runError("APIError", "boom"), `{"type":"done","timestamp":2,"sessionID":"ses_r","reason":"idle"}`}, "error", "", "APIError: boom", 0},
		{"aborted", []string{runStep("s"), runError("MessageAbortedError", "aborted")}, "error", "interrupted", "MessageAbortedError: aborted", 0},
		{"nothing", nil, "error", "incomplete", "the input ended before the agent's final event", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := convertLines(t, tc.lines...)
			assert.Equal(t, tc.status, d.Complete.Str("status"))
			assert.Equal(t, tc.reason, d.Complete.Str("reason"))
			assert.Equal(t, tc.message, d.Complete.Str("message"))
			assert.Equal(t, tc.warnings, d.Complete.Num("warnings"))
			assert.Len(t, d.Warnings(), int(tc.warnings))
		})
	}
}

// text:null is no entry, and an empty text neither; a run line this
// converter does not know is skipped and counted.
func TestRunOddLines(t *testing.T) {
	d, a := convertLines(t,
		runStep("s"),
		runText("t1", `null`),
		runText("t2", `""`),
		runLine("snapshot", `{"id":"p","type":"snapshot"}`),
		runText("t3", `"kept"`),
		runText("t3", `"kept"`), // the same part twice
		runFinish("f", "stop"),
	)
	assert.Equal(t, []string{"kept"}, d.Messages())
	assert.Equal(t, 1, a.Skipped())
	assert.Equal(t, int64(1), d.Complete.Num("turns"))
}

// Bus events of types the converter does not know are skipped and
// counted; those known to carry nothing are not counted.
func TestBusSkipsUnknownTypes(t *testing.T) {
	_, a := convertLines(t,
		busEvent("server.connected", `{}`),
		busEvent("plugin.added", `{"id":"core/x"}`),
		busEvent("server.heartbeat", `{}`),
		busEvent("session.diff", `{"sessionID":"ses_a","diff":[]}`),
		busEvent("brand.new.event", `{"sessionID":"ses_a"}`),
		busEvent("another.one", `{}`),
	)
	assert.Equal(t, 2, a.Skipped())
}

// The root's idle ends the run only once the root has worked; a child's
// idle never does. A repeated idle changes nothing.
func TestBusIdle(t *testing.T) {
	d, _ := convertLines(t, idle("ses_a"))
	assert.Equal(t, "incomplete", d.Complete.Str("reason"), "idle before any work is not the end")

	d, _ = convertLines(t,
		busy("ses_a"),
		busEvent("session.created", `{"sessionID":"ses_c","info":{"id":"ses_c","parentID":"ses_a"}}`),
		busy("ses_c"),
		idle("ses_c"),
	)
	assert.Equal(t, "incomplete", d.Complete.Str("reason"), "a subagent's idle is not the end")

	d, _ = convertLines(t,
		busy("ses_a"),
		busEvent("session.status", `{"sessionID":"ses_a","status":{"type":"idle"}}`),
		idle("ses_a"),
	)
	assert.Equal(t, "success", d.Complete.Str("status"))
}

// A session.error of the root followed by idle is the failure; followed by
// more work, a warning.
func TestBusSessionError(t *testing.T) {
	errEv := busEvent("session.error", `{"sessionID":"ses_a","error":{"name":"ProviderAuthError","data":{"providerID":"x","message":"bad key"}}}`)
	d, _ := convertLines(t, busy("ses_a"), stepStart("ses_a", "s1"), errEv, idle("ses_a"))
	assert.Equal(t, "error", d.Complete.Str("status"))
	assert.Equal(t, "ProviderAuthError: bad key", d.Complete.Str("message"))

	d, _ = convertLines(t, busy("ses_a"), errEv, stepStart("ses_a", "s1"), textPart("ses_a", "m", "t", "ok", true), idle("ses_a"))
	assert.Equal(t, "success", d.Complete.Str("status"))
	assert.Equal(t, []string{dialog.WarningPrefix + "ProviderAuthError: bad key"}, d.Warnings())

	// No sessionID: an error of the server, the run's.
	d, _ = convertLines(t, busy("ses_a"), busEvent("session.error", `{"error":{"name":"UnknownError","data":{"message":"disk full"}}}`), idle("ses_a"))
	assert.Equal(t, "UnknownError: disk full", d.Complete.Str("message"))
}

// Parallel tool calls on the bus, their updates interleaved: each gets one
// start and one result, with its own status.
func TestBusParallelCalls(t *testing.T) {
	d, _ := convertLines(t,
		busy("ses_a"),
		stepStart("ses_a", "s1"),
		toolPart("ses_a", "c1", "bash", `{"status":"pending","input":{}}`),
		toolPart("ses_a", "c2", "bash", `{"status":"pending","input":{}}`),
		toolPart("ses_a", "c1", "bash", `{"status":"running","input":{"command":"a"}}`),
		toolPart("ses_a", "c2", "bash", `{"status":"running","input":{"command":"b"}}`),
		toolPart("ses_a", "c2", "bash", `{"status":"running","input":{"command":"b"},"metadata":{"output":"x"}}`),
		toolPart("ses_a", "c2", "bash", `{"status":"completed","input":{"command":"b"},"output":"x","metadata":{"exit":3}}`),
		toolPart("ses_a", "c1", "bash", `{"status":"completed","input":{"command":"a"},"output":"y","metadata":{"exit":0}}`),
		idle("ses_a"),
	)
	require.Len(t, d.Starts(), 2)
	require.Len(t, d.Results(), 2)
	assert.Equal(t, "c2", d.Results()[0].Str("tool_id"))
	assert.Equal(t, "error", d.Results()[0].Str("status"))
	assert.Equal(t, "[exit code 3]\nx", d.Results()[0].Text())
	assert.Equal(t, "c1", d.Results()[1].Str("tool_id"))
	assert.Equal(t, "success", d.Results()[1].Str("status"))
	assert.Equal(t, int64(1), d.Complete.Num("turns"), "parallel calls are one step")
}

// Token totals saturate: two steps near the largest int64 never wrap to a
// negative total.
func TestTokensSaturate(t *testing.T) {
	step := `{"type":"step_finish","timestamp":1767036061205,"sessionID":"ses_1","part":{"id":"prt_%d","sessionID":"ses_1","messageID":"msg_%d","type":"step-finish","reason":"stop","cost":0,"tokens":{"input":9223372036854775000,"output":9223372036854775000,"reasoning":9223372036854775000,"cache":{"read":9223372036854775000,"write":1}}}}`
	_, a := convertLines(t, fmt.Sprintf(step, 1, 1), fmt.Sprintf(step, 2, 2))
	tok := a.Summary().Tokens
	for _, n := range []int64{tok.In, tok.Out, tok.CacheRead, tok.Reasoning} {
		assert.Equal(t, int64(math.MaxInt64), n)
	}
	assert.Equal(t, int64(2), tok.CacheWrite)
}

// Many text parts left unfinished at once cost work in proportion to
// their number, not its square: the open parts' walks (flushes,
// compactions) visit a bounded number of parts per part, whether the parts
// end by their message, their final update or the session's idle, and
// every part is still written once, in the order it opened.
func TestManyOpenPartsStayLinear(t *testing.T) {
	const n = 5000
	msgEnd := func(msg string) string {
		return busEvent("message.updated", `{"info":{"id":"`+msg+`","role":"assistant","sessionID":"ses_a","time":{"created":1796061000000,"completed":1796061000200}}}`)
	}
	for _, how := range []string{"message", "final", "idle"} {
		var buf bytes.Buffer
		w := dialog.NewWriter(&buf, testOptions())
		a := New(w)
		feed := func(l string) {
			w.BeginLine()
			require.NoError(t, a.Event(adaptertest.Event(t, l)))
		}
		feed(busy("ses_a"))
		feed(stepStart("ses_a", "prt_s"))
		id := func(i int) string { return "prt_" + strconv.Itoa(i) }
		msg := func(i int) string { return "msg_" + strconv.Itoa(i) }
		for i := range n {
			feed(textPart("ses_a", msg(i), id(i), "", false))
			feed(busEvent("message.part.delta", `{"sessionID":"ses_a","messageID":"`+msg(i)+`","partID":"`+id(i)+`","field":"text","delta":"t`+strconv.Itoa(i)+`"}`))
		}
		require.Equal(t, n, a.parts.len())
		for i := range n {
			switch how {
			case "message":
				feed(msgEnd(msg(i)))
			case "final":
				feed(textPart("ses_a", msg(i), id(i), "t"+strconv.Itoa(i), true))
			}
		}
		feed(idle("ses_a"))
		require.NoError(t, w.Close(a.Summary(), nil))
		assert.Zero(t, a.parts.len(), how)
		assert.LessOrEqual(t, a.parts.visits, 6*n, "%s: parts visited (a search of the list per part would be n²/2)", how)
		d := adaptertest.Decoded(t, buf.Bytes())
		got := d.Messages()
		require.Len(t, got, n, how)
		assert.Equal(t, "t0", got[0], how)
		assert.Equal(t, "t"+strconv.Itoa(n-1), got[n-1], how)
	}
}

// On the bus, the root's idle ends the run; a last step cut at the
// output-token cap makes that ending an error, as in a run's lines.
func TestBusLengthEndsInError(t *testing.T) {
	finish := func(id, reason string) string {
		return partUpdate("ses_a", `{"id":"`+id+`","messageID":"msg_a","sessionID":"ses_a","type":"step-finish","reason":"`+reason+`","tokens":{"input":1,"output":1}}`)
	}
	d, _ := convertLines(t, busy("ses_a"), stepStart("ses_a", "prt_s"), textPart("ses_a", "msg_a", "prt_t", "xxxx", true), finish("prt_f", "length"), idle("ses_a"))
	assert.Equal(t, "error", d.Complete.Str("status"))
	assert.Equal(t, "max_tokens", d.Complete.Str("reason"))

	d, _ = convertLines(t, busy("ses_a"), stepStart("ses_a", "prt_s"), finish("prt_f", "length"),
		stepStart("ses_a", "prt_s2"), textPart("ses_a", "msg_b", "prt_t", "done", true), finish("prt_f2", "stop"), idle("ses_a"))
	assert.Equal(t, "success", d.Complete.Str("status"), "work after the cut step: the run went on")
}

// testOptions pin the clock; the cwd is left to the stream.
func testOptions() dialog.Options {
	return dialog.Options{Clock: adaptertest.Pinned(), DefaultCWD: "/default"}
}

// convertLines converts lines as adaptertest.LinesWith does, with
// testOptions, and returns the adapter too, for what it kept.
func convertLines(t *testing.T, lines ...string) (adaptertest.Dialog, *Adapter) {
	t.Helper()
	d := adaptertest.LinesWith(t, Format(), testOptions(), lines...)
	return d, d.Adapter.(*Adapter)
}

// Short builders for bus events.
func busEvent(typ, props string) string {
	return `{"type":"` + typ + `","properties":` + props + `}`
}

func partUpdate(session, part string) string {
	return busEvent("message.part.updated", `{"sessionID":"`+session+`","part":`+part+`}`)
}

func textPart(session, msg, id, text string, end bool) string {
	tm := `{"start":1796061000000}`
	if end {
		tm = `{"start":1796061000000,"end":1796061000100}`
	}
	return partUpdate(session, `{"id":"`+id+`","messageID":"`+msg+`","sessionID":"`+session+`","type":"text","text":"`+text+`","time":`+tm+`}`)
}

func toolPart(session, call, tool, state string) string {
	return partUpdate(session, `{"id":"prt_`+call+`","messageID":"msg_a","sessionID":"`+session+`","type":"tool","tool":"`+tool+`","callID":"`+call+`","state":`+state+`}`)
}

func stepStart(session, id string) string {
	return partUpdate(session, `{"id":"`+id+`","messageID":"msg_a","sessionID":"`+session+`","type":"step-start"}`)
}

func idle(session string) string {
	return busEvent("session.idle", `{"sessionID":"`+session+`"}`)
}

func busy(session string) string {
	return busEvent("session.status", `{"sessionID":"`+session+`","status":{"type":"busy"}}`)
}

// Short builders for run lines.
func runLine(typ, part string) string {
	return `{"type":"` + typ + `","timestamp":1796057776547,"sessionID":"ses_r","part":` + part + `}`
}

func runStep(id string) string {
	return runLine("step_start", `{"id":"`+id+`","messageID":"msg_a","sessionID":"ses_r","type":"step-start"}`)
}

func runFinish(id, reason string) string {
	return runLine("step_finish", `{"id":"`+id+`","reason":"`+reason+`","messageID":"msg_a","sessionID":"ses_r","type":"step-finish","tokens":{"input":1,"output":1,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0}`)
}

func runText(id, text string) string {
	return runLine("text", `{"id":"`+id+`","messageID":"msg_a","sessionID":"ses_r","type":"text","text":`+text+`,"time":{"start":1,"end":2}}`)
}

func runTool(call, tool, state string) string {
	return runLine("tool_use", `{"id":"prt_`+call+`","messageID":"msg_a","sessionID":"ses_r","type":"tool","tool":"`+tool+`","callID":"`+call+`","state":`+state+`}`)
}

func runError(name, msg string) string {
	return `{"type":"error","timestamp":1796057776600,"sessionID":"ses_r","error":{"name":"` + name + `","data":{"message":"` + msg + `"}}}`
}
