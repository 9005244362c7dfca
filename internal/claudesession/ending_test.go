package claudesession

import (
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// endingOf feeds session lines (user or assistant: "u:" or "a:" and the
// message's content; "e:" an API error message of Claude Code's) to an
// Adapter, each the child of the one before, and returns its Summary.
func endingOf(t *testing.T, lines ...string) dialog.Summary {
	t.Helper()
	w := dialog.NewWriter(io.Discard, dialog.Options{Clock: dialog.FixedClock(time.Unix(0, 0)), DefaultCWD: "/w"})
	a := New(w)
	parent := "null"
	for i, l := range lines {
		uuid := `"00000000-0000-4000-8000-` + strconv.FormatInt(int64(100000000000+i), 10) + `"`
		head := `{"parentUuid":` + parent + `,"isSidechain":false,"sessionId":"s1","cwd":"/w","uuid":` + uuid + `,"timestamp":"2026-02-01T10:00:0` + strconv.Itoa(i%10) + `.000Z",`
		var line string
		switch l[:2] {
		case "u:":
			line = head + `"type":"user","message":{"role":"user","content":` + l[2:] + `}}`
		case "a:":
			line = head + `"type":"assistant","message":{"id":"msg_` + strconv.Itoa(i) + `","model":"claude-opus-5","role":"assistant","stop_reason":null,"content":` + l[2:] + `,"usage":{"input_tokens":1,"output_tokens":1}}}`
		case "e:":
			line = head + `"type":"assistant","isApiErrorMessage":true,"message":{"id":"msg_` + strconv.Itoa(i) + `","model":"<synthetic>","role":"assistant","stop_reason":"stop_sequence","content":` + l[2:] + `}}`
		}
		v, ok := jsonraw.Parse([]byte(line))
		require.True(t, ok, line)
		require.NoError(t, a.Event(adapter.Event{Value: v}))
		parent = uuid
	}
	a.Finish()
	return a.Summary()
}

// TestEndingFromLastMessage: the session's ending is judged by what its
// Blocks hook noted of the main thread's last message. With no stop
// reason (1.0.x, 2.0.x), an answer with a tool call in it did not end the
// turn, even once the call's result came; text alone did. An API error
// message last is an error, with its text, as a string or a text block.
func TestEndingFromLastMessage(t *testing.T) {
	toolThenResult := endingOf(t,
		`u:"list the files"`,
		`a:[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]`,
		`u:[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.go"}]`)
	assert.Equal(t, dialog.Status(""), toolThenResult.Status, "incomplete: the answer to the result never came")

	text := endingOf(t, `u:"hi"`, `a:[{"type":"text","text":"hello"}]`)
	assert.Equal(t, dialog.StatusSuccess, text.Status)

	for _, content := range []string{`"API Error: 529 overloaded"`, `[{"type":"text","text":"API Error: 529 overloaded"}]`} {
		s := endingOf(t, `u:"hi"`, `e:`+content)
		assert.Equal(t, dialog.StatusError, s.Status, content)
		assert.Equal(t, ReasonAPIError, s.Reason, content)
		assert.Equal(t, "API Error: 529 overloaded", s.Message, content)
	}
}
