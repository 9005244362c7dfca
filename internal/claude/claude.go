// Package claude converts Claude Code's --output-format stream-json events
// (and the Agent SDK's message stream, which is the same) into dialog entries.
package claude

import (
	"github.com/tidwall/gjson"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// Agent is the init.data.agent value for this format.
const Agent = "claude-code"

// Detect reports whether obj is a Claude Code stream-json event.
func Detect(obj []byte) bool {
	switch gjson.GetBytes(obj, "type").Str {
	case "system", "assistant", "user", "result", "stream_event":
		return true
	}
	return false
}

// Adapter holds the state of one Claude Code stream.
type Adapter struct {
	w       *dialog.Writer
	summary dialog.Summary
}

// New returns an Adapter writing to w.
func New(w *dialog.Writer) *Adapter {
	w.SetAgent(Agent)
	return &Adapter{w: w}
}

// Event handles one stream-json event.
func (a *Adapter) Event(obj []byte) error {
	ev := gjson.ParseBytes(obj)
	switch ev.Get("type").Str {
	case "system":
		if ev.Get("subtype").Str == "init" {
			a.w.Meta(dialog.Meta{Model: ev.Get("model").Str, CWD: ev.Get("cwd").Str, Agent: Agent})
		}
	case "assistant":
		parent := ev.Get("parent_tool_use_id").Str
		ev.Get("message.content").ForEach(func(_, b gjson.Result) bool {
			switch b.Get("type").Str {
			case "text":
				a.w.Message(dialog.Message{Content: dialog.RawString(b.Get("text").Raw), Parent: parent})
			case "thinking":
				a.w.Thinking(dialog.RawString(b.Get("thinking").Raw), parent)
			case "tool_use", "server_tool_use":
				a.w.ToolStart(dialog.ToolCall{ID: b.Get("id").Str, Name: b.Get("name").Str, Args: b.Get("input").Raw, Parent: parent})
			}
			return true
		})
	case "user":
		ev.Get("message.content").ForEach(func(_, b gjson.Result) bool {
			if b.Get("type").Str == "tool_result" {
				a.w.ToolEnd(dialog.ToolResult{ID: b.Get("tool_use_id").Str, Output: dialog.RawString(b.Get("content").Raw), IsError: b.Get("is_error").Bool()})
			}
			return true
		})
	case "result":
		a.summary.Status = dialog.StatusSuccess
		if ev.Get("is_error").Bool() {
			a.summary.Status = dialog.StatusError
			a.summary.Message = ev.Get("result").Str
		}
	}
	return nil
}

// Summary returns what the complete entry should say.
func (a *Adapter) Summary() dialog.Summary { return a.summary }
