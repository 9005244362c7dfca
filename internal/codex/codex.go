// Package codex converts the JSON Lines of `codex exec --json`, in every
// dialect Codex has printed, into dialog entries.
package codex

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// Agent is the init.data.agent value for this format.
const Agent = "codex"

// Detect reports whether obj is a Codex exec event.
func Detect(obj []byte) bool {
	ev := gjson.ParseBytes(obj)
	if t := ev.Get("type").Str; strings.Contains(t, ".") {
		return true
	}
	return ev.Get("msg.type").Exists() || ev.Get("prompt").Exists()
}

// Adapter holds the state of one Codex stream.
type Adapter struct {
	w       *dialog.Writer
	summary dialog.Summary
}

// New returns an Adapter writing to w.
func New(w *dialog.Writer) *Adapter {
	w.SetAgent(Agent)
	return &Adapter{w: w}
}

// Event handles one Codex event.
func (a *Adapter) Event(obj []byte) error {
	ev := gjson.ParseBytes(obj)
	switch ev.Get("type").Str {
	case "thread.started":
		a.w.Meta(dialog.Meta{Agent: Agent})
	case "item.completed":
		item := ev.Get("item")
		switch item.Get("type").Str {
		case "agent_message":
			a.w.Message(dialog.Message{Content: dialog.RawString(item.Get("text").Raw)})
		case "reasoning":
			a.w.Thinking(dialog.RawString(item.Get("text").Raw), "")
		}
	case "turn.completed":
		a.summary.Status = dialog.StatusSuccess
	case "turn.failed":
		a.summary.Status = dialog.StatusError
		a.summary.Message = ev.Get("error.message").Str
	}
	return nil
}

// Summary returns what the complete entry should say.
func (a *Adapter) Summary() dialog.Summary { return a.summary }
