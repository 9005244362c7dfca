// Package gemini reads Gemini CLI's output: --output-format stream-json
// (one event per line, v0.11 on) and --output-format json (one object at
// the end). Its chat files are a format of their own (internal/geminisession).
package gemini

import (
	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Agent is the init.data.agent value for this format.
const Agent = "gemini-cli"

// Format is Gemini CLI's JSON output.
func Format() adapter.Format {
	return adapter.Format{
		Name:          "gemini",
		Title:         "Gemini CLI `--output-format stream-json` or `json` output",
		Agent:         Agent,
		Detect:        Detect,
		New:           func(w *dialog.Writer) adapter.Adapter { return New(w) },
		Commands:      []string{"gemini"},
		ModelFromArgs: modelFromArgs,
	}
}

// Detect says whether an event is Gemini CLI's. Its types (init, message,
// tool_use, tool_result, error, result) are shared with other streams, so
// it is the fields that tell: init with a session_id and a model, messages
// with a role, tool events with tool_id, a result with stats; or the one
// object of --output-format json (response and stats, or a session_id with
// an error, and no type).
func Detect(ev adapter.Event) adapter.Claim {
	var typ, errv, role, toolID, stats, status, session, response, sessionID, part jsonraw.Value
	ev.Pick([]string{"type", "error", "role", "tool_id", "stats", "status", "session_id", "response", "sessionID", "part"},
		&typ, &errv, &role, &toolID, &stats, &status, &session, &response, &sessionID, &part)
	if sessionID.Exists() || part.Exists() {
		return adapter.No // opencode
	}
	switch string(typ.Body()) {
	case "init":
		if session.Exists() {
			return adapter.Yes
		}
	case "message":
		if role.Exists() {
			return adapter.Yes
		}
	case "tool_use", "tool_result":
		if toolID.Exists() {
			return adapter.Yes
		}
	case "result":
		if stats.Exists() && status.Exists() {
			return adapter.Yes
		}
	case "error":
		return adapter.Maybe
	case "":
		if typ.Exists() {
			return adapter.No
		}
		if response.Exists() && stats.Exists() || session.Exists() && errv.IsObject() {
			return adapter.Yes
		}
	}
	return adapter.No
}
