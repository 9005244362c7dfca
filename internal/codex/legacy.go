package codex

import (
	"hash/maphash"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// config handles the legacy config-summary line (a flat object in random
// key order, some keys with spaces): the start of a process.
func (a *Adapter) config(obj string) {
	a.newProcess()
	var m dialog.Meta
	m.Agent = Agent
	for f := fields(obj); f.next(); {
		switch f.key {
		case "model":
			m.Model = strings.Clone(str(f.val))
		case "workdir":
			m.CWD = strings.Clone(str(f.val))
		}
	}
	a.w.Meta(m)
}

// legacyMsg is the raw fields of a legacy msg, read in one pass.
type legacyMsg struct {
	typ, message, text, callID                  string
	command, cwd, stdout, stderr, aggregated    string
	exitCode, changes, success                  string
	server, tool, arguments, invocation, result string
	query, plan, explanation                    string
	info, inputTokens, lastAgentMessage, reason string
	raw                                         string // the whole msg
}

// parseLegacy reads the msg object at the start of raw (which may run on
// past it) and returns it with its length.
func parseLegacy(raw string) (legacyMsg, int) {
	var m legacyMsg
	f := fields(raw)
	for f.next() {
		v := f.val
		switch f.key {
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
	m.raw = raw[:f.i]
	return m, f.i
}

// legacy handles one {"id", "msg"} event of Codex 0.8–0.42.
func (a *Adapter) legacy(m *legacyMsg) error {
	switch str(m.typ) {
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
		a.start(str(m.callID), toolBash, kindCommand, a.execArgs(m.command, m.cwd))
	case "exec_command_end":
		c := a.legacyCall(m.callID, toolBash, kindCommand)
		out, isErr := a.execResult(m)
		a.finish(c, out, isErr)
	case "patch_apply_begin":
		a.active = true
		c := a.start(str(m.callID), toolEdit, kindFileChange, a.patchArgs(m.changes))
		c.state = strings.Clone(a.patchList(m.changes))
	case "patch_apply_end":
		c := a.legacyCall(m.callID, toolEdit, kindFileChange)
		out, isErr := a.patchResult(m, c)
		a.finish(c, out, isErr)
	case "mcp_tool_call_begin":
		a.active = true
		server, tool, args := m.server, m.tool, m.arguments
		if isObject(m.invocation) { // 0.11+
			server, tool, args = get(m.invocation, "server"), get(m.invocation, "tool"), get(m.invocation, "arguments")
		}
		if isNull(args) {
			args = ""
		}
		a.start(str(m.callID), mcpName(str(server), str(tool)), kindMCP, args)
	case "mcp_tool_call_end":
		server, tool := m.server, m.tool
		if isObject(m.invocation) {
			server, tool = get(m.invocation, "server"), get(m.invocation, "tool")
		}
		c := a.legacyCall(m.callID, mcpName(str(server), str(tool)), kindMCP)
		out, isErr := a.legacyMCPResult(m.result, m.success)
		a.finish(c, out, isErr)
	case "web_search_begin":
		a.active = true
		a.start(str(m.callID), toolWebSearch, kindWebSearch, "")
	case "web_search_end":
		c := a.legacyCall(m.callID, toolWebSearch, kindWebSearch)
		a.finish(c, a.searchText(m.query, ""), false)
	case "plan_update":
		// Each plan_update is one call of the model's update_plan tool.
		a.active = true
		c := a.start(toolPlan, toolPlan, kindNone, a.planArgs(m.plan, m.explanation))
		a.finish(c, a.checklist(m.plan), false)
	case "token_count":
		switch {
		case isObject(m.info): // 0.31+
			if u := get(m.info, "total_token_usage"); isObject(u) {
				a.setUsage(u)
			}
		case m.inputTokens != "": // ≤ 0.30: the usage itself
			a.setUsage(m.raw)
		}
	case "error":
		// Fatal in legacy: the core ends the task after it, and from 0.10
		// the stream just stops (no task_complete). It is the ending, not a
		// warning, unless a later task supersedes it.
		msg := str(m.message)
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
		reason := str(m.reason)
		if reason == "" {
			reason = "interrupted"
		}
		a.closeOpen("the turn was aborted before the tool call finished", false)
		a.end(dialog.StatusError, "turn aborted: "+reason, reason)
	case "task_complete":
		if isString(m.lastAgentMessage) && len(m.lastAgentMessage) > 2 &&
			(!a.msgSeen || maphash.String(a.seed, inner(m.lastAgentMessage)) != a.lastMsg) {
			a.message(m.lastAgentMessage)
		}
		a.closeOpen("the task completed before the tool call finished", true)
		if a.sum.Status != dialog.StatusError {
			a.end(dialog.StatusSuccess, "", "")
		}
		a.active = false
	}
	return nil
}

// legacyCall returns the open call with the raw id, or starts one for an
// end whose begin the input does not hold.
func (a *Adapter) legacyCall(rawID, name string, k kind) *openCall {
	id := str(rawID)
	if c := a.open[id]; c != nil {
		return c
	}
	return a.start(id, name, k, "")
}

// execArgs: {"command": argv joined into one shell-quoted line, "cwd"}.
func (a *Adapter) execArgs(command, cwd string) string {
	b := append(a.args.b[:0], '{')
	switch {
	case strings.HasPrefix(command, "["):
		var argv []string
		for e := elems(command); e.next(); {
			argv = append(argv, str(e.val))
		}
		b = append(b, `"command":`...)
		b = appendQuoted(b, shellJoin(argv))
	case isString(command):
		b = append(append(b, `"command":`...), command...)
	}
	if isString(cwd) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(b, `"cwd":`...), cwd...)
	}
	b = append(b, '}')
	a.args.b = b
	if len(b) == 2 {
		return ""
	}
	return view(b)
}

// execResult: aggregated_output when the version has it, else stdout then
// stderr; an error when the exit code is not 0.
func (a *Adapter) execResult(m *legacyMsg) (dialog.Text, bool) {
	out := m.aggregated
	if !isString(out) {
		a.join.reset()
		a.join.raw(m.stdout)
		if len(inner(m.stderr)) > 0 {
			if a.join.len() > 0 && !endsWithNewline(view(a.join.b[1:])) {
				a.join.plain("\n")
			}
			a.join.raw(m.stderr)
		}
		a.join.text()
		out = view(a.join.b)
	}
	status := "completed"
	if _, ok := integer(m.exitCode); !ok {
		status = ""
	}
	return a.commandResult(out, m.exitCode, status)
}

// patchKind returns the kind of one legacy change (externally tagged:
// {"add": …}, {"delete": …}, {"update": …}, or a bare "delete" in 0.8) as
// the body of a string literal, and its move_path, raw.
func patchKind(v string) (kind, movePath string) {
	if isString(v) {
		return inner(v), ""
	}
	if f := fields(v); f.next() {
		if f.key == "update" {
			movePath = get(f.val, "move_path")
		}
		return f.key, movePath
	}
	return "change", ""
}

// patchArgs: {"changes": [{"path", "kind"[, "move_path"]}]}, as the
// current format's file_change lists them.
func (a *Adapter) patchArgs(changes string) string {
	if !isObject(changes) {
		return ""
	}
	b := append(a.args.b[:0], `{"changes":[`...)
	n := 0
	for f := fields(changes); f.next(); {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		kind, move := patchKind(f.val)
		b = append(b, `{"path":"`...)
		b = append(b, f.key...)
		b = append(b, `","kind":"`...)
		b = append(b, kind...)
		b = append(b, '"')
		if isString(move) {
			b = append(append(b, `,"move_path":`...), move...)
		}
		b = append(b, '}')
	}
	b = append(b, `]}`...)
	a.args.b = b
	return view(b)
}

// patchList lists the changes, one "<kind> <path>[ -> <new path>]" a line,
// as a string literal that aliases a.join.
func (a *Adapter) patchList(changes string) string {
	a.join.reset()
	for f := fields(changes); f.next(); {
		if a.join.len() > 0 {
			a.join.plain("\n")
		}
		kind, move := patchKind(f.val)
		a.join.b = append(a.join.b, kind...)
		a.join.plain(" ")
		a.join.b = append(a.join.b, f.key...)
		if isString(move) {
			a.join.plain(" -> ")
			a.join.raw(move)
		}
	}
	a.join.text()
	return view(a.join.b)
}

// patchResult: the change list on success; on failure what apply_patch
// said (stderr, else stdout), else the list.
func (a *Adapter) patchResult(m *legacyMsg, c *openCall) (dialog.Text, bool) {
	ok := m.success != "false"
	if ok && len(c.state) > 2 {
		return dialog.RawString(c.state), false
	}
	for _, s := range []string{m.stderr, m.stdout, c.state} {
		if isString(s) && len(s) > 2 {
			return dialog.RawString(s), !ok
		}
	}
	return dialog.Plain(""), !ok
}

// legacyMCPResult reads a Rust Result ({"Ok": CallToolResult} or
// {"Err": "message"}), or, before 0.11, the CallToolResult itself next
// to a success flag.
func (a *Adapter) legacyMCPResult(result, success string) (dialog.Text, bool) {
	failed := success == "false"
	if isObject(result) {
		for f := fields(result); f.next(); {
			switch f.key {
			case "Ok":
				return a.mcpResult(f.val, "", failed)
			case "Err":
				if isString(f.val) {
					return a.mcpResult("", f.val, true)
				}
				a.text.reset()
				a.text.plain(f.val)
				return a.text.text(), true
			}
		}
		return a.mcpResult(result, "", failed)
	}
	return a.mcpResult("", "", failed)
}

// planArgs: {"explanation", "plan"} of a plan_update, the ones present.
func (a *Adapter) planArgs(plan, explanation string) string {
	b := append(a.args.b[:0], '{')
	if !isNull(explanation) {
		b = append(append(b, `"explanation":`...), explanation...)
	}
	if !isNull(plan) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(b, `"plan":`...), plan...)
	}
	b = append(b, '}')
	a.args.b = b
	if len(b) == 2 {
		return ""
	}
	return view(b)
}
