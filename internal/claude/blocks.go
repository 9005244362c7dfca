package claude

import (
	"hash/maphash"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Blocks converts the content of Claude's API messages into entries: an
// assistant line's text, thinking, tool calls and server tool results, and
// the tool_result blocks of user lines. Claude Code's stream (this
// package) and its session files (internal/claudesession) hold the same
// messages, and each of their adapters converts them with one Blocks.
type Blocks struct {
	w     *dialog.Writer
	hook  BlocksHook // nil: nothing to tell
	calls recent[call]
	seed  maphash.Seed
	lit   *Parts // the adapter's own: one buffer, grown to the longest text
}

// BlocksHook is told what Blocks converts, for an adapter that keeps
// state of its own about it: the session files' adapter writes init
// before the first entry, ties inline sidechains to their Task call and
// judges the ending by the main thread's open calls and last message.
type BlocksHook interface {
	// Entry is called before each entry is written.
	Entry()
	// Block is called with each block of an assistant line that was not
	// shown before (the content itself when it is a string), before it is
	// converted.
	Block(b jsonraw.Value)
	// CallStarted is called when a call starts, before its entry.
	CallStarted(id, name string, input jsonraw.Value, parent string)
	// CallEnded is called when a result ends a started call, before its
	// entry; main says the call's latest start had no parent.
	CallEnded(id string, main bool)
}

// call is what Blocks remembers of one tool call id.
type call struct {
	// id is the call's id as first seen (Str copies it out of the line),
	// passed to the writer, which keeps it: one string per call.
	id     string
	open   int32 // starts not yet ended
	closed bool  // a result was seen
	main   bool  // the latest start had no parent
}

// NewBlocks returns a Blocks writing to w that remembers the latest
// maxCalls call ids (0: every one), telling hook (nil: no one). It builds
// tool results in lit, which the adapter may use between calls.
func NewBlocks(w *dialog.Writer, hook BlocksHook, maxCalls int, lit *Parts) *Blocks {
	return &Blocks{w: w, hook: hook, calls: newRecent[call](maxCalls), seed: maphash.MakeSeed(), lit: lit}
}

// MessageState is what an adapter remembers of one API message (one
// message.id, whose blocks may come over several lines).
type MessageState struct {
	Usage  Usage
	Blocks Shown // the blocks shown, to drop repeats
	Turn   bool  // counted as a turn
	// TokensShown: a message entry carried its usage (never twice).
	TokensShown bool
	// Seen: an assistant line had it (the stream's partial messages tell
	// of it before).
	Seen bool
}

// Assistant converts the content of an assistant line of message ms: a
// string, or an array of blocks. Each block is one entry; one that
// repeats, byte for byte, a block shown before for ms is a duplicate.
// final says the line's usage is the message's final count.
func (c *Blocks) Assistant(content jsonraw.Value, parent string, ms *MessageState, final bool) {
	if content.IsString() {
		if !ms.Blocks.Fresh(c.seed, content) {
			c.w.Skip("", dialog.SkipDuplicate)
			return
		}
		if c.hook != nil {
			c.hook.Block(content)
		}
		c.text(content.Lit(), parent, ms, final)
		return
	}
	for e := content.Elements(); e.Next(); {
		if !ms.Blocks.Fresh(c.seed, e.Value) {
			c.w.Skip("", dialog.SkipDuplicate)
			continue
		}
		if c.hook != nil {
			c.hook.Block(e.Value)
		}
		c.block(e.Value, parent, ms, final)
	}
}

// entry is called before an entry is written.
func (c *Blocks) entry() {
	if c.hook != nil {
		c.hook.Entry()
	}
}

// text writes a message entry of API message ms. A line has the message's
// final usage when it has a stop_reason (written after the API's
// message_delta); earlier lines carry the message_start snapshot, whose
// output count is a placeholder. The first entry written from a final
// line carries the usage, once per message.id; others carry none.
func (c *Blocks) text(l jsonraw.Literal, parent string, ms *MessageState, final bool) {
	if l.IsEmpty() {
		c.w.Skip("", dialog.SkipEmpty) // no entry, so no usage carried
		return
	}
	c.entry()
	m := dialog.Message{Content: dialog.Lit(l), Parent: parent}
	if final && !ms.TokensShown {
		ms.TokensShown = true
		m.Tokens, m.HasTokens = ms.Usage.Tokens(), true
	}
	c.w.Message(m)
}

// block converts one content block of an assistant message.
func (c *Blocks) block(b jsonraw.Value, parent string, ms *MessageState, final bool) {
	blk := ParseBlock(b)
	switch string(blk.Type.Body()) {
	case "text":
		c.text(blk.Text.Lit(), parent, ms, final)
	case "thinking":
		// Empty with a signature only (display "omitted"): nothing to show.
		if l := blk.Thinking.Lit(); !l.IsEmpty() {
			c.entry()
			c.w.Thinking(dialog.Lit(l), parent)
		} else {
			c.w.Skip("", dialog.SkipEmpty)
		}
	case "tool_use", "server_tool_use", "mcp_tool_use":
		c.startTool(blk.ID.Str(), blk.Name.Str(), blk.Input, parent)
	case "redacted_thinking":
		// Encrypted reasoning: nothing to show.
		c.w.Skip("", SkipEncrypted)
	default:
		// Results of server tools (web_search_tool_result, …) arrive in the
		// assistant's own content and close their server_tool_use.
		if blk.IsToolResult() {
			out, failed := c.lit.Result(blk.Content)
			c.EndTool(blk.ToolUseID.Str(), out, c.lit.Images(), failed || adapter.FailureFlag(blk.IsError), parent)
		} else {
			c.w.Skip("", SkipBlock)
		}
	}
}

func (c *Blocks) startTool(id, name string, input jsonraw.Value, parent string) {
	c.entry()
	t, ok := c.calls.get(id)
	t.open++
	t.main = parent == ""
	if ok {
		c.calls.set(t.id, t)
	} else {
		t.id = id
		c.calls.put(t.id, t)
	}
	if c.hook != nil {
		c.hook.CallStarted(t.id, name, input, parent)
	}
	c.w.ToolStart(dialog.ToolCall{ID: t.id, Name: name, Args: input, Parent: parent})
}

// ToolResult ends a call from a tool_result block of a user line;
// toolUseResult is the line's own copy of the result (see Parts.ToolResult).
func (c *Blocks) ToolResult(b, toolUseResult jsonraw.Value, parent string) {
	id, out, isError := c.lit.ToolResult(b, toolUseResult)
	c.EndTool(id, out, c.lit.Images(), isError, parent)
}

// EndTool ends the call id, its result out and images after it. A second result for a call already ended is a
// duplicate and is dropped; a result for an unknown id is shown on its own.
func (c *Blocks) EndTool(id string, out dialog.Text, images []dialog.Image, isError bool, parent string) {
	t, ok := c.calls.get(id)
	switch {
	case ok && t.open > 0:
		t.open--
		if c.hook != nil {
			c.hook.CallEnded(t.id, t.main)
		}
	case ok && t.closed:
		c.w.Skip("", dialog.SkipDuplicate)
		return
	}
	t.closed = true
	if ok {
		c.calls.set(t.id, t)
	} else {
		t.id = id
		c.calls.put(t.id, t)
	}
	c.entry()
	c.w.ToolEnd(dialog.ToolResult{ID: t.id, Output: out, Images: images, IsError: isError, Parent: parent})
}

// Known reports whether a call id was started or ended (of those
// remembered).
func (c *Blocks) Known(id string) bool {
	_, ok := c.calls.get(id)
	return ok
}

// Open reports whether call id was started and has not ended.
func (c *Blocks) Open(id string) bool {
	t, ok := c.calls.get(id)
	return ok && t.open > 0
}

// OpenMain calls fn with the id of every open call whose latest start
// had no parent, in no order.
func (c *Blocks) OpenMain(fn func(id string)) {
	c.calls.all(func(t call) {
		if t.main && t.open > 0 {
			fn(t.id)
		}
	})
}
