package claude

import (
	"strings"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Slash commands. When the user types a slash command, Claude Code writes
// the user's turn as tags instead of the text typed:
//
//	<command-message>init is analyzing your codebase…</command-message>
//	<command-name>/init</command-name>
//	<command-args>…</command-args>
//
// (in any order, the args tag sometimes absent), then either the command's
// expansion (isMeta, or isSynthetic in the stream: the prompt the model
// reads) or, for a command that runs in the CLI and never reaches the
// model (/clear, /model, /cost, /ide), its output:
//
//	<local-command-stdout>…</local-command-stdout>
//
// Session files (internal/claudesession) and the stream (replayed user
// messages) hold the same lines.

// SlashCommand returns what the user typed for a user text that is a slash
// command's tags: "/name" and, when the args tag holds any, " args". ok is
// false when the text has no <command-name> tag.
func SlashCommand(text string) (typed string, ok bool) {
	name, ok := tagged(text, "command-name")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return "", false
	}
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	args, _ := tagged(text, "command-args")
	if args = strings.TrimSpace(args); args != "" {
		return name + " " + args, true
	}
	return name, true
}

// IsLocalCommandOutput reports whether a user text is the output of a
// command that ran in the CLI (<local-command-stdout> or -stderr): the
// command before it never reached the model.
func IsLocalCommandOutput(text string) bool {
	text = strings.TrimLeft(text, " \n\t")
	return strings.HasPrefix(text, "<local-command-stdout>") || strings.HasPrefix(text, "<local-command-stderr>")
}

// tagged returns the text between <tag> and the first </tag> after it.
func tagged(text, tag string) (string, bool) {
	open, end := "<"+tag+">", "</"+tag+">"
	i := strings.Index(text, open)
	if i < 0 {
		return "", false
	}
	rest := text[i+len(open):]
	j := strings.Index(rest, end)
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

// Command is a slash command the user typed, kept until a later line says
// whether it reached the model: what the user typed (see SlashCommand),
// and when.
type Command struct {
	Typed string
	TS    time.Time // zero: its line had no timestamp
}

// UserText returns the part of a user message's content that says what
// the message is (a slash command's tags, a command's output, a prompt):
// the content when it is a string, else its first text block's text, else
// the content itself.
func UserText(content jsonraw.Value) jsonraw.Value {
	if content.IsArray() {
		for e := content.Elements(); e.Next(); {
			if e.Value.Get("type").Is("text") {
				return e.Value.Get("text")
			}
		}
	}
	return content
}

// SkipLocalCommand is the reason given for a local command's output (/clear,
// /model, /cost): it never reached the model, and neither did its command.
const SkipLocalCommand = "local command output (never reached the model)"

// replayedCommand handles a replayed user message of the main thread
// that is a slash command's tags or a local command's output, and
// reports whether it was one. The command is kept until the next event
// says whether it reached the model; the output drops it.
func (a *Adapter) replayedCommand(content jsonraw.Value) bool {
	text := UserText(content)
	if !text.IsString() {
		return false
	}
	s := text.Str()
	if IsLocalCommandOutput(s) {
		a.settleCommand(false)
		a.w.Skip("", SkipLocalCommand)
		return true
	}
	typed, ok := SlashCommand(s)
	if !ok {
		return false
	}
	a.settleCommand(true)
	a.command = &Command{Typed: typed, TS: a.lineTS}
	a.w.Hold() // the prompt as typed, once the next event tells whether it reached the model
	return true
}

// settleCommand writes the kept slash command as the prompt (unless one is
// known), at its own line's time, or drops it (prompt false).
func (a *Adapter) settleCommand(prompt bool) {
	c := a.command
	if c == nil {
		return
	}
	a.command = nil
	if !prompt || a.prompted {
		return
	}
	a.prompted = true
	if !c.TS.IsZero() {
		a.w.SourceTime(c.TS)
	}
	if a.waitInit {
		a.meta(jsonraw.Value{})
	}
	a.w.StreamPrompt(dialog.Plain(c.Typed))
	// Back to the current line's time.
	a.w.BeginLine()
	if !a.lineTS.IsZero() {
		a.w.SourceTime(a.lineTS)
	}
}

// Finish writes a replayed slash command last in the stream: nothing says
// it stayed in the CLI.
func (a *Adapter) Finish() { a.settleCommand(true) }
