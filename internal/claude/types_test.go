package claude

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Values of the wrong JSON type never become a success or a text: is_error
// is an error unless false, null or absent; a text that is not a string is
// no text.
func TestWrongTypes(t *testing.T) {
	for _, tt := range []struct{ isError, status string }{
		{`"true"`, "error"}, {`"false"`, "error"}, {`1`, "error"}, {`0`, "error"}, {`{}`, "error"}, {`[]`, "error"},
		{`true`, "error"}, {`false`, "success"}, {`null`, "success"}, {``, "success"},
	} {
		field := ""
		if tt.isError != "" {
			field = `,"is_error":` + tt.isError
		}
		es := bodyOf(convertLines(t, initLine, asst("msg_1", "", toolUse("toolu_1", "Bash", `{"command":"ls"}`)),
			toolResult("", `{"tool_use_id":"toolu_1","type":"tool_result","content":"out"`+field+`}`),
			asst("msg_2", "", `{"type":"server_tool_use","id":"srv_1","name":"web_search","input":{"query":"q"}}`),
			asst("msg_2", "", `{"type":"web_search_tool_result","tool_use_id":"srv_1","content":[]`+field+`}`), okResult))
		require.Len(t, es, 4)
		assert.Equal(t, tt.status, es[1]["status"], "tool_result is_error %s", tt.isError)
		assert.Equal(t, tt.status, es[3]["status"], "server tool result is_error %s", tt.isError)

		// The result event: is_error decides; null or absent leave it to the subtype.
		res := `{"type":"result","subtype":"success","duration_ms":1` + field + `}`
		c := completeOf(t, convertLines(t, initLine, asst("msg_1", "", text("hi")), res))
		assert.Equal(t, tt.status, c["status"], "result is_error %s", tt.isError)
	}
	c := completeOf(t, convertLines(t, initLine, `{"type":"result","subtype":"error_during_execution","is_error":null,"duration_ms":1}`))
	assert.Equal(t, "error", c["status"], "is_error null: the subtype decides")

	es := bodyOf(convertLines(t, initLine,
		asst("msg_1", "", `{"type":"text","text":null}`),
		asst("msg_1", "", `{"type":"thinking","thinking":null,"signature":"x"}`),
		asst("msg_1", "", `{"type":"text","text":42}`),
		asst("msg_1", "", text("real")), okResult))
	require.Len(t, es, 1, "a text that is not a string is no entry")
	assert.Equal(t, "real", es[0]["content"])
}

// Totals saturate at the largest int64 instead of wrapping round.
func TestTotalsSaturate(t *testing.T) {
	const big = `5000000000000000000`
	leg := func(index string) string {
		return `{"type":"result","subtype":"success","is_error":false,"duration_ms":` + big + `,"result_index":` + index +
			`,"total_cost_usd":1e308,"modelUsage":{"m":{"inputTokens":` + big + `,"outputTokens":` + big + `,"cacheReadInputTokens":` + big + `}}}`
	}
	c := completeOf(t, convertLines(t, initLine, asst("msg_1", "", text("a")), leg("0"), leg("0")))
	assert.Equal(t, map[string]any{"in": float64(math.MaxInt64), "out": float64(math.MaxInt64), "cache_read": float64(math.MaxInt64)}, c["total_tokens"])
	assert.Equal(t, float64(math.MaxInt64), c["duration_ms"])
	assert.Equal(t, math.MaxFloat64, c["cost_usd"], "1e308 twice is no finite number: held at the largest (the writer warns)")

	// A large but finite sum of legs is kept.
	huge := func(index string) string {
		return `{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"result_index":` + index + `,"total_cost_usd":1e300}`
	}
	c = completeOf(t, convertLines(t, initLine, asst("msg_1", "", text("a")), huge("0"), huge("0")))
	assert.Equal(t, 2e300, c["cost_usd"])

	// Without a result, the per-message usage saturates too.
	u := `"usage":{"input_tokens":` + big + `,"output_tokens":` + big + `}`
	m := func(id string) string {
		return `{"type":"assistant","message":{"model":"m","id":"` + id + `","content":[{"type":"text","text":"x"}],` + u + `}}`
	}
	c = completeOf(t, convertLines(t, initLine, m("a"), m("b")))
	assert.Equal(t, map[string]any{"in": float64(math.MaxInt64), "out": float64(math.MaxInt64)}, c["total_tokens"])
}

// Raw U+2028, U+2029 and U+0085 in the input are written escaped, in every
// kind of text, whether the rest of the line is clean or not.
func TestLineSeparatorsEscaped(t *testing.T) {
	const s = "a\u2028b\u2029c\u0085d"
	long := strings.Repeat("x", 20000) + s
	out, _ := runPipeline(t, strings.Join([]string{initLine,
		asst("msg_1", "", text(s)),
		asst("msg_1", "", thinking(s)),
		asst("msg_1", "", toolUse("toolu_1", "Bash", `{"command":"`+s+`","`+s+`":1}`)),
		toolResult("", `{"tool_use_id":"toolu_1","type":"tool_result","content":"`+long+`"}`),
		okResult}, "\n")+"\n")
	requireValid(t, out)
	for _, r := range []string{"\u2028", "\u2029", "\u0085"} {
		require.NotContains(t, out, r)
	}
	es := bodyOf(decode(t, out))
	require.Len(t, es, 4)
	assert.Equal(t, s, es[0]["content"])
	assert.Equal(t, s, es[1]["content"])
	assert.Equal(t, map[string]any{"command": s, s: float64(1)}, es[2]["args"])
	assert.True(t, strings.HasPrefix(es[3]["result"].(string), "xxx"))
}
