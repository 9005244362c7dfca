package claudesession

import (
	"bytes"
	"errors"
	"strings"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/claude"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

var (
	errNoLine    = errors.New("subagent envelope without a line object")
	errNoMessage = errors.New("no message object")
	errNoContent = errors.New("message.content is neither an array nor a string")
)

// msgKey is the id that groups the lines of one API message: message.id,
// else the line's uuid.
func msgKey(id, uuid jsonraw.Value) string {
	if k := id.Body(); len(k) > 0 {
		return string(k)
	}
	return string(uuid.Body())
}

func (a *Adapter) lookup(key string) *message {
	if key == "" {
		return &message{}
	}
	m := a.msgs[key]
	if m == nil {
		m = &message{}
		a.msgs[key] = m
	}
	return m
}

func (a *Adapter) assistant(l line, parent string) error {
	if !l.message.IsObject() {
		return errNoMessage
	}
	msg := claude.ParseMessage(l.message)
	id, model, content, use, stop := msg.ID, msg.Model, msg.Content, msg.Usage, msg.StopReason
	if !content.IsArray() && !content.IsString() {
		return errNoContent
	}
	main := parent == ""
	apiErr := adapter.FailureFlag(l.apiError) || !l.errv.IsNull()
	synthetic := model.Is("<synthetic>") || apiErr
	if !synthetic && a.model == "" {
		a.model = model.Str()
	}
	key := msgKey(id, l.uuid)
	ms := a.lookup(key)
	final := false // this line's usage is the message's final count
	if !synthetic {
		if u, ok := claude.ParseUsage(use); ok {
			ms.usage.MaxOf(u)
			final = stop.Str() != ""
		}
		if main && !ms.turn {
			ms.turn = true
			a.turns++
		}
	}
	if main {
		if a.last.key != key {
			if len(a.lost) > 0 {
				a.closeLost() // a later answer: the conversation went on past the lost results
			}
			a.last = lastMessage{key: key}
		}
		if s := stop.Str(); s != "" {
			a.last.stop = s
		}
		a.interrupted = false
	}
	if apiErr {
		a.warnings++
	}
	if content.IsString() {
		if ms.blocks.Fresh(a.seed, content) {
			a.entry()
			a.text(dialog.Lit(content.Lit()), parent, ms, final)
			if main && apiErr {
				a.last.apiErr = content.Str()
			}
		} else {
			a.w.Skip("", dialog.SkipDuplicate)
		}
		return nil
	}
	for e := content.Elements(); e.Next(); {
		if !ms.blocks.Fresh(a.seed, e.Value) {
			a.w.Skip("", dialog.SkipDuplicate)
			continue
		}
		if main && e.Value.Get("type").Is("tool_use") {
			a.last.toolUse = true
		}
		if main && apiErr && e.Value.Get("type").Is("text") && a.last.apiErr == "" {
			a.last.apiErr = e.Value.Get("text").Str()
		}
		a.block(e.Value, parent, ms, final)
	}
	return nil
}

// text writes a message entry of API message ms. A line has the message's
// final usage when it has a stop_reason (written after the API's
// message_delta); earlier lines carry the message_start snapshot, whose
// output count is a placeholder. The first entry written from a final
// line carries the usage, once per message.id; others carry none.
func (a *Adapter) text(content dialog.Text, parent string, ms *message, final bool) {
	if content.IsEmpty() {
		return // no entry (the writer would skip it), so nothing to carry
	}
	m := dialog.Message{Content: content, Parent: parent}
	if final && !ms.tokensShown {
		ms.tokensShown = true
		m.Tokens, m.HasTokens = ms.usage.Tokens(), true
	}
	a.w.Message(m)
}

// block converts one content block of an assistant message.
func (a *Adapter) block(b jsonraw.Value, parent string, ms *message, final bool) {
	blk := claude.ParseBlock(b)
	switch string(blk.Type.Body()) {
	case "text":
		if l := blk.Text.Lit(); !l.IsEmpty() {
			a.entry()
			a.text(dialog.Lit(l), parent, ms, final)
		} else {
			a.w.Skip("", dialog.SkipEmpty)
		}
	case "thinking":
		if l := blk.Thinking.Lit(); !l.IsEmpty() {
			a.entry()
			a.w.Thinking(dialog.Lit(l), parent)
		} else {
			a.w.Skip("", dialog.SkipEmpty)
		}
	case "tool_use", "server_tool_use", "mcp_tool_use":
		a.startTool(blk.ID.Str(), blk.Name.Str(), blk.Input, parent)
	case "redacted_thinking":
		// encrypted reasoning: nothing to show
		a.w.Skip("", claude.SkipEncrypted)
	default:
		if blk.IsToolResult() {
			out, failed := a.lit.Result(blk.Content)
			a.endTool(blk.ToolUseID.Str(), out, a.lit.Images(), failed || adapter.FailureFlag(blk.IsError), parent)
		} else {
			a.w.Skip("", claude.SkipBlock)
		}
	}
}

func (a *Adapter) startTool(id, name string, input jsonraw.Value, parent string) {
	a.entry()
	t := a.tools[id]
	if t == nil {
		t = &tool{id: id}
		a.tools[id] = t
	}
	t.open++
	t.main = parent == ""
	if t.main {
		a.openMain++
		if name == "Task" || name == "Agent" {
			a.tasks = append(a.tasks, &task{id: t.id, prompt: promptHash(a.seed, input.Get("prompt"))})
		}
	}
	a.w.ToolStart(dialog.ToolCall{ID: t.id, Name: name, Args: input, Parent: parent})
}

// endTool ends the call id. A second result for a call already ended is a
// duplicate and is dropped; a result for an unknown id is shown on its own.
func (a *Adapter) endTool(id string, out dialog.Text, images []dialog.Image, isError bool, parent string) {
	t := a.tools[id]
	switch {
	case t != nil && t.open > 0:
		t.open--
		if t.main {
			a.openMain--
			a.dropTask(id)
		}
	case t != nil && t.closed:
		a.w.Skip("", dialog.SkipDuplicate)
		return
	case t == nil:
		t = &tool{id: id}
		a.tools[id] = t
	}
	t.closed = true
	a.entry()
	a.w.ToolEnd(dialog.ToolResult{ID: t.id, Output: out, Images: images, IsError: isError, Parent: parent})
}

// dropTask forgets an ended Task call: no sidechain starts for it now.
func (a *Adapter) dropTask(id string) {
	for i, t := range a.tasks {
		if t.id == id {
			a.tasks = append(a.tasks[:i], a.tasks[i+1:]...)
			return
		}
	}
}

// interruptPrefix starts the text Claude Code writes as a user line when
// the user stops a turn.
var interruptPrefix = []byte("[Request interrupted by user")

// notPromptPrefixes start user text that Claude Code writes itself:
// slash commands and their output, shell escapes, hooks, task
// notifications, reminders, the local-command caveat.
var notPromptPrefixes = [][]byte{
	[]byte("<command-name>"),
	[]byte("<command-message>"),
	[]byte("<command-args>"),
	[]byte("<local-command-stdout>"),
	[]byte("<local-command-stderr>"),
	[]byte("<local-command-caveat>"),
	[]byte("<bash-input>"),
	[]byte("<bash-stdout>"),
	[]byte("<bash-stderr>"),
	[]byte("<user-prompt-submit-hook>"),
	[]byte("<task-notification>"),
	[]byte("<system-reminder>"),
	[]byte("Caveat: The messages below were generated by the user while running local commands"),
}

// notPrompt reports whether the body of a user text literal is Claude
// Code's rather than the user's words.
func notPrompt(body []byte) bool {
	body = bytes.TrimLeft(body, " ")
	for _, p := range notPromptPrefixes {
		if bytes.HasPrefix(body, p) {
			return true
		}
	}
	return false
}

func (a *Adapter) user(l line, parent string) error {
	if !l.message.IsObject() {
		return errNoMessage
	}
	content := l.message.Get("content")
	main := parent == ""
	if content.IsString() {
		if main {
			a.userText(l, content.Lit(), nil)
		} else {
			a.w.Skip("", claude.SkipUserText)
		}
		return nil
	}
	if !content.IsArray() {
		return errNoContent
	}
	results := 0
	for e := content.Elements(); e.Next(); {
		if e.Value.Get("type").Is("tool_result") {
			a.toolResult(e.Value, l.toolUseResult, parent)
			results++
		}
	}
	switch {
	case main:
		a.userText(l, jsonraw.Literal{}, &content)
	case results == 0:
		a.w.Skip("", claude.SkipUserText) // a subagent's task text: its call's args show it
	}
	return nil
}

// userText handles what the user said on a main-thread line: a prompt, an
// interruption, or something Claude Code wrote in the user's place.
func (a *Adapter) userText(l line, text jsonraw.Literal, blocks *jsonraw.Value) {
	// Flags read by the rule of error flags: set by anything but false,
	// null or absence.
	if adapter.FailureFlag(l.isMeta) || adapter.FailureFlag(l.compactSummary) || adapter.FailureFlag(l.transcriptOnly) {
		a.w.Skip("", SkipMeta)
		return
	}
	b := &a.lit
	b.Reset()
	a.promptImages = a.promptImages[:0]
	if blocks == nil {
		if bytes.HasPrefix(bytes.TrimLeft(text.Body(), " "), interruptPrefix) {
			a.interrupt()
			return
		}
		if a.slashCommand(text) {
			a.w.Hold() // the prompt as typed, once the next line tells whether it reached the model (commandFate)
			return
		}
		if notPrompt(text.Body()) {
			a.w.Skip("", SkipCLIText)
			return
		}
		b.Add(text)
	} else {
		for e := blocks.Elements(); e.Next(); {
			switch string(e.Value.Get("type").Body()) {
			case "text":
				t := e.Value.Get("text").Lit()
				if bytes.HasPrefix(bytes.TrimLeft(t.Body(), " "), interruptPrefix) {
					a.interrupt()
					return
				}
				if !a.slashCommand(t) && !notPrompt(t.Body()) {
					b.Add(t)
				} else {
					a.w.Skip("", SkipCLIText)
				}
			case "image":
				if img, ok := claude.Base64Image(e.Value.Get("source")); ok {
					a.promptImages = append(a.promptImages, img)
				} else {
					b.AddMedia(e.Value.Get("type").Lit(), e.Value.Get("source"))
				}
			case "document":
				b.AddMedia(e.Value.Get("type").Lit(), e.Value.Get("source"))
			}
		}
	}
	if b.Empty() && len(a.promptImages) == 0 {
		return
	}
	a.prompt(b.Literal())
}

// command is a slash command the user typed: a prompt unless the line
// after it is its output in the CLI (it never reached the model).
type command struct {
	typed string
	ts    time.Time // zero: the line had no timestamp
}

// commandTag is in the user text of a slash command (see claude.SlashCommand).
var commandTag = []byte("<command-name>")

// slashCommand reports whether a user text is a slash command's tags, and
// keeps the command until the next line says whether it reached the model.
func (a *Adapter) slashCommand(text jsonraw.Literal) bool {
	if !bytes.Contains(text.Body(), commandTag) {
		return false
	}
	typed, ok := claude.SlashCommand(text.String())
	if !ok {
		return false
	}
	a.settleCommand(true)
	c := &command{typed: typed}
	if a.hasTS {
		c.ts = a.lineTS
	}
	a.command = c
	return true
}

// localCaveat starts the isMeta line Claude Code writes before a local
// command's lines.
var localCaveat = []string{"<local-command-caveat>", "Caveat: The messages below were generated by the user while running local commands"}

// commandFate decides a kept slash command on the next line of the main
// thread: dropped when the line is the command's output in the CLI
// (/clear, /model, /cost never reach the model), written as the user's
// turn on any other user or assistant line (the expansion, the answer).
func (a *Adapter) commandFate(l line, typ string) {
	if a.command == nil {
		return
	}
	var text string
	switch typ {
	case "user":
		c := l.message.Get("content")
		if c.IsArray() {
			for e := c.Elements(); e.Next(); {
				if e.Value.Get("type").Is("text") {
					c = e.Value.Get("text")
					break
				}
			}
		}
		text = c.Str()
	case "system":
		if !l.subtype.Is("local_command") {
			return // turn durations, hooks: nothing about the command
		}
		text = l.content.Str()
	}
	trimmed := strings.TrimLeft(text, " \n\t")
	for _, p := range localCaveat {
		if strings.HasPrefix(trimmed, p) {
			return
		}
	}
	a.settleCommand(!claude.IsLocalCommandOutput(text))
}

// settleCommand writes the kept slash command as the user's turn, or
// drops it (prompt false).
func (a *Adapter) settleCommand(prompt bool) {
	c := a.command
	if c == nil {
		return
	}
	a.command = nil
	if !prompt {
		return
	}
	v, _ := jsonraw.Parse(jsonraw.AppendQuoted(nil, c.typed))
	a.promptAt(v.Lit(), c.ts, nil)
	if a.hasTS {
		a.w.SourceTime(a.lineTS)
	}
}

// interrupt shows the user stopping a turn.
func (a *Adapter) interrupt() {
	a.notice("interrupted by the user", "")
	a.interrupted = true
}

// prompt writes a user turn said on the current line, or holds it until
// init can name the model.
func (a *Adapter) prompt(l jsonraw.Literal) {
	var ts time.Time
	if a.hasTS {
		ts = a.lineTS
	}
	a.promptAt(l, ts, a.promptImages)
}

// promptAt is prompt for a turn said at ts (zero: unknown).
func (a *Adapter) promptAt(l jsonraw.Literal, ts time.Time, images []dialog.Image) {
	a.interrupted = false
	a.last = lastMessage{}
	if !a.metaDone && a.model == "" && !a.started {
		h := held{lit: append([]byte(nil), l.Bytes()...), ts: ts}
		for _, img := range images {
			h.images = append(h.images, dialog.Image{Media: img.Media, Data: append([]byte(nil), img.Data...)})
		}
		a.waiting = append(a.waiting, h)
		a.w.Hold()
		return
	}
	a.ensureMeta()
	if !ts.IsZero() {
		a.w.SourceTime(ts)
	}
	a.writePrompt(dialog.Lit(l), images)
}

// writePrompt writes a user turn: the first before the body is the task's
// prompt, any other a later turn where it was said.
func (a *Adapter) writePrompt(t dialog.Text, images []dialog.Image) {
	if !a.prompted && !a.body {
		a.prompted = true
		a.w.StreamPromptImages(t, images)
		return
	}
	a.prompted = true
	a.w.UserPromptImages(t, images)
}

// toolResult ends a call from a tool_result block.
func (a *Adapter) toolResult(b, toolUseResult jsonraw.Value, parent string) {
	id, out, isError := a.lit.ToolResult(b, toolUseResult)
	a.endTool(id, out, a.lit.Images(), isError, parent)
}

func (a *Adapter) system(l line, parent string) {
	switch string(l.subtype.Body()) {
	case "compact_boundary":
		a.notice(compactNotice(l.compactMeta), parent)
	case "turn_duration":
		if d, ok := l.durationMS.Int(); ok && parent == "" {
			a.durMS += d
			a.hasDur = true
		}
	case "api_error":
		text := "API error"
		if s := strings.TrimSpace(l.content.Str()); s != "" {
			text += ": " + s
		}
		a.notice(text, parent)
	default:
		a.w.Skip("", dialog.SkipUnknown)
	}
}
