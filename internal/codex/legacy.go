package codex

import (
	"hash/maphash"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// config handles the legacy config-summary line (a flat object in random
// key order, some keys with spaces): the start of a process.
func (a *Adapter) config(obj jsonraw.Value) {
	a.newProcess()
	var model, workdir jsonraw.Value
	obj.Pick([]string{"model", "workdir"}, &model, &workdir)
	a.w.Meta(dialog.Meta{Model: model.Str(), CWD: workdir.Str(), Agent: Agent})
}

// legacyMsg is the fields of a legacy msg, read in one pass.
type legacyMsg struct {
	typ, message, text, callID                  jsonraw.Value
	command, cwd, stdout, stderr, aggregated    jsonraw.Value
	exitCode, changes, success                  jsonraw.Value
	server, tool, arguments, invocation, result jsonraw.Value
	query, plan, explanation                    jsonraw.Value
	info, inputTokens, lastAgentMessage, reason jsonraw.Value
	raw                                         jsonraw.Value // the whole msg
}

// parseLegacy reads the msg object raw into m, which is zero.
func parseLegacy(m *legacyMsg, raw jsonraw.Value) {
	f := raw.Members()
	for f.Next() {
		v := f.Value
		switch string(f.Key) {
		case "type":
			m.typ = v
		case "message":
			m.message = v
		case "text":
			m.text = v
		case "call_id":
			m.callID = v
		case "command":
			m.command = v
		case "cwd":
			m.cwd = v
		case "stdout":
			m.stdout = v
		case "stderr":
			m.stderr = v
		case "aggregated_output":
			m.aggregated = v
		case "exit_code":
			m.exitCode = v
		case "changes":
			m.changes = v
		case "success":
			m.success = v
		case "server":
			m.server = v
		case "tool":
			m.tool = v
		case "arguments":
			m.arguments = v
		case "invocation":
			m.invocation = v
		case "result":
			m.result = v
		case "query":
			m.query = v
		case "plan":
			m.plan = v
		case "explanation":
			m.explanation = v
		case "info":
			m.info = v
		case "input_tokens":
			m.inputTokens = v
		case "last_agent_message":
			m.lastAgentMessage = v
		case "reason":
			m.reason = v
		}
	}
	m.raw = raw
}

// legacy handles one {"id", "msg"} event of Codex 0.8–0.42.
func (a *Adapter) legacy(m *legacyMsg) error {
	switch string(m.typ.Body()) {
	case "task_started":
		a.supersede()
		a.msgSeen = false
		a.active = true
		a.boundary = true
	case "agent_message":
		a.active = true
		a.message(m.message)
	case "agent_reasoning":
		a.active = true
		a.thinking(m.text)
	case "exec_command_begin":
		a.active = true
		a.start(m.callID.Str(), toolBash, kindCommand, "", a.execArgs(m.command, m.cwd))
	case "exec_command_end":
		c := a.legacyCall(m.callID, toolBash, kindCommand)
		out, isErr := a.execResult(m)
		a.finish(c, out, isErr)
	case "patch_apply_begin":
		a.active = true
		c := a.start(m.callID.Str(), toolEdit, kindFileChange, "", a.patchArgs(m.changes))
		c.state = append(c.state[:0], a.patchList(m.changes).Bytes()...)
	case "patch_apply_end":
		c := a.legacyCall(m.callID, toolEdit, kindFileChange)
		out, isErr := a.patchResult(m, c)
		a.finish(c, out, isErr)
	case "mcp_tool_call_begin":
		a.active = true
		server, tool, args := m.server, m.tool, m.arguments
		if m.invocation.IsObject() { // 0.11+
			server, tool, args = m.invocation.Get("server"), m.invocation.Get("tool"), m.invocation.Get("arguments")
		}
		if args.IsNull() {
			args = jsonraw.Value{}
		}
		a.start(m.callID.Str(), mcpName(server.Str(), tool.Str()), kindMCP, "", args)
	case "mcp_tool_call_end":
		server, tool := m.server, m.tool
		if m.invocation.IsObject() {
			server, tool = m.invocation.Get("server"), m.invocation.Get("tool")
		}
		c := a.legacyCall(m.callID, mcpName(server.Str(), tool.Str()), kindMCP)
		out, isErr := a.legacyMCPResult(m.result, m.success)
		a.finish(c, out, isErr)
	case "web_search_begin":
		a.active = true
		a.start(m.callID.Str(), toolWebSearch, kindWebSearch, "", jsonraw.Value{})
	case "web_search_end":
		c := a.legacyCall(m.callID, toolWebSearch, kindWebSearch)
		a.finish(c, a.searchText(m.query, jsonraw.Value{}), false)
	case "plan_update":
		// Each plan_update is one call of the model's update_plan tool.
		a.active = true
		c := a.start(toolPlan, toolPlan, kindNone, "", a.planArgs(m.plan, m.explanation))
		a.finish(c, a.checklist(m.plan), false)
	case "token_count":
		switch {
		case m.info.IsObject(): // 0.31+
			if u := m.info.Get("total_token_usage"); u.IsObject() {
				a.setUsage(Tokens(u))
			}
		case m.inputTokens.Exists(): // ≤ 0.30: the usage itself
			a.setUsage(Tokens(m.raw))
		}
	case "error":
		// Fatal in legacy: the core ends the task after it, and from 0.10
		// the stream just stops (no task_complete). It is the ending, not a
		// warning, unless a later task supersedes it.
		msg := m.message.Str()
		reason := ""
		if strings.TrimSpace(msg) == "Turn interrupted" { // ≤ 0.22's interrupt
			reason = "interrupted"
		}
		if msg == "" {
			msg = "error"
		}
		a.end(dialog.StatusError, msg, reason)
	case "stream_error":
		a.warning(m.message) // a retry notice
	case "turn_aborted":
		reason := m.reason.Str()
		if reason == "" {
			reason = "interrupted"
		}
		a.closeOpen("the turn was aborted before the tool call finished", false)
		a.end(dialog.StatusError, "turn aborted: "+reason, reason)
	case "task_complete":
		if last := m.lastAgentMessage.Lit(); !last.IsEmpty() &&
			(!a.msgSeen || maphash.Bytes(a.seed, last.Body()) != a.lastMsg) {
			a.message(m.lastAgentMessage)
		}
		a.closeOpen("the task completed before the tool call finished", true)
		if a.sum.Status != dialog.StatusError {
			a.end(dialog.StatusSuccess, "", "")
		}
		a.active = false
	default:
		a.w.Skip("", dialog.SkipUnknown)
	}
	return nil
}

// legacyCall returns the open call with the raw id, or starts one for an
// end whose begin the input does not hold.
func (a *Adapter) legacyCall(rawID jsonraw.Value, name string, k kind) *openCall {
	id := rawID.Str()
	if c := a.open[id]; c != nil {
		return c
	}
	return a.start(id, name, k, "", jsonraw.Value{})
}

// execArgs: {"command": argv joined into one shell-quoted line, "cwd"}.
func (a *Adapter) execArgs(command, cwd jsonraw.Value) jsonraw.Value {
	if !command.IsArray() && !command.IsString() && !cwd.IsString() {
		return jsonraw.Value{}
	}
	b := &a.args
	b.Reset()
	b.BeginObject()
	switch {
	case command.IsArray():
		var argv []string
		for e := command.Elements(); e.Next(); {
			argv = append(argv, e.Value.Str())
		}
		b.Key("command")
		b.String(shellJoin(argv))
	case command.IsString():
		b.Key("command")
		b.Value(command)
	}
	if cwd.IsString() {
		b.Key("cwd")
		b.Value(cwd)
	}
	b.EndObject()
	return b.Result()
}

// execResult: aggregated_output when the version has it, else stdout then
// stderr; an error when the exit code is not 0.
func (a *Adapter) execResult(m *legacyMsg) (dialog.Text, bool) {
	out := m.aggregated.Lit()
	if !m.aggregated.IsString() {
		a.join.Reset()
		a.join.Lit(m.stdout.Lit())
		if len(m.stderr.Body()) > 0 {
			if len(a.join.Body()) > 0 && !jsonraw.EndsWithNewline(a.join.Body()) {
				a.join.Text("\n")
			}
			a.join.Lit(m.stderr.Lit())
		}
		out = a.join.Literal()
	}
	return a.commandResult(out, m.exitCode, "") // legacy events have no status
}

// patchKind returns the kind of one legacy change (externally tagged:
// {"add": …}, {"delete": …}, {"update": …}, or a bare "delete" in 0.8) as a
// literal, and its move_path.
func patchKind(v jsonraw.Value) (kind jsonraw.Literal, movePath jsonraw.Value) {
	if v.IsString() {
		return v.Lit(), jsonraw.Value{}
	}
	if f := v.Members(); f.Next() {
		if string(f.Key) == "update" {
			movePath = f.Value.Get("move_path")
		}
		return f.KeyLit(), movePath
	}
	return jsonraw.Literal{}, jsonraw.Value{}
}

// patchArgs: {"changes": [{"path", "kind"[, "move_path"]}]}, as the
// current format's file_change lists them.
func (a *Adapter) patchArgs(changes jsonraw.Value) jsonraw.Value {
	if !changes.IsObject() {
		return jsonraw.Value{}
	}
	b := &a.args
	b.Reset()
	b.BeginObject()
	b.Key("changes")
	b.BeginArray()
	for f := changes.Members(); f.Next(); {
		kind, move := patchKind(f.Value)
		b.BeginObject()
		b.Key("path")
		b.Lit(f.KeyLit())
		b.Key("kind")
		if kind.IsEmpty() {
			b.String("change")
		} else {
			b.Lit(kind)
		}
		if move.IsString() {
			b.Key("move_path")
			b.Value(move)
		}
		b.EndObject()
	}
	b.EndArray()
	b.EndObject()
	return b.Result()
}

// patchList lists the changes, one "<kind> <path>[ -> <new path>]" a line,
// as a literal borrowed from a.join.
func (a *Adapter) patchList(changes jsonraw.Value) jsonraw.Literal {
	a.join.Reset()
	for f := changes.Members(); f.Next(); {
		a.join.Line()
		kind, move := patchKind(f.Value)
		if kind.IsEmpty() {
			a.join.Text("change")
		} else {
			a.join.Lit(kind)
		}
		a.join.Text(" ")
		a.join.Lit(f.KeyLit())
		if move.IsString() {
			a.join.Text(" -> ")
			a.join.Lit(move.Lit())
		}
	}
	return a.join.Literal()
}

// patchResult: the change list on success; on failure what apply_patch
// said (stderr, else stdout), else the list.
func (a *Adapter) patchResult(m *legacyMsg, c *openCall) (dialog.Text, bool) {
	ok := adapter.SuccessFlag(m.success)
	state := a.parse(c.state)
	if ok && !state.Lit().IsEmpty() {
		return dialog.Lit(state.Lit()), false
	}
	for _, s := range []jsonraw.Value{m.stderr, m.stdout, state} {
		if l := s.Lit(); !l.IsEmpty() {
			return dialog.Lit(l), !ok
		}
	}
	return dialog.Plain(""), !ok
}

// legacyMCPResult reads a Rust Result ({"Ok": CallToolResult} or
// {"Err": "message"}), or, before 0.11, the CallToolResult itself next
// to a success flag.
func (a *Adapter) legacyMCPResult(result, success jsonraw.Value) (dialog.Text, bool) {
	failed := !adapter.SuccessFlag(success)
	if result.IsObject() {
		for f := result.Members(); f.Next(); {
			switch string(f.Key) {
			case "Ok":
				return a.mcpResult(f.Value, jsonraw.Value{}, failed)
			case "Err":
				if f.Value.IsString() {
					return a.mcpResult(jsonraw.Value{}, f.Value, true)
				}
				a.text.Reset()
				a.text.Text(string(f.Value.Bytes()))
				return dialog.Lit(a.text.Literal()), true
			}
		}
		return a.mcpResult(result, jsonraw.Value{}, failed)
	}
	return a.mcpResult(jsonraw.Value{}, jsonraw.Value{}, failed)
}

// planArgs: {"explanation", "plan"} of a plan_update, the ones present.
func (a *Adapter) planArgs(plan, explanation jsonraw.Value) jsonraw.Value {
	if explanation.IsNull() && plan.IsNull() {
		return jsonraw.Value{}
	}
	b := &a.args
	b.Reset()
	b.BeginObject()
	if !explanation.IsNull() {
		b.Key("explanation")
		b.Value(explanation)
	}
	if !plan.IsNull() {
		b.Key("plan")
		b.Value(plan)
	}
	b.EndObject()
	return b.Result()
}
