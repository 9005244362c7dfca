package codexrollout

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Tool names in the dialog, as the codex exec --json adapter names the
// same actions.
const (
	toolBash      = "bash"
	toolEdit      = "edit"
	toolWebSearch = "web_search"
)

// toolName names a call in the dialog: Codex's shell tools are bash, its
// apply_patch is edit; every other tool keeps its own name.
func toolName(name string) string {
	switch name {
	case "shell", "exec_command", "shell_command", "container.exec", "local_shell":
		return toolBash
	case "apply_patch":
		return toolEdit
	}
	return name
}

func (a *Adapter) responseItem(p jsonraw.Value) {
	a.stepItems = true // a token_count from now on comes after this item
	typ := p.Get("type").Body()
	switch string(typ) {
	case "message":
		switch string(p.Get("role").Body()) {
		case "assistant":
			a.assistant(p.Get("content"))
		case "user":
			a.userItem(p)
		default:
			a.w.Skip("", SkipRole)
		}
	case "reasoning":
		a.reasoning(p)
	case "function_call":
		a.functionCall(p)
	case "custom_tool_call":
		a.start(callID(p), p.Get("name").Str(), p.Get("input"))
	case "local_shell_call":
		a.start(callID(p), toolBash, p.Get("action"))
	case "web_search_call":
		a.webSearch(p)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		a.callOutput(p)
	case "tool_search_output":
		a.toolSearchOutput(p)
	case "ghost_snapshot", "compaction", "compaction_summary", "other":
		// undo points and the like: nothing to show
		a.w.Skip("", dialog.SkipNoContent)
	default:
		switch {
		case bytes.HasSuffix(typ, []byte("_call_output")):
			a.callOutput(p)
		case bytes.HasSuffix(typ, []byte("_call")) && p.Get("call_id").Exists():
			// A tool of a newer Codex: shown by its type and input.
			args := p.Get("arguments")
			if !args.Exists() {
				args = p.Get("input")
			}
			if !args.Exists() {
				args = p.Get("action")
			}
			a.start(callID(p), strings.TrimSuffix(string(typ), "_call"), args)
		default:
			a.unknownRecord("response_item/" + string(typ))
		}
	}
}

// callID is the id that pairs a call with its output.
func callID(p jsonraw.Value) string {
	if id := p.Get("call_id").Str(); id != "" {
		return id
	}
	return p.Get("id").Str()
}

// assistant writes an assistant message: its output_text parts, joined.
func (a *Adapter) assistant(content jsonraw.Value) {
	if content.IsString() {
		a.message(content.Lit())
		return
	}
	var first jsonraw.Literal
	n := 0
	for e := content.Elements(); e.Next(); {
		l := e.Value.Get("text").Lit()
		if l.IsEmpty() {
			continue
		}
		if n == 0 {
			first = l
		} else {
			if n == 1 {
				a.text.Reset()
				a.text.Lit(first)
			}
			a.text.Text("\n")
			a.text.Lit(l)
		}
		n++
	}
	switch n {
	case 0:
		a.w.Skip("", dialog.SkipEmpty)
	case 1:
		a.message(first)
	default:
		a.message(a.text.Literal())
	}
}

func (a *Adapter) message(l jsonraw.Literal) {
	if l.IsEmpty() {
		a.w.Skip("", dialog.SkipEmpty)
		return
	}
	a.output(true)
	m := dialog.Message{Content: dialog.Lit(l)}
	if a.hasStepUsage { // once per request
		m.Tokens, m.HasTokens, a.hasStepUsage = a.stepUsage, true, false
	}
	a.w.Message(m)
}

// reasoning writes a reasoning item's summary (or, when it has none, its
// text) as one thinking entry; encrypted reasoning has nothing to show.
func (a *Adapter) reasoning(p jsonraw.Value) {
	a.text.Reset()
	n := 0
	for _, key := range []string{"summary", "content"} {
		for e := p.Get(key).Elements(); e.Next(); {
			l := e.Value.Get("text").Lit()
			if l.IsEmpty() {
				continue
			}
			if n > 0 {
				a.text.Text("\n\n")
			}
			a.text.Lit(l)
			n++
		}
		if n > 0 {
			break
		}
	}
	if n == 0 {
		a.w.Skip("", dialog.SkipEncrypted)
		return
	}
	a.output(false)
	a.w.Thinking(dialog.Lit(a.text.Literal()), "")
}

// functionCall starts a call whose arguments are JSON text in a string.
func (a *Adapter) functionCall(p jsonraw.Value) {
	args := p.Get("arguments")
	if args.IsString() {
		a.buf = jsonraw.AppendUnescaped(a.buf[:0], args.Body())
		if v, ok := jsonraw.Parse(a.buf); ok && v.IsObject() {
			args = v
		}
	}
	a.start(callID(p), p.Get("name").Str(), args)
}

// start opens a tool call in the dialog.
func (a *Adapter) start(id, name string, args jsonraw.Value) {
	a.output(false)
	if id == "" {
		id = "call"
	}
	if c := a.open[id]; c != nil {
		a.finish(c, dialog.Plain("the call was made again before it returned"), true)
	}
	c := &call{id: id, name: toolName(name), order: a.order}
	if c.name == "" {
		c.name = "tool"
	}
	a.order++
	a.open[id] = c
	a.w.ToolStart(dialog.ToolCall{ID: id, Name: c.name, Args: args})
}

// finish ends an open call: the model's next output is a new response.
func (a *Adapter) finish(c *call, out dialog.Text, isError bool) {
	delete(a.open, c.id)
	a.w.ToolEnd(dialog.ToolResult{ID: c.id, Output: out, Images: a.images, IsError: isError, Name: c.name})
	a.images = a.images[:0]
	a.boundary = true
}

// webSearch is a call and its result in one item.
func (a *Adapter) webSearch(p jsonraw.Value) {
	id := p.Get("id").Str()
	if id == "" {
		a.search++
		id = "web_search_" + strconv.Itoa(a.search)
	}
	action := p.Get("action")
	var args jsonraw.Value
	if action.IsObject() {
		args = action
	}
	a.start(id, toolWebSearch, args)
	c := a.open[id]
	status := p.Get("status")
	a.finish(c, a.searchText(action), status.Is("failed"))
	// The search ran on the server, inside the response that asked for
	// it: no new response follows.
	a.boundary = false
}

// searchText is what a web search looked for: its query, else its
// queries, or the page it opened or searched.
func (a *Adapter) searchText(action jsonraw.Value) dialog.Text {
	a.text.Reset()
	add := func(l jsonraw.Literal) {
		if !l.IsEmpty() {
			a.text.Line()
			a.text.Lit(l)
		}
	}
	if q := action.Get("query").Lit(); !q.IsEmpty() {
		add(q)
	} else {
		for e := action.Get("queries").Elements(); e.Next(); {
			add(e.Value.Lit())
		}
		add(action.Get("url").Lit())
		add(action.Get("pattern").Lit())
	}
	if a.text.Empty() {
		return dialog.Text{}
	}
	return dialog.Lit(a.text.Literal())
}

// callOutput ends a call with its output.
func (a *Adapter) callOutput(p jsonraw.Value) {
	c := a.outputCall(callID(p))
	o := a.outputText(p.Get("output"))
	if c.hasExit {
		o.code, o.hasCode, o.shown = c.exit, true, o.shown && o.code == c.exit
	}
	isErr := o.failed || c.failed || o.hasCode && o.code != 0
	if isErr && !o.shown && (o.hasCode || c.failed) {
		// The text does not say why the call failed: the reason leads it,
		// so the cap never cuts it off.
		b := &a.join
		b.Reset()
		if o.hasCode {
			b.Text("[exit code " + strconv.FormatInt(o.code, 10) + "]")
		} else {
			b.Text("[failed]")
		}
		if !o.text.IsEmpty() {
			b.Text("\n")
			b.Lit(o.lit)
		}
		o.text = dialog.Lit(b.Literal())
	}
	a.finish(c, o.text, isErr)
}

// outputCall is the open call an output answers. An output whose call is
// not in the file (cut, or replayed away) is shown as a call of its own.
func (a *Adapter) outputCall(id string) *call {
	a.entry()
	c := a.open[id]
	if c == nil {
		c = &call{id: id, name: "tool"}
		if id == "" {
			c.id = "call"
		}
		a.open[c.id] = c
		a.w.ToolStart(dialog.ToolCall{ID: c.id, Name: c.name})
	}
	return c
}

// toolSearchOutput answers a tool_search_call (0.148 on): the tools it
// found, as compact JSON (names, descriptions and schemas: nothing left
// out), or an output text if it has one, or, when the search failed, its
// error.
func (a *Adapter) toolSearchOutput(p jsonraw.Value) {
	c := a.outputCall(callID(p))
	failed := p.Get("status").Is("failed")
	var out dialog.Text
	compact := func(v jsonraw.Value) dialog.Text {
		a.buf = jsonraw.AppendCompact(a.buf[:0], v)
		return dialog.Plain(string(a.buf))
	}
	e, output, tools := p.Get("error"), p.Get("output"), p.Get("tools")
	switch {
	case failed && e.IsString() && !e.Lit().IsEmpty():
		out = dialog.Lit(e.Lit())
	case output.IsString():
		out = dialog.Lit(output.Lit())
	case output.Exists():
		out = compact(output)
	case tools.Exists():
		out = compact(tools)
	case failed:
		out = dialog.Plain("[failed]")
	}
	a.finish(c, out, failed)
}

// callResult is what a call's output says.
type callResult struct {
	text    dialog.Text
	lit     jsonraw.Literal // text, when it is one literal of the input
	code    int64
	hasCode bool
	shown   bool // the text states the code itself (Codex's header)
	failed  bool
}

// outputText reads a call's output: plain text (with Codex's header, which
// may state the exit code), a 0.4x JSON text {"output", "metadata":
// {"exit_code"}}, content parts, or an object with a success flag.
func (a *Adapter) outputText(v jsonraw.Value) (r callResult) {
	switch {
	case v.IsString():
		body := v.Body()
		if len(body) > 2 && body[0] == '{' && body[1] == '\\' {
			a.buf = jsonraw.AppendUnescaped(a.buf[:0], body)
			if inner, ok := jsonraw.Parse(a.buf); ok && inner.IsObject() {
				if o := inner.Get("output"); o.IsString() {
					r.lit = o.Lit()
					r.text = dialog.Lit(r.lit)
					r.code, r.hasCode = inner.Get("metadata").Get("exit_code").Integer()
					return r
				}
			}
		}
		r.lit = v.Lit()
		r.text = dialog.Lit(r.lit)
		r.code, r.hasCode = exitCodeIn(body)
		r.shown = r.hasCode
	case v.IsArray():
		r.text = a.parts(v)
		r.lit = a.text.Literal()
	case v.IsObject():
		r.failed = !adapter.SuccessFlag(v.Get("success"))
		if c := v.Get("content"); c.IsString() {
			r.lit = c.Lit()
			r.text = dialog.Lit(r.lit)
		} else {
			r.text = a.parts(c)
			r.lit = a.text.Literal()
		}
	}
	return r
}

// parts joins output content parts: texts as they are, an image given
// as a base64 data: URL to a.images (the writer carries it or names it),
// any other image as a placeholder (never fetched).
func (a *Adapter) parts(v jsonraw.Value) dialog.Text {
	a.text.Reset()
	a.images = a.images[:0]
	for e := v.Elements(); e.Next(); {
		var piece, url jsonraw.Literal
		image := false
		for f := e.Value.Members(); f.Next(); {
			switch string(f.Key) {
			case "text":
				piece = f.Value.Lit()
			case "type":
				image = bytes.Contains(f.Value.Body(), []byte("image"))
			case "image_url":
				url = f.Value.Lit()
			}
		}
		if piece.IsEmpty() && !image {
			continue
		}
		if image && piece.IsEmpty() {
			if img, ok := dialog.ImageFromDataURL(url.Body()); ok {
				a.images = append(a.images, img)
				continue
			}
		}
		a.text.Line()
		if image && piece.IsEmpty() {
			a.text.Text("[image]")
		} else {
			a.text.Lit(piece)
		}
	}
	if a.text.Empty() {
		return dialog.Text{}
	}
	return dialog.Lit(a.text.Literal())
}

// exitCodeIn reads the exit code in the header Codex puts before a tool's
// output (the body of the output literal, escapes kept): "Exit code: N"
// as the first line, or a "Process exited with code N" line before
// "Output:".
func exitCodeIn(body []byte) (int64, bool) {
	head := body
	if i := bytes.Index(head, []byte(`Output:\n`)); i >= 0 {
		head = head[:i]
	} else if len(head) > 512 {
		head = head[:512]
	}
	if rest, ok := bytes.CutPrefix(head, []byte("Exit code: ")); ok {
		return leadingInt(rest)
	}
	const exited = "Process exited with code "
	if i := bytes.Index(head, []byte(exited)); i == 0 || i >= 2 && string(head[i-2:i]) == `\n` {
		return leadingInt(head[i+len(exited):])
	}
	return 0, false
}

// leadingInt reads the integer b starts with.
func leadingInt(b []byte) (int64, bool) {
	end := 0
	if end < len(b) && b[end] == '-' {
		end++
	}
	for end < len(b) && b[end] >= '0' && b[end] <= '9' {
		end++
	}
	n, err := strconv.ParseInt(string(b[:end]), 10, 64)
	return n, err == nil
}
