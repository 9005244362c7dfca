// Package cursor reads Cursor CLI's --output-format stream-json (and the
// one result object of --output-format json).
package cursor

import (
	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Agent is the init.data.agent value for this format.
const Agent = "cursor-agent"

// Format is Cursor CLI's stream-json output.
func Format() adapter.Format {
	return adapter.Format{
		Name:          "cursor",
		Title:         "Cursor CLI stream-json",
		Agent:         Agent,
		Detect:        Detect,
		New:           func(w *dialog.Writer) adapter.Adapter { return New(w) },
		Commands:      []string{"cursor-agent", "cursor"},
		ModelFromArgs: modelFromArgs,
	}
}

// Detect says whether an event is Cursor's. Its system/init, user,
// assistant and result lines look like Claude Code's (Maybe) unless their
// members say otherwise; thinking and tool_call events, the connection and
// retry events of a run that cannot reach the model, its model_call_id and
// timestamp_ms, and a result with a request_id are its own.
func Detect(ev adapter.Event) adapter.Claim {
	var typ, message jsonraw.Value
	var own, session, claude, apiKeySource, other bool
	for m := ev.Members(); m.Next(); {
		switch string(m.Key) {
		case "type":
			typ = m.Value
		case "message":
			message = m.Value
		case "session_id":
			session = true
		case "model_call_id", "timestamp_ms", "call_id", "request_id":
			own = true
		case "tools", "uuid", "parent_tool_use_id", "num_turns", "total_cost_usd":
			claude = true
		case "apiKeySource":
			apiKeySource = true
		case "subtype", "cwd", "model", "permissionMode":
		default:
			other = true
		}
	}
	if claude {
		return adapter.No
	}
	// Cursor's init has these members and no other (Claude Code's has its
	// tools, uuid or version besides): a run that ends before the model
	// answers (a usage limit, a kill) has no other line of its own.
	if apiKeySource && session && !other && typ.Is("system") && ev.Get("subtype").Is("init") {
		return adapter.Yes
	}
	switch string(typ.Body()) {
	case "thinking", "tool_call", "interaction_query", "connection", "retry":
		if session || own {
			return adapter.Yes
		}
	case "system", "user", "assistant", "result":
		switch {
		case own:
			return adapter.Yes
		case session && (message.IsObject() || !typ.Is("user") && !typ.Is("assistant")):
			return adapter.Maybe
		}
	}
	return adapter.No
}
