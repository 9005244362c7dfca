package view_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/view"
)

// TestDrawerLateEntryOfChildlessCall: a background subagent (Claude
// run_in_background) writes its entries after its call's result: they are
// drawn nested under the call (after its end), not as the main agent's.
func TestDrawerLateEntryOfChildlessCall(t *testing.T) {
	d := newDialog()
	d.call("bg", "")
	d.result("bg", "launched")
	d.add(`"type":"message","role":"assistant","content":"from the subagent","parent_tool_id":"bg"`)
	var out bytes.Buffer
	require.NoError(t, view.DrawFrom(&out, strings.NewReader(d.b.String()), nil, 0, view.Options{Width: 80}, view.DefaultHold()))
	assert.Contains(t, out.String(), "│ ◆ assistant\n│   from the subagent", out.String())
}

// TestDrawerReusedToolID: a tool id used twice is drawn as Render draws it,
// whether or not an unrelated call waits before it.
func TestDrawerReusedToolID(t *testing.T) {
	for _, before := range []bool{false, true} {
		d := newDialog()
		if before {
			d.call("w", "")
		}
		d.call("k", "")
		d.result("k", "first")
		d.message("between")
		d.call("k", "")
		d.result("k", "second")
		if before {
			d.result("w", "w done")
		}
		whole, err := dialogread.Read(strings.NewReader(d.b.String()), nil)
		require.NoError(t, err)
		var r, out bytes.Buffer
		require.NoError(t, view.Render(&r, whole, view.Options{Width: 80}))
		require.NoError(t, view.DrawFrom(&out, strings.NewReader(d.b.String()), nil, 0, view.Options{Width: 80}, view.DefaultHold()))
		assert.Equal(t, r.String(), out.String(), "unrelated call waiting before: %v", before)
	}
}

// TestDrawerFarResultClean: a far result under a tiny hold: nothing from the dialog reaches the
// terminal raw (SubagentEnd's path).
func TestDrawerFarResultClean(t *testing.T) {
	d := newDialog()
	d.add(`"type":"tool","tool_id":"a","name":"Ba\u001b]0;x\u0007sh","status":"running","args":{"command":"x"}`)
	for i := range 5 {
		d.message(fmt.Sprintf("m%d", i))
	}
	d.add(`"type":"tool","tool_id":"a","name":"Bash","status":"error","error":"\u001b[2Jboom\r\u202e"`)
	var out bytes.Buffer
	require.NoError(t, view.DrawFrom(&out, strings.NewReader(d.b.String()), nil, 0, view.Options{Width: 80}, view.Hold{Bytes: 1 << 20, Entries: 2}))
	s := out.String()
	for _, c := range []string{"\x1b", "\x07", "\r", "\u202e"} {
		assert.NotContains(t, s, c)
	}
}
