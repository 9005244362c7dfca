package cursor

import (
	"errors"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

var errNoToolCall = errors.New("tool_call event without a tool_call object")

// toolCall starts (subtype started) or ends (completed) a call, paired by
// call_id. tool_call holds one member, <kind>ToolCall: {args, result}.
func (a *Adapter) toolCall(ev *event) error {
	var kind []byte
	var body jsonraw.Value
	for m := ev.toolCall.Members(); m.Next(); {
		if m.Value.IsObject() {
			kind, body = m.Key, m.Value
			break
		}
	}
	if body.Bytes() == nil {
		return errNoToolCall
	}
	var args, result jsonraw.Value
	body.Pick([]string{"args", "arguments", "result"}, &args, &args, &result)
	id := ev.callID.Str()
	switch {
	case ev.subtype.Is("started"):
		a.output(ev.modelCallID)
		a.w.ToolStart(dialog.ToolCall{ID: id, Name: toolName(kind, body, args), Args: args})
	case ev.subtype.Is("completed"):
		out, failed := a.resultText(result)
		name := "" // used only for a result of a call never started
		if !a.w.IsOpen(id) {
			name = toolName(kind, body, args)
		}
		a.w.ToolEnd(dialog.ToolResult{ID: id, Output: out, IsError: failed, Name: name})
		a.boundary = true
	default:
		a.w.Skip("", dialog.SkipUnknown)
	}
	return nil
}

// toolName names a call after its kind: shellToolCall is bash, an MCP call
// is mcp__<server>__<tool> (as Codex's), a {"function": {name}} call its
// name; any other <kind>ToolCall is <kind> in snake_case (readToolCall →
// read, updateTodosToolCall → update_todos).
func toolName(kind []byte, body, args jsonraw.Value) string {
	k := strings.TrimSuffix(string(kind), "ToolCall")
	switch k {
	case "shell":
		return "bash"
	case "mcp":
		server, tool := args.Get("providerIdentifier").Str(), args.Get("toolName").Str()
		if server != "" && tool != "" {
			return "mcp__" + server + "__" + tool
		}
		if n := args.Get("name").Str(); n != "" {
			return "mcp__" + n
		}
		return "mcp"
	case "function":
		if n := body.Get("name").Str(); n != "" {
			return n
		}
	}
	return snake(k)
}

// snake turns camelCase into snake_case.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// resultText reads a completed call's result: {success: {…}} is a success
// unless its exit code is not 0 or its MCP isError is set; any other
// member (error, failure, rejected, …) is a failure. No result at all is
// an empty success.
func (a *Adapter) resultText(result jsonraw.Value) (dialog.Text, bool) {
	var success, other jsonraw.Value
	rejected := false
	for m := result.Members(); m.Next(); {
		switch {
		case string(m.Key) == "success":
			success = m.Value
		case string(m.Key) == "isBackground":
		case !other.Exists() && (m.Value.IsObject() || m.Value.IsString()):
			other = m.Value
			rejected = string(m.Key) == "rejected"
		}
	}
	switch {
	case success.Exists():
		return a.outputText(success, false)
	case rejected:
		return a.rejectedText(other), true
	case other.Exists():
		return a.outputText(other, true)
	}
	return dialog.Text{}, false
}

// rejectedText renders a call the CLI refused to run (a hook or the user
// said no): "rejected: " and the reason (or "rejected (no reason given)"
// when it is empty), then every other member of the object, what was
// rejected, as "key: value", one per line. A string value is written as it
// stands (an empty one as ""), any other as compact JSON.
func (a *Adapter) rejectedText(v jsonraw.Value) dialog.Text {
	b := &a.lit
	b.Reset()
	b.Text("rejected")
	if v.IsString() {
		b.Text(": ")
		b.Lit(v.Lit())
		return dialog.Lit(b.Literal())
	}
	switch reason := v.Get("reason"); {
	case !reason.IsString():
	case reason.Lit().IsEmpty():
		b.Text(" (no reason given)") // headless runs without --force reject shell calls so
	default:
		b.Text(": ")
		b.Lit(reason.Lit())
	}
	for m := v.Members(); m.Next(); {
		if string(m.Key) == "reason" && m.Value.IsString() {
			continue // written first
		}
		b.Line()
		b.Lit(m.KeyLit())
		b.Text(": ")
		if m.Value.IsString() && !m.Value.Lit().IsEmpty() {
			b.Lit(m.Value.Lit())
			continue
		}
		a.tmp = jsonraw.AppendCompact(a.tmp[:0], m.Value)
		b.Text(string(a.tmp))
	}
	return dialog.Lit(b.Literal())
}

// outputText renders a result object as text: a shell's stdout and
// stderr (after "[exit code N]" when it failed), a read's content, an MCP
// call's text content, a message, files one per line; else the object as
// compact JSON. failed says whether the call failed before the object's
// own flags are read.
func (a *Adapter) outputText(v jsonraw.Value, failed bool) (dialog.Text, bool) {
	if v.IsString() {
		return dialog.Lit(v.Lit()), failed
	}
	var exitCode, stdout, stderr, content, files, text, isError jsonraw.Value
	for m := v.Members(); m.Next(); {
		switch string(m.Key) {
		case "exitCode":
			exitCode = m.Value
		case "stdout":
			stdout = m.Value
		case "stderr":
			stderr = m.Value
		case "content":
			content = m.Value
		case "files":
			files = m.Value
		case "isError":
			isError = m.Value
		case "error", "message", "markdown", "results", "errorMessage":
			if !text.Exists() && m.Value.IsString() {
				text = m.Value
			}
		}
	}
	if adapter.FailureFlag(isError) {
		failed = true
	}
	b := &a.lit
	b.Reset()
	n := 0
	add := func(l jsonraw.Literal) {
		if l.IsEmpty() {
			return
		}
		if n > 0 && !jsonraw.EndsWithNewline(b.Body()) {
			b.Text("\n")
		}
		b.Lit(l)
		n++
	}
	switch {
	case exitCode.Exists() || stdout.Exists() || stderr.Exists():
		if code, ok := exitCode.Integer(); exitCode.Exists() && (!ok || code != 0) {
			failed = true
			if ok {
				adapter.AppendExitCode(b, exitCode)
			} else {
				b.Text("[exit code none]") // Cursor's exitCode is a number or null
			}
			n++
		}
		add(stdout.Lit())
		add(stderr.Lit())
	case content.IsString():
		return dialog.Lit(content.Lit()), failed
	case content.IsArray():
		for e := content.Elements(); e.Next(); {
			t := e.Value.Get("text")
			if t.IsObject() {
				t = t.Get("text") // {"text": {"text": "…"}}
			}
			add(t.Lit())
		}
	case text.Exists():
		return dialog.Lit(text.Lit()), failed
	case files.IsArray():
		for e := files.Elements(); e.Next(); {
			add(e.Value.Lit())
		}
	default:
		a.tmp = jsonraw.AppendCompact(a.tmp[:0], v)
		b.Text(string(a.tmp))
		n++
	}
	if n == 0 {
		return dialog.Text{}, failed
	}
	return dialog.Lit(b.Literal()), failed
}
