package atif

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// steps converts the steps of one trajectory; parent is the tool call that
// started it when it is a subagent's ("" for the run's own). calls say
// which steps repeat a model call (see repeats.go).
func (a *Adapter) steps(doc jsonraw.Value, parent string, old bool, calls callSteps) {
	main := parent == ""
	var all []jsonraw.Value
	for s := doc.Get("steps").Elements(); s.Next(); {
		all = append(all, s.Value)
	}
	if order := runOrder(doc, all); main && order != nil {
		inOrder, repeat := make([]jsonraw.Value, len(all)), make(map[int]bool, len(calls.repeat))
		for i, from := range order {
			inOrder[i] = all[from]
			if calls.repeat[from] {
				repeat[i] = true
			}
		}
		all, calls.repeat = inOrder, repeat
	}
	// Older terminus-2 files have no user step: the prompt is the first
	// step, a system one.
	systemPrompt := main && !a.prompted && !hasUserStep(all)
	promptAt := -1
	var deferred map[int]bool
	if main {
		promptAt = a.firstPrompt(all)
		deferred = a.planSidechains(all, calls.repeat)
	}
	for i, step := range all {
		if deferred[i] {
			continue // shown under the call that started its subagent
		}
		if t, ok := adapter.Time(step.Get("timestamp")); ok {
			a.w.SourceTime(t)
		}
		if step.Get("is_copied_context").IsTrue() {
			continue // a copy of an earlier trajectory's step, shown there
		}
		sidechain := adapter.FailureFlag(step.Get("extra").Get("is_sidechain"))
		switch step.Get("source").Str() {
		case "user":
			if main && !sidechain && i != promptAt {
				a.userStep(step)
			}
			// A subagent's or sidechain's user step is the prompt its
			// caller gave: the starting call's args show it.
		case "system":
			if systemPrompt && i == 0 {
				a.prompted = true
				a.w.StreamPrompt(messageText(&a.text, step.Get("message")))
			} else {
				a.systemStep(step, parent, old)
			}
		default: // agent, and any source the format may add later
			a.agentStep(step, parent, main && !sidechain, old, calls.repeat[i])
		}
	}
}

// firstPrompt writes the run's task, the first user step that is no
// sidechain's and no copy, before anything else: Claude Code's converter
// put sidechain steps ahead of it. It returns that step's index, or -1.
func (a *Adapter) firstPrompt(all []jsonraw.Value) int {
	if a.prompted {
		return -1
	}
	for i, step := range all {
		if !step.Get("source").Is("user") || step.Get("is_copied_context").IsTrue() || adapter.FailureFlag(step.Get("extra").Get("is_sidechain")) {
			continue
		}
		t := messageText(&a.text, step.Get("message"))
		if t.IsEmpty() {
			continue
		}
		if ts, ok := adapter.Time(step.Get("timestamp")); ok {
			a.w.SourceTime(ts)
		}
		a.prompted = true
		a.w.StreamPrompt(t)
		return i
	}
	return -1
}

// sidechainStep is a sidechain step shown under the call that started its
// subagent; repeat says it repeats the model call of the step before it
// in the file.
type sidechainStep struct {
	step   jsonraw.Value
	repeat bool
}

// planSidechains finds the call each run of sidechain steps belongs to.
// Claude Code's sidechain steps name no call: a run of them belongs to the
// last Task (Agent) call started at or before its first step's time. They
// are then shown under that call, between its start and its result
// (a.sidechains); a run that no call precedes (Claude Code's warm-up
// exchanges) stays where it is.
func (a *Adapter) planSidechains(all []jsonraw.Value, repeat map[int]bool) map[int]bool {
	type task struct {
		id, prompt string
		at         int64 // 0: no time
		taken      bool  // a run was matched to it by its prompt
	}
	var tasks []task
	for _, step := range all {
		if adapter.FailureFlag(step.Get("extra").Get("is_sidechain")) {
			continue
		}
		var at int64
		if t, ok := adapter.Time(step.Get("timestamp")); ok {
			at = t.UnixNano()
		}
		for c := step.Get("tool_calls").Elements(); c.Next(); {
			name := c.Value.Get("function_name").Str()
			if id := c.Value.Get("tool_call_id").Str(); id != "" && (name == "Task" || name == "Agent") {
				tasks = append(tasks, task{id: id, at: at, prompt: strings.TrimSpace(c.Value.Get("arguments").Get("prompt").Str())})
			}
		}
	}
	if len(tasks) == 0 {
		return nil
	}
	// owner finds the call a run starting with step belongs to: the Task
	// whose prompt is the run's first user text (parallel subagents told
	// apart), else the last Task started at or before the step.
	owner := func(step jsonraw.Value) string {
		if step.Get("source").Is("user") {
			text := strings.TrimSpace(messageText(&a.text, step.Get("message")).String())
			for i := range tasks {
				if k := &tasks[i]; !k.taken && k.prompt != "" && k.prompt == text {
					k.taken = true
					return k.id
				}
			}
		}
		t, ok := adapter.Time(step.Get("timestamp"))
		if !ok {
			return ""
		}
		id, best := "", int64(-1<<63)
		for _, k := range tasks {
			if k.at != 0 && k.at <= t.UnixNano() && k.at >= best {
				id, best = k.id, k.at
			}
		}
		return id
	}
	deferred := map[int]bool{}
	a.sidechains = map[string][]sidechainStep{}
	current, inRun := "", false
	for i, step := range all {
		if !adapter.FailureFlag(step.Get("extra").Get("is_sidechain")) {
			inRun = false
			continue
		}
		// A run starts after a main-thread step, and at each sidechain
		// user step (a subagent's task: parallel subagents follow each
		// other); steps that no call precedes (warm-ups) each ask again.
		if !inRun || current == "" || step.Get("source").Is("user") {
			current, inRun = owner(step), true
		}
		if current == "" {
			continue
		}
		deferred[i] = true
		a.sidechains[current] = append(a.sidechains[current], sidechainStep{step: step, repeat: repeat[i]})
	}
	return deferred
}

// hasUserStep reports whether a trajectory has a user step.
func hasUserStep(all []jsonraw.Value) bool {
	for _, s := range all {
		if s.Get("source").Is("user") {
			return true
		}
	}
	return false
}

// userStep writes what the user said: the task the first time, a later
// turn of a chat after that.
func (a *Adapter) userStep(step jsonraw.Value) {
	t := messageText(&a.text, step.Get("message"))
	if t.IsEmpty() {
		return
	}
	if !a.prompted {
		a.prompted = true
		a.w.StreamPrompt(t)
		return
	}
	a.w.UserPrompt(t)
}

// placeholder matches what producers write as an agent step's message
// when the model said nothing: Harbor's claude-code converter's "Executed
// <Tool> <id>", hermes' "[tool call]", "(tool use)".
var placeholder = regexp.MustCompile(`^(Executed \S+ \S+|\[tool call\]|\(tool use\))$`)

// agentStep converts a step of the model's: its reasoning, its words, its
// calls and their results. A step that repeats the model call of the step
// before (repeat) is shown, its metrics not counted again.
func (a *Adapter) agentStep(step jsonraw.Value, parent string, mainTurn, old, repeat bool) {
	calls := step.Get("tool_calls")
	llmCalls, counted := step.Get("llm_call_count").Int()
	tokens, cost, hasTokens, hasCost := stepTokens(step.Get("metrics"), old)
	if repeat {
		a.w.Skip("step/metrics", SkipRepeatedMetrics)
	} else {
		a.summed.add(tally{in: float64(tokens.In), out: float64(tokens.Out), cached: float64(tokens.CacheRead), written: float64(tokens.CacheWrite), cost: cost,
			hasIn: hasTokens, hasOut: hasTokens, hasCache: hasTokens, hasWritten: hasTokens, hasCost: hasCost})
		// A call's tokens go on the first message entry written for it:
		// a thinking block's step writes none.
		a.call = callTokens{tokens: tokens, has: hasTokens}
		if mainTurn && (!counted || llmCalls != 0) {
			a.sum.Turns++
		}
	}

	// openclaw writes a tool's output as a step of its own: no LLM call,
	// the call's id in extra.tool_call_id, the output as its message.
	if id := step.Get("extra").Get("tool_call_id").Str(); id != "" && counted && llmCalls == 0 && !calls.IsArray() {
		a.resultStep(step, id, parent)
		return
	}

	msg := step.Get("message")
	text := messageText(&a.text, msg)
	written := text.String()
	if r := step.Get("reasoning_content"); r.IsString() && strings.TrimSpace(r.Str()) != strings.TrimSpace(written) {
		a.w.Thinking(dialog.Lit(r.Lit()), parent)
	}
	if placeholder.MatchString(strings.TrimSpace(written)) {
		text = dialog.Text{}
	}
	m := dialog.Message{Content: text, Parent: parent}
	if !text.IsEmpty() && a.call.has {
		m.Tokens, m.HasTokens = a.call.tokens, true
		a.call = callTokens{}
	}
	a.w.Message(m)

	var mine []string // this step's calls, in order
	for c := calls.Elements(); c.Next(); {
		id := c.Value.Get("tool_call_id").Str()
		if id == "" {
			id = a.ownID()
		}
		name := c.Value.Get("function_name").Str()
		a.w.ToolStart(dialog.ToolCall{ID: id, Name: name, Args: c.Value.Get("arguments"), Parent: parent})
		a.open = append(a.open, openCall{id: id, name: name, parent: parent})
		mine = append(mine, id)
	}
	call := a.call // the sidechain's calls are others
	for _, id := range mine {
		a.sidechainSteps(id, old)
	}
	a.call = call
	a.observation(step, mine, parent, old)
}

// sidechainSteps shows the sidechain steps planned under call id.
func (a *Adapter) sidechainSteps(id string, old bool) {
	steps := a.sidechains[id]
	delete(a.sidechains, id)
	for _, s := range steps {
		if t, ok := adapter.Time(s.step.Get("timestamp")); ok {
			a.w.SourceTime(t)
		}
		if s.step.Get("source").Is("agent") {
			a.agentStep(s.step, id, false, old, s.repeat)
		}
	}
}

// resultStep is openclaw's step that holds the output of call id.
func (a *Adapter) resultStep(step jsonraw.Value, id, parent string) {
	var out dialog.Text
	var res jsonraw.Value // the step's first result: openclaw writes one
	if r := step.Get("observation").Get("results").Elements(); r.Next() {
		res = r.Value
		out = contentText(&a.text, res.Get("content"))
	}
	if out.IsEmpty() {
		out = messageText(&a.text, step.Get("message"))
	}
	a.end(id, parent, out, res.Get("extra"), step.Get("extra"))
}

// observation pairs a step's results with calls: by source_call_id; a
// result that names none goes to the step's calls still open, in order;
// one unnamed result for several calls (terminus-2's terminal output after
// all its commands) goes to the last, the others saying where their output
// is. A result with no call to go to is shown as an observation of its own.
func (a *Adapter) observation(step jsonraw.Value, mine []string, parent string, old bool) {
	var unnamed []jsonraw.Value
	for r := step.Get("observation").Get("results").Elements(); r.Next(); {
		res := r.Value
		id := res.Get("source_call_id").Str()
		if id != "" && a.isOpen(id) {
			a.endWith(id, parent, res, step, len(mine) == 1, old)
			continue
		}
		unnamed = append(unnamed, res)
	}
	var waiting []string
	for _, id := range mine {
		if a.isOpen(id) {
			waiting = append(waiting, id)
		}
	}
	if len(unnamed) == 1 && len(waiting) > 1 {
		last := waiting[len(waiting)-1]
		for _, id := range waiting[:len(waiting)-1] {
			a.end(id, parent, dialog.Plain("[this step's output is shown once, with its last call "+last+"]"), jsonraw.Value{}, jsonraw.Value{})
		}
		waiting = waiting[len(waiting)-1:]
	}
	for _, res := range unnamed {
		if len(waiting) > 0 {
			a.endWith(waiting[0], parent, res, step, len(mine) == 1, old)
			waiting = waiting[1:]
			continue
		}
		// No call of this step is waiting: a result of the step itself
		// (a parse error's feedback, a system step's output).
		id := a.ownID()
		name := "observation"
		if res.Get("subagent_trajectory_ref").IsArray() || res.Get("subagent_trajectory_ref").IsObject() {
			name = "subagent"
		}
		a.w.ToolStart(dialog.ToolCall{ID: id, Name: name, Parent: parent})
		a.open = append(a.open, openCall{id: id, name: name, parent: parent})
		a.endWith(id, parent, res, step, false, old)
	}
}

// endWith ends call id with result res, after the subagents it refers to.
func (a *Adapter) endWith(id, parent string, res, step jsonraw.Value, oneCall, old bool) {
	a.refs(res.Get("subagent_trajectory_ref"), id, old)
	var stepExtra jsonraw.Value
	if oneCall {
		stepExtra = step.Get("extra")
	}
	out := contentText(&a.text, res.Get("content"))
	if out.IsEmpty() {
		out = refSummaries(&a.text, res.Get("subagent_trajectory_ref"))
	}
	a.end(id, parent, out, res.Get("extra"), stepExtra)
}

// refSummaries is what a result without content says through its refs:
// their extra.summary lines (terminus-2's summarisation steps).
func refSummaries(b *jsonraw.Builder, refs jsonraw.Value) dialog.Text {
	b.Reset()
	n := 0
	add := func(ref jsonraw.Value) {
		if s := ref.Get("extra").Get("summary"); s.IsString() && !s.Lit().IsEmpty() {
			if n > 0 {
				b.Line()
			}
			b.Lit(s.Lit())
			n++
		}
	}
	if refs.IsObject() {
		add(refs)
	}
	for r := refs.Elements(); r.Next(); {
		add(r.Value)
	}
	if n == 0 {
		return dialog.Text{}
	}
	return dialog.Lit(b.Literal())
}

// end writes the result of call id, its status from what the producer
// says (see failure).
func (a *Adapter) end(id, parent string, out dialog.Text, extras ...jsonraw.Value) {
	name := ""
	for i, c := range a.open {
		if c.id == id {
			name = c.name
			a.open = append(a.open[:i], a.open[i+1:]...)
			break
		}
	}
	failed, code := failure(name, out.String(), extras...)
	if code.Exists() {
		var b jsonraw.Builder
		b.Reset()
		adapter.AppendExitCode(&b, code)
		if !out.IsEmpty() {
			b.Line()
			b.Text(out.String())
		}
		out = dialog.Lit(b.Literal())
	}
	a.w.ToolEnd(dialog.ToolResult{ID: id, Output: out, IsError: failed, Parent: parent})
}

// isOpen reports whether call id waits for its result.
func (a *Adapter) isOpen(id string) bool {
	for _, c := range a.open {
		if c.id == id {
			return true
		}
	}
	return false
}

// failure reads the flags producers put beside a result (ATIF itself has
// none): any that says the call failed wins. code is a non-zero exit code
// when one was given, for the output's "[exit code N]".
func failure(name, out string, extras ...jsonraw.Value) (failed bool, code jsonraw.Value) {
	for _, x := range extras {
		if !x.IsObject() {
			continue
		}
		for m := x.Members(); m.Next(); {
			switch string(m.Key) {
			case "tool_result_is_error", "is_error", "isError":
				failed = failed || adapter.FailureFlag(m.Value)
			case "success":
				failed = failed || !adapter.SuccessFlag(m.Value)
			case "status":
				switch strings.ToLower(m.Value.Str()) {
				case "error", "failed", "failure", "errored":
					failed = true
				}
			case "exit_code", "exitCode", "exec_exit_code":
				if n, ok := m.Value.Integer(); ok && n != 0 {
					failed, code = true, m.Value
				}
			}
		}
	}
	last := lastLine(out)
	if last == "[error] tool reported failure" { // Harbor's Claude Code converter ends a failed result so
		failed = true
	}
	if !code.Exists() && shellTool(name) {
		if n, ok := statedExitCode(last); ok {
			failed = true
			code, _ = jsonraw.Parse([]byte(n))
		}
	}
	return failed, code
}

// lastLine is the last line of out that is not blank.
func lastLine(out string) string {
	out = strings.TrimRight(out, " \t\r\n")
	return out[strings.LastIndexByte(out, '\n')+1:]
}

// shellTool reports whether a call's name is a shell's, whose output may
// end by stating its exit code (bash, bash_command, run_shell_command,
// terminal, exec…).
func shellTool(name string) bool {
	name = strings.ToLower(name)
	for _, w := range []string{"bash", "shell", "terminal", "exec", "command", "sh"} {
		if name == w || strings.Contains(name, w) && w != "sh" {
			return true
		}
	}
	return false
}

// exitCodeLine is a line in which a tool states how its command exited
// ("Exit Code: 2", as Harbor's oracle and Gemini CLI's shell tool write it).
var exitCodeLine = regexp.MustCompile(`^Exit Code: (-?[0-9]+)\s*$`)

// statedExitCode is the non-zero exit code a shell tool's last line of
// output states, if any: a line the command printed itself, higher up
// (a log it showed), says nothing of how it exited.
func statedExitCode(last string) (string, bool) {
	m := exitCodeLine.FindStringSubmatch(last)
	if m == nil || m[1] == "0" {
		return "", false
	}
	return m[1], true
}

// systemStep shows a system step that did something: one that hands work
// to subagents (terminus-2's context summarisation) becomes a call whose
// result is theirs. A system prompt or a note is not shown.
func (a *Adapter) systemStep(step jsonraw.Value, parent string, old bool) {
	if !step.Get("observation").Get("results").IsArray() {
		return
	}
	id := a.ownID()
	name := "subagent"
	if step.Get("extra").Get("context_management").IsObject() {
		name = "context_management"
	}
	call := dialog.ToolCall{ID: id, Name: name, Parent: parent}
	if m := step.Get("message"); m.IsString() && !m.Lit().IsEmpty() {
		call.Args, call.ArgsKey = m, "message"
	}
	a.w.ToolStart(call)
	a.open = append(a.open, openCall{id: id, name: name, parent: parent})
	a.observation(step, []string{id}, parent, old)
}

// subagent converts a subagent's trajectory under call, and closes what
// it left open before the call itself ends.
func (a *Adapter) subagent(doc jsonraw.Value, call string) {
	tokens := a.call // the subagent's calls are others
	a.steps(doc, call, oldPrompts(doc), findRepeats(doc))
	a.call = tokens
	a.closeOpen(func(c openCall) bool { return c.parent == call })
}

// refs converts the subagents a result refers to, each under call.
func (a *Adapter) refs(refs jsonraw.Value, call string, old bool) {
	if refs.IsObject() { // the v1.0 text's single ref
		a.ref(refs, call, old)
		return
	}
	for r := refs.Elements(); r.Next(); {
		a.ref(r.Value, call, old)
	}
}

// ref converts one subagent: embedded in the document (v1.7), else a file
// beside it that Inputs read; said when it is in neither.
func (a *Adapter) ref(ref jsonraw.Value, call string, old bool) {
	id, session := ref.Get("trajectory_id").Str(), ref.Get("session_id").Str()
	for i := range a.embedded {
		sub := &a.embedded[i]
		if !sub.used && (id != "" && sub.id == id || id == "" && session != "" && sub.session == session) {
			sub.used = true
			a.subagent(sub.doc, call)
			return
		}
	}
	path := ref.Get("trajectory_path").Str()
	if raw, ok := a.files[path]; ok && path != "" {
		delete(a.files, path)
		if sub, ok := jsonraw.Parse(raw); ok {
			a.subagent(sub, call)
			return
		}
	}
	name := path
	if name == "" {
		name = ref.Get("trajectory_id").Str()
	}
	if name == "" {
		name = ref.Get("session_id").Str()
	}
	if a.missing[path] || path != "" {
		a.notice("subagent trajectory "+quote(name)+" is not beside this trajectory: its steps are not shown", call)
		return
	}
	a.notice("subagent trajectory "+quote(name)+" is neither embedded nor a file: its steps are not shown", call)
}

func quote(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	b.WriteString(strings.ToValidUTF8(s, "\uFFFD"))
	b.WriteByte('"')
	return b.String()
}

// messageText is a step's message: a string, or (v1.6) a list of content
// parts, their text joined and media named.
func messageText(b *jsonraw.Builder, m jsonraw.Value) dialog.Text {
	if m.IsString() {
		return dialog.Lit(m.Lit())
	}
	return partsText(b, m)
}

// contentText is an observation result's content, as messageText.
func contentText(b *jsonraw.Builder, c jsonraw.Value) dialog.Text {
	return messageText(b, c)
}

// partsText joins content parts: text as it is, an image or audio file as
// "[image image/png path]" (never fetched or inlined).
func partsText(b *jsonraw.Builder, parts jsonraw.Value) dialog.Text {
	if !parts.IsArray() {
		return dialog.Text{}
	}
	b.Reset()
	n := 0
	for p := parts.Elements(); p.Next(); {
		part := p.Value
		if n > 0 {
			b.Line()
		}
		switch typ := part.Get("type").Str(); typ {
		case "text":
			b.Lit(part.Get("text").Lit())
		default:
			src := part.Get("source")
			b.Text("[" + typ)
			if mt := src.Get("media_type").Str(); mt != "" {
				b.Text(" " + mt)
			}
			if p := src.Get("path").Str(); p != "" {
				b.Text(" " + p)
			}
			b.Text("]")
		}
		n++
	}
	if n == 0 {
		return dialog.Text{}
	}
	return dialog.Lit(b.Literal())
}
