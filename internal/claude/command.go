package claude

import (
	"strings"
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
