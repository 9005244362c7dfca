package claude

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// hookLog records what Blocks tells its hook, in order, beside the
// entries the writer wrote (so that Entry is seen to come before each).
type hookLog struct {
	out    *bytes.Buffer
	events []string
}

func (h *hookLog) entries() int { return strings.Count(h.out.String(), "\n") }

func (h *hookLog) Entry() {
	h.events = append(h.events, "entry@"+strconv.Itoa(h.entries()))
}

func (h *hookLog) Block(b jsonraw.Value) {
	if b.IsString() {
		h.events = append(h.events, "block:string")
		return
	}
	h.events = append(h.events, "block:"+b.Get("type").Str())
}

func (h *hookLog) CallStarted(id, name string, _ jsonraw.Value, parent string) {
	h.events = append(h.events, "start:"+id+":"+name+":"+parent)
}

func (h *hookLog) CallEnded(id string, main bool) {
	if main {
		h.events = append(h.events, "end:"+id+":main")
		return
	}
	h.events = append(h.events, "end:"+id)
}

func parse(t *testing.T, s string) jsonraw.Value {
	t.Helper()
	v, ok := jsonraw.Parse([]byte(s))
	require.True(t, ok, "not JSON: %s", s)
	return v
}

// TestBlocksHook: the hook hears of every fresh block, of each entry
// before it is written, and of calls started and ended, with whether the
// call is the main thread's; duplicates and empty blocks write nothing
// and tell it nothing but the block.
func TestBlocksHook(t *testing.T) {
	var out bytes.Buffer
	var skips []string
	w := dialog.NewWriter(&out, dialog.Options{Clock: adaptertest.Pinned(), DefaultCWD: "/work", MaxText: -1,
		Skipped: func(_, reason string) { skips = append(skips, reason) }})
	w.Meta(dialog.Meta{Model: "m"})
	h := &hookLog{out: &out}
	c := NewBlocks(w, h, 0, new(Parts))
	var ms MessageState

	c.Assistant(parse(t, `[`+text("hi")+`,`+toolUse("t1", "Task", `{}`)+`,`+text("")+`]`), "", &ms, false)
	c.Assistant(parse(t, `[`+text("hi")+`,`+toolUse("s1", "Bash", `{}`)+`]`), "t1", &ms, false)
	c.Assistant(parse(t, `"said"`), "", &ms, false)
	c.ToolResult(parse(t, `{"type":"tool_result","tool_use_id":"s1","content":"ok"}`), jsonraw.Value{}, "t1")
	c.ToolResult(parse(t, `{"type":"tool_result","tool_use_id":"t1","content":"done"}`), jsonraw.Value{}, "")
	c.ToolResult(parse(t, `{"type":"tool_result","tool_use_id":"t1","content":"done"}`), jsonraw.Value{}, "")

	assert.Equal(t, []string{
		"block:text", "entry@1", // init is line 1
		"block:tool_use", "entry@2", "start:t1:Task:",
		"block:text", // empty: no entry
		"block:tool_use", "entry@3", "start:s1:Bash:t1",
		"block:string", "entry@4",
		"end:s1", "entry@5",
		"end:t1:main", "entry@6",
	}, h.events)
	assert.Equal(t, []string{dialog.SkipEmpty, dialog.SkipDuplicate, dialog.SkipDuplicate}, skips)
	assert.False(t, c.Open("t1"))
	assert.True(t, c.Known("t1"))
	assert.False(t, c.Known("t9"))
}

// TestBlocksOpenMain: the open calls of the main thread are those whose
// latest start had no parent and whose results have not all come.
func TestBlocksOpenMain(t *testing.T) {
	var out bytes.Buffer
	w := dialog.NewWriter(&out, dialog.Options{Clock: adaptertest.Pinned(), DefaultCWD: "/work", MaxText: -1})
	w.Meta(dialog.Meta{Model: "m"})
	c := NewBlocks(w, nil, 0, new(Parts))
	var ms MessageState
	c.Assistant(parse(t, `[`+toolUse("a", "Bash", `{}`)+`,`+toolUse("b", "Bash", `{}`)+`]`), "", &ms, false)
	c.Assistant(parse(t, `[`+toolUse("c", "Bash", `{}`)+`]`), "b", &ms, false)
	c.EndTool("a", dialog.Plain("x"), nil, false, "")
	var open []string
	c.OpenMain(func(id string) { open = append(open, id) })
	assert.Equal(t, []string{"b"}, open)
	assert.True(t, c.Open("c"))
}

// TestEmptyTextSkipped: an empty text block is skipped as empty, not
// converted quietly (before the twins were merged, the stream's adapter
// dropped it without a reason; the session's said "empty").
func TestEmptyTextSkipped(t *testing.T) {
	var buf, errBuf bytes.Buffer
	c := dispatch.New(&buf, dialog.Options{Clock: adaptertest.Pinned(), DefaultCWD: "/work", MaxText: -1},
		dispatch.Options{Formats: []adapter.Format{Format()}, Forced: true, Stderr: &errBuf})
	input := initLine + "\n" + asst("msg_1", "", text("")) + "\n" + okResult + "\n"
	require.NoError(t, c.Feed(strings.NewReader(input), "input"))
	require.NoError(t, c.Close(nil))
	acc := c.Accounting()
	assert.Equal(t, 1, acc.Skipped)
	assert.Equal(t, 1, acc.Reasons[dispatch.Skip{Kind: "assistant", Reason: dialog.SkipEmpty}], "%v", acc.Reasons)
}
