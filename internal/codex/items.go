package codex

import (
	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

type phase uint8

const (
	phaseStarted phase = iota
	phaseUpdated
	phaseCompleted
)

// item is the fields of a ThreadItem, read in one pass.
type item struct {
	id, typ, itemType                    jsonraw.Value
	text, message                        jsonraw.Value
	command, output, exitCode, status    jsonraw.Value
	changes                              jsonraw.Value
	server, tool, arguments, result, err jsonraw.Value
	query, action                        jsonraw.Value
	items                                jsonraw.Value
	prompt, receivers, states            jsonraw.Value
}

// parseItem reads the item object raw into it, which is zero.
func parseItem(it *item, raw jsonraw.Value) {
	f := raw.Members()
	for f.Next() {
		v := f.Value
		switch string(f.Key) {
		case "id":
			// The first id: since 0.92 a web_search item carries a second,
			// inner "id" (the raw call id), and item_N comes first in both
			// its started and completed lines.
			if !it.id.Exists() {
				it.id = v
			}
		case "type":
			it.typ = v
		case "item_type":
			it.itemType = v
		case "text":
			it.text = v
		case "message":
			it.message = v
		case "command":
			it.command = v
		case "aggregated_output":
			it.output = v
		case "exit_code":
			it.exitCode = v
		case "status":
			it.status = v
		case "changes":
			it.changes = v
		case "server":
			it.server = v
		case "tool":
			it.tool = v
		case "arguments":
			it.arguments = v
		case "result":
			it.result = v
		case "error":
			it.err = v
		case "query":
			it.query = v
		case "action":
			it.action = v
		case "items":
			it.items = v
		case "prompt":
			it.prompt = v
		case "receiver_thread_ids":
			it.receivers = v
		case "agents_states":
			it.states = v
		}
	}
	if !it.typ.Exists() {
		it.typ = it.itemType // 0.42 and 0.43
	}
}

// item handles item.started, item.updated and item.completed.
func (a *Adapter) item(it *item, ph phase) error {
	k := itemKind(it.typ.Body())
	switch k {
	case kindNone:
		a.w.Skip("", dialog.SkipUnknown) // an item type this converter does not know
		return nil
	case kindMessage, kindReasoning:
		a.active = true
		switch {
		case ph != phaseCompleted:
			a.w.Hold() // its item.completed says it whole
		case k == kindMessage:
			a.message(it.text)
		default:
			a.thinking(it.text)
		}
		return nil
	case kindWarning:
		if ph == phaseCompleted {
			a.warning(it.message)
		} else {
			a.w.Hold()
		}
		return nil
	}
	a.active = true
	c := a.open[string(it.id.Body())]
	id := func() string {
		if c != nil {
			return c.id
		}
		return a.idString(it.id)
	}
	if c != nil && (c.kind != k || ph == phaseStarted) {
		// An open id started again, or used for another kind of item: a
		// new run restarted the ids at item_0 with no thread.started in
		// between. The old call is over.
		a.finish(c, dialog.Plain("the run ended before the tool call finished"), true)
		c = nil
	}
	switch ph {
	case phaseStarted, phaseUpdated:
		switch {
		case c == nil:
			key, args := a.itemArgs(it, k)
			c = a.start(id(), a.itemName(it, k), k, key, args)
		case k == kindTodo:
			a.output()
			a.w.Hold() // the list as it stands is the result of its item.completed
		default:
			a.w.Hold() // an update of an item whose result is all that counts
			return nil
		}
		if k == kindTodo {
			// Each plan update is the model's call; its result goes back at once.
			c.state = append(c.state[:0], it.items.Bytes()...)
			a.result()
		}
	case phaseCompleted:
		if c == nil {
			key, args := a.itemArgs(it, k)
			c = a.start(id(), a.itemName(it, k), k, key, args)
		}
		out, isErr := a.itemResult(it, k, c)
		a.finish(c, out, isErr)
	}
	return nil
}

func (a *Adapter) itemName(it *item, k kind) string {
	switch k {
	case kindCommand:
		return toolBash
	case kindFileChange:
		return toolEdit
	case kindMCP:
		return a.mcpCallName(it.server, it.tool)
	case kindWebSearch:
		return toolWebSearch
	case kindTodo:
		return toolTodo
	case kindCollab:
		if t := it.tool.Str(); t != "" {
			return t
		}
		return toolCollab
	}
	return ""
}

// mcpCallName is mcpName of an item's server and tool, the same string for
// the same pair: a session calls a few tools many times.
func (a *Adapter) mcpCallName(server, tool jsonraw.Value) string {
	// The values' JSON texts, apart by a byte that JSON text never holds.
	a.key = append(append(append(a.key[:0], server.Bytes()...), 0), tool.Bytes()...)
	if s, ok := a.names[string(a.key)]; ok {
		return s
	}
	s := mcpName(server.Str(), tool.Str())
	if len(a.key) > maxKeptLen {
		return s
	}
	if len(a.names) >= maxIDs {
		clear(a.names)
	}
	a.names[string(a.key)] = s
	return s
}

// mcpName names an MCP call as Codex's own rollouts and Claude Code do:
// mcp__<server>__<tool>.
func mcpName(server, tool string) string {
	if server == "" && tool == "" {
		return toolMCP
	}
	return "mcp__" + server + "__" + tool
}

// itemArgs is the call's args: one field of the item, to be written as
// {key: field}, or (key "") an object, built in a.args and borrowed from it.
func (a *Adapter) itemArgs(it *item, k kind) (key string, args jsonraw.Value) {
	var field jsonraw.Value
	switch k {
	case kindCommand:
		key, field = "command", it.command
	case kindFileChange:
		key, field = "changes", it.changes
	case kindTodo:
		key, field = "items", it.items
	case kindMCP:
		if it.arguments.IsNull() {
			return "", jsonraw.Value{}
		}
		return "", it.arguments // an object is written as it is, anything else wrapped
	case kindWebSearch:
		return "", a.searchArgs(it)
	case kindCollab:
		return "", a.collabArgs(it)
	default:
		return "", jsonraw.Value{}
	}
	if field.IsNull() {
		return "", jsonraw.Value{}
	}
	return key, field
}

// searchArgs is a web search's args: its query and action.
func (a *Adapter) searchArgs(it *item) jsonraw.Value {
	// The action of an item.started is a placeholder, {"type":"other"}.
	action := !it.action.IsNull() && !it.action.Get("type").Is("other")
	query := !it.query.Lit().IsEmpty() // a non-empty string, told without decoding it
	if !query && !action {
		return jsonraw.Value{}
	}
	b := &a.args
	b.Reset()
	b.BeginObject()
	if query {
		b.Key("query")
		b.Value(it.query)
	}
	if action {
		b.Key("action")
		b.Value(it.action)
	}
	b.EndObject()
	return b.Result()
}

// collabArgs is a collab call's args: its prompt and receivers.
func (a *Adapter) collabArgs(it *item) jsonraw.Value {
	if it.prompt.IsNull() && it.receivers.IsNull() {
		return jsonraw.Value{}
	}
	b := &a.args
	b.Reset()
	b.BeginObject()
	if !it.prompt.IsNull() {
		b.Key("prompt")
		b.Value(it.prompt)
	}
	if !it.receivers.IsNull() {
		b.Key("receiver_thread_ids")
		b.Value(it.receivers)
	}
	b.EndObject()
	return b.Result()
}

// itemResult is the text and error flag of a completed item. A status of
// the wrong JSON type is a failure.
func (a *Adapter) itemResult(it *item, k kind, c *openCall) (dialog.Text, bool) {
	status := statusOf(it.status)
	failed := status == "failed" || status == "declined" || !it.status.IsNull() && !it.status.IsString()
	switch k {
	case kindCommand:
		return a.commandResult(it.output.Lit(), it.exitCode, status)
	case kindFileChange:
		return a.changeList(it.changes, status, failed), failed
	case kindMCP:
		return a.mcpResult(it.result, it.err, failed)
	case kindWebSearch:
		return a.searchText(it.query, it.action), failed
	case kindTodo:
		items := it.items
		if items.IsNull() {
			items = a.parse(c.state)
		}
		return a.checklist(items), false
	case kindCollab:
		return a.agentStates(it.states), failed
	}
	return dialog.Plain(""), failed
}

// statusOf is an item's status: the string, "" when null or absent, and
// the raw text of a value of another type (which no check takes for a
// success).
func statusOf(v jsonraw.Value) string {
	if v.IsNull() || v.IsString() {
		// Every result reads its status: the usual ones without
		// allocating a copy each time.
		switch string(v.Body()) {
		case "completed":
			return "completed"
		case "failed":
			return "failed"
		case "declined":
			return "declined"
		case "in_progress":
			return "in_progress"
		}
		return v.Str()
	}
	return string(v.Bytes())
}

// commandResult: a command succeeded only when its exit code is the
// integer 0 and its status is completed (or absent). A completed command
// with no exit code was abandoned when its turn ended (Codex ≤ 0.116
// reports it so); failed, declined, a non-zero exit and an exit code that
// is no integer (0.5, "0") are errors. The error text starts with the
// reason, ahead of the output, so the cap never cuts it off.
func (a *Adapter) commandResult(output jsonraw.Literal, exitCode jsonraw.Value, status string) (dialog.Text, bool) {
	code, isInt := exitCode.Integer()
	if isInt && code == 0 && (status == "completed" || status == "") {
		return dialog.Lit(output), false
	}
	a.text.Reset()
	switch {
	case isInt && code != 0, !isInt && !exitCode.IsNull():
		adapter.AppendExitCode(&a.text, exitCode)
	case status == "declined":
		a.text.Text("[declined]")
	case status == "failed":
		a.text.Text("[failed]")
	case isInt:
		a.text.Text("[status ")
		a.text.Text(adapter.ShortRaw([]byte(status)))
		a.text.Text("]")
	default:
		a.text.Text("[no exit code: the command did not finish]")
	}
	if !output.IsEmpty() {
		a.text.Text("\n")
		a.text.Lit(output)
	}
	return dialog.Lit(a.text.Literal()), true
}

// changeList lists a file_change's changes, one "<kind> <path>" a line,
// after "[failed]" (or the status) when the change failed.
func (a *Adapter) changeList(changes jsonraw.Value, status string, failed bool) dialog.Text {
	a.text.Reset()
	if failed {
		a.text.Text("[" + status + "]")
	}
	for e := changes.Elements(); e.Next(); {
		var path, kind jsonraw.Value
		for f := e.Value.Members(); f.Next(); {
			switch string(f.Key) {
			case "path":
				path = f.Value
			case "kind":
				kind = f.Value
				if kind.IsObject() { // newer shapes: {"type": "update", …}
					kind = kind.Get("type")
				}
			}
		}
		a.text.Line()
		if kind.IsString() {
			a.text.Lit(kind.Lit())
		} else {
			a.text.Text("change")
		}
		a.text.Text(" ")
		a.text.Lit(path.Lit())
	}
	return dialog.Lit(a.text.Literal())
}

// mcpResult: the text of result.content (or structured_content when
// there is none), an error when the call failed. A tool that returned
// isError has status failed, error null, and its message in the content.
func (a *Adapter) mcpResult(result, errv jsonraw.Value, failed bool) (dialog.Text, bool) {
	var errMsg jsonraw.Literal
	if errv.IsObject() {
		errMsg = errv.Get("message").Lit()
	} else {
		errMsg = errv.Lit()
	}
	var content, structured jsonraw.Value
	for f := result.Members(); f.Next(); {
		switch string(f.Key) {
		case "content":
			content = f.Value
		case "structured_content", "structuredContent":
			structured = f.Value
		case "isError", "is_error":
			if adapter.FailureFlag(f.Value) {
				failed = true
			}
		}
	}
	isErr := failed || !errMsg.IsEmpty()
	a.text.Reset()
	a.images = a.images[:0]
	if !errMsg.IsEmpty() {
		a.text.Lit(errMsg)
	}
	if content.Exists() {
		a.text.Line()
		a.contentText(content)
	}
	if len(a.text.Body()) == 0 && !structured.IsNull() {
		a.text.Text(string(structured.Bytes()))
	}
	if len(a.text.Body()) == 0 && isErr {
		a.text.Text("failed")
	}
	return dialog.Lit(a.text.Literal()), isErr
}

// contentText appends MCP content blocks as text: text blocks as they
// are, a base64 image to a.images (the writer carries it or names it),
// other media as a short placeholder (never inline base64).
func (a *Adapter) contentText(content jsonraw.Value) {
	first := true
	for e := content.Elements(); e.Next(); {
		if e.Value.IsString() {
			if !first {
				a.text.Text("\n")
			}
			first = false
			a.text.Lit(e.Value.Lit())
			continue
		}
		var kind, text, data, mime, uri, resource jsonraw.Value
		e.Value.Pick([]string{"type", "text", "data", "mimeType", "mime_type", "uri", "resource"},
			&kind, &text, &data, &mime, &mime, &uri, &resource)
		var typ string
		if !text.IsString() {
			typ = kind.Str() // decoded only when the text says it: most content is text
		}
		if typ == "image" && data.IsString() {
			a.images = append(a.images, dialog.Image{Media: mime.Str(), Data: data.Body()})
			continue
		}
		if !first {
			a.text.Text("\n")
		}
		first = false
		switch {
		case text.IsString():
			a.text.Lit(text.Lit())
		case typ == "image" || typ == "audio":
			a.text.Text("[" + typ + " ")
			a.text.Lit(mime.Lit())
			a.text.Text(" ")
			a.text.Int(base64Len(data.Body()))
			a.text.Text(" bytes]")
		case typ == "resource" && resource.IsObject():
			if t := resource.Get("text"); t.IsString() {
				a.text.Lit(t.Lit())
			} else {
				a.text.Text("[resource ")
				a.text.Lit(resource.Get("uri").Lit())
				a.text.Text("]")
			}
		default:
			if typ == "" {
				typ = "content"
			}
			a.text.Text("[" + typ)
			if uri.IsString() {
				a.text.Text(" ")
				a.text.Lit(uri.Lit())
			}
			a.text.Text("]")
		}
	}
}

// base64Len is the decoded size of base64 text.
func base64Len(s []byte) int64 {
	n := int64(len(s)) * 3 / 4
	for i := len(s) - 1; i >= 0 && s[i] == '='; i-- {
		n--
	}
	return max(n, 0)
}

// searchText is what a web search looked for: its query, else what its
// action names (queries, a page, a pattern in a page).
func (a *Adapter) searchText(query, action jsonraw.Value) dialog.Text {
	a.text.Reset()
	if len(query.Body()) > 0 {
		a.text.Lit(query.Lit())
		return dialog.Lit(a.text.Literal())
	}
	for f := action.Members(); f.Next(); {
		switch string(f.Key) {
		case "query", "url", "pattern":
			if len(f.Value.Body()) > 0 {
				if len(a.text.Body()) > 0 {
					a.text.Text(" ")
				}
				a.text.Lit(f.Value.Lit())
			}
		case "queries":
			for e := f.Value.Elements(); e.Next(); {
				a.text.Line()
				a.text.Lit(e.Value.Lit())
			}
		}
	}
	return dialog.Lit(a.text.Literal())
}

// checklist renders todo items ({text, completed}) or legacy plan steps
// ({step, status}) as "[x] done", "[~] in progress", "[ ] to do" lines.
func (a *Adapter) checklist(items jsonraw.Value) dialog.Text {
	a.text.Reset()
	for e := items.Elements(); e.Next(); {
		var text jsonraw.Literal
		mark := "[ ] "
		for f := e.Value.Members(); f.Next(); {
			switch string(f.Key) {
			case "text", "step":
				text = f.Value.Lit()
			case "completed":
				if f.Value.IsTrue() {
					mark = "[x] "
				}
			case "status":
				switch string(f.Value.Body()) {
				case "completed":
					mark = "[x] "
				case "in_progress":
					mark = "[~] "
				}
			}
		}
		a.text.Line()
		a.text.Text(mark)
		a.text.Lit(text)
	}
	return dialog.Lit(a.text.Literal())
}

// agentStates lists a collab call's agents, "<thread id>: <status>[: message]".
func (a *Adapter) agentStates(states jsonraw.Value) dialog.Text {
	a.text.Reset()
	for f := states.Members(); f.Next(); {
		a.text.Line()
		a.text.Lit(f.KeyLit())
		a.text.Text(": ")
		var status, msg jsonraw.Value
		f.Value.Pick([]string{"status", "message"}, &status, &msg)
		a.text.Lit(status.Lit())
		if l := msg.Lit(); !l.IsEmpty() {
			a.text.Text(": ")
			a.text.Lit(l)
		}
	}
	return dialog.Lit(a.text.Literal())
}
