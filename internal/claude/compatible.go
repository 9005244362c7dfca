package claude

import (
	"bytes"

	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Claude-compatible CLIs print Claude Code's stream-json with differences
// of their own, handled here once system/init has named the agent:
//
//   - Qwen Code (qwen -p … --output-format stream-json; init has
//     qwen_code_version): each content block is an assistant line with a
//     message.id of its own, so a turn is a run of main-thread output
//     separated by tool results (as for Codex), not a message.id;
//     input_tokens already counts the cached tokens (it is Gemini's
//     promptTokenCount), so in = input_tokens; a failed result says why in
//     error.message. Its assistant lines are written whole (no
//     message_start snapshot) and text answers keep stop_reason null: the
//     last line of a response carries the response's usage, earlier ones
//     all zeros.
//   - Amp (amp -x --stream-json; init's session_id is a thread id "T-…"):
//     the user's message is echoed as a user line (the prompt, when no
//     --prompt is given); assistant messages have no id, each line is a
//     message of its own (its usage counts in the fallback totals). Amp is
//     untested against a real capture: this follows Amp's documented
//     example.

// setAgent names the agent from system/init.
func (a *Adapter) setAgent(ev *event) {
	switch {
	case ev.qwenVersion.Exists():
		a.agent = AgentQwen
		a.totals.cachedInInput = true
		a.boundary = true
	case bytes.HasPrefix(ev.session.Body(), []byte("T-")):
		a.agent = AgentAmp
	}
}

// countsTurn reports whether a main-thread assistant line starts a new
// turn: its message.id is new (Claude Code), or, for Qwen Code, it is the
// first output after a tool result.
func (a *Adapter) countsTurn(ms *MessageState) bool {
	if a.agent == AgentQwen {
		b := a.boundary
		a.boundary = false
		return b
	}
	if ms.Turn {
		return false
	}
	ms.Turn = true
	return true
}

// echoesPrompt reports whether a user line is the echo of the user's
// message: Amp's main-thread user text.
func (a *Adapter) echoesPrompt(ev *event) bool {
	return a.agent == AgentAmp && ev.parent.IsNull()
}

// parseUsage reads an API usage object, in Claude's meaning (input_tokens
// without the cache).
func (a *Adapter) parseUsage(raw jsonraw.Value) (Usage, bool) {
	u, ok := ParseUsage(raw)
	if ok && a.totals.cachedInInput {
		u = u.withoutCached()
	}
	return u, ok
}

// withoutCached takes the cache reads out of input_tokens that counted
// them.
func (u Usage) withoutCached() Usage {
	u.input = max(u.input-u.cacheRead, 0)
	return u
}

// finalUsage reports whether an assistant line's usage u is its message's
// final count: Claude Code's line has a stop_reason only after the API's
// message_delta; Qwen Code's usage is final whenever it counts anything
// (its all-zero usage, on the lines before the response's last, is no
// count).
func (a *Adapter) finalUsage(stopReason jsonraw.Value, u Usage) bool {
	if stopReason.Str() != "" {
		return true
	}
	return a.agent == AgentQwen && u != (Usage{})
}
