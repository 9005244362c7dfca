package mockmodel

import (
	"cmp"
	"maps"
	"net/http"
	"time"
)

// hasCall says whether a response calls a tool (its stop reason).
func hasCall(parts []part) bool {
	for _, p := range parts {
		if p.kind == "call" || p.kind == "custom" {
			return true
		}
	}
	return false
}

// asFunction is a freeform call as the dialects without freeform tools
// see it: a function call with {"input": ...}.
func asFunction(p part) part {
	if p.kind != "custom" {
		return p
	}
	args := obj{"input": p.text}
	return part{kind: "call", name: p.name, args: args, raw: string(marshal(args)), id: p.id}
}

// anthropic answers a Messages request: one content block per part, each
// streamed as start, deltas and stop.
func anthropic(w http.ResponseWriter, body obj, parts []part, in, chunk int) {
	model := cmp.Or(text(body["model"]), "claude-mock")
	var content []obj
	for _, p := range parts {
		p = asFunction(p)
		switch p.kind {
		case "thinking":
			content = append(content, obj{"type": "thinking", "thinking": p.text, "signature": newID("mocksig-")})
		case "text":
			content = append(content, obj{"type": "text", "text": p.text})
		case "call":
			content = append(content, obj{"type": "tool_use", "id": newID("toolu_mock"), "name": p.name, "input": p.args})
		}
	}
	stop := "end_turn"
	if hasCall(parts) {
		stop = "tool_use"
	}
	out := tokens(len(marshal(content)))
	usage := obj{"input_tokens": in, "output_tokens": out, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	id := newID("msg_mock")
	if body["stream"] != true {
		writeJSON(w, http.StatusOK, obj{"id": id, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	ev := startEvents(w)
	ev.send("message_start", obj{"type": "message_start", "message": obj{"id": id, "type": "message", "role": "assistant",
		"model": model, "content": []obj{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": in, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
	ev.send("ping", obj{"type": "ping"})
	for i, c := range content {
		delta := func(d obj) {
			ev.send("content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": d})
		}
		switch c["type"] {
		case "thinking":
			ev.send("content_block_start", obj{"type": "content_block_start", "index": i,
				"content_block": obj{"type": "thinking", "thinking": "", "signature": ""}})
			for _, piece := range chunks(c["thinking"].(string), chunk) {
				delta(obj{"type": "thinking_delta", "thinking": piece})
			}
			delta(obj{"type": "signature_delta", "signature": c["signature"]})
		case "text":
			ev.send("content_block_start", obj{"type": "content_block_start", "index": i,
				"content_block": obj{"type": "text", "text": ""}})
			for _, piece := range chunks(c["text"].(string), chunk) {
				delta(obj{"type": "text_delta", "text": piece})
			}
		case "tool_use":
			ev.send("content_block_start", obj{"type": "content_block_start", "index": i,
				"content_block": obj{"type": "tool_use", "id": c["id"], "name": c["name"], "input": obj{}}})
			for _, piece := range chunks(string(marshal(c["input"])), chunk) {
				delta(obj{"type": "input_json_delta", "partial_json": piece})
			}
		}
		ev.send("content_block_stop", obj{"type": "content_block_stop", "index": i})
	}
	ev.send("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop, "stop_sequence": nil}, "usage": usage})
	ev.send("message_stop", obj{"type": "message_stop"})
}

// responses answers a Responses request: one output item per part.
func responses(w http.ResponseWriter, body obj, parts []part, in, chunk int) {
	model := cmp.Or(text(body["model"]), "gpt-mock")
	var output []obj
	for _, p := range parts {
		switch p.kind {
		case "thinking":
			output = append(output, obj{"id": newID("rs_mock"), "type": "reasoning",
				"summary": []obj{{"type": "summary_text", "text": p.text}}, "content": []obj{}, "encrypted_content": nil})
		case "text":
			output = append(output, obj{"id": newID("msg_mock"), "type": "message", "role": "assistant", "status": "completed",
				"content": []obj{{"type": "output_text", "text": p.text, "annotations": []obj{}}}})
		case "call":
			output = append(output, obj{"id": newID("fc_mock"), "type": "function_call", "status": "completed",
				"call_id": p.id, "name": p.name, "arguments": p.raw})
		case "custom":
			output = append(output, obj{"id": newID("ctc_mock"), "type": "custom_tool_call", "status": "completed",
				"call_id": p.id, "name": p.name, "input": p.text})
		}
	}
	out := tokens(len(marshal(output)))
	usage := obj{"input_tokens": in, "input_tokens_details": obj{"cached_tokens": 0},
		"output_tokens": out, "output_tokens_details": obj{"reasoning_tokens": 0}, "total_tokens": in + out}
	full := obj{"id": newID("resp_mock"), "object": "response", "created_at": time.Now().Unix(), "status": "completed",
		"model": model, "output": output, "usage": usage, "error": nil, "incomplete_details": nil}
	if body["stream"] != true {
		writeJSON(w, http.StatusOK, full)
		return
	}
	ev := startEvents(w)
	seq := 0
	send := func(o obj) {
		o["sequence_number"] = seq
		seq++
		ev.send(o["type"].(string), o)
	}
	pending := maps.Clone(full)
	pending["status"], pending["output"], pending["usage"] = "in_progress", []obj{}, nil
	send(obj{"type": "response.created", "response": pending})
	send(obj{"type": "response.in_progress", "response": pending})
	for oi, it := range output {
		id := it["id"]
		added := maps.Clone(it)
		switch it["type"] {
		case "reasoning":
			added["summary"] = []obj{}
			send(obj{"type": "response.output_item.added", "output_index": oi, "item": added})
			summary := it["summary"].([]obj)[0]
			at := obj{"item_id": id, "output_index": oi, "summary_index": 0}
			send(with(at, obj{"type": "response.reasoning_summary_part.added", "part": obj{"type": "summary_text", "text": ""}}))
			for _, piece := range chunks(summary["text"].(string), chunk) {
				send(with(at, obj{"type": "response.reasoning_summary_text.delta", "delta": piece}))
			}
			send(with(at, obj{"type": "response.reasoning_summary_text.done", "text": summary["text"]}))
			send(with(at, obj{"type": "response.reasoning_summary_part.done", "part": summary}))
		case "message":
			textPart := it["content"].([]obj)[0]
			added["status"], added["content"] = "in_progress", []obj{}
			send(obj{"type": "response.output_item.added", "output_index": oi, "item": added})
			at := obj{"item_id": id, "output_index": oi, "content_index": 0}
			send(with(at, obj{"type": "response.content_part.added", "part": obj{"type": "output_text", "text": "", "annotations": []obj{}}}))
			for _, piece := range chunks(textPart["text"].(string), chunk) {
				send(with(at, obj{"type": "response.output_text.delta", "delta": piece, "logprobs": []obj{}}))
			}
			send(with(at, obj{"type": "response.output_text.done", "text": textPart["text"], "logprobs": []obj{}}))
			send(with(at, obj{"type": "response.content_part.done", "part": textPart}))
		case "custom_tool_call":
			sendCallInput(send, it, added, oi, chunk, "input", "response.custom_tool_call_input")
		case "function_call":
			sendCallInput(send, it, added, oi, chunk, "arguments", "response.function_call_arguments")
		}
		send(obj{"type": "response.output_item.done", "output_index": oi, "item": it})
	}
	send(obj{"type": "response.completed", "response": full})
}

// with adds o's members to a copy of base.
// sendCallInput streams the tool call item it of the Responses API at
// output index oi, whose input is the string it[key]: the item added
// (with key empty), the input in deltas of chunk runes, then whole; the
// events are typed event+".delta" and event+".done".
func sendCallInput(send func(obj), it, added obj, oi, chunk int, key, event string) {
	added["status"], added[key] = "in_progress", ""
	send(obj{"type": "response.output_item.added", "output_index": oi, "item": added})
	at := obj{"item_id": it["id"], "output_index": oi}
	for _, piece := range chunks(it[key].(string), chunk) {
		send(with(at, obj{"type": event + ".delta", "delta": piece}))
	}
	send(with(at, obj{"type": event + ".done", key: it[key]}))
}

func with(base, o obj) obj {
	out := maps.Clone(base)
	maps.Copy(out, o)
	return out
}

// chat answers a Chat Completions request: reasoning_content deltas, text
// deltas, tool call deltas, the finish reason, then a usage chunk and
// [DONE].
func chat(w http.ResponseWriter, body obj, parts []part, in, chunk int) {
	model := cmp.Or(text(body["model"]), "gpt-mock")
	var reasoning, content string
	var calls []part
	for _, p := range parts {
		switch p = asFunction(p); p.kind {
		case "thinking":
			reasoning += p.text
		case "text":
			content += p.text
		case "call":
			calls = append(calls, p)
		}
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	out := tokens(len(reasoning) + len(content))
	for _, c := range calls {
		out += tokens(len(c.raw))
	}
	usage := obj{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}
	id, now := newID("chatcmpl-mock"), time.Now().Unix()
	var toolCalls []obj
	for _, c := range calls {
		toolCalls = append(toolCalls, obj{"id": c.id, "type": "function", "function": obj{"name": c.name, "arguments": c.raw}})
	}
	if body["stream"] != true {
		msg := obj{"role": "assistant", "content": nil}
		if content != "" {
			msg["content"] = content
		}
		if reasoning != "" {
			msg["reasoning_content"] = reasoning
		}
		if len(toolCalls) > 0 {
			msg["tool_calls"] = toolCalls
		}
		writeJSON(w, http.StatusOK, obj{"id": id, "object": "chat.completion", "created": now, "model": model,
			"choices": []obj{{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	ev := startEvents(w)
	send := func(delta obj, finish any) {
		ev.send("", obj{"id": id, "object": "chat.completion.chunk", "created": now, "model": model,
			"choices": []obj{{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	send(obj{"role": "assistant", "content": ""}, nil)
	if reasoning != "" {
		for _, piece := range chunks(reasoning, chunk) {
			send(obj{"reasoning_content": piece}, nil)
		}
	}
	if content != "" {
		for _, piece := range chunks(content, chunk) {
			send(obj{"content": piece}, nil)
		}
	}
	for i, c := range calls {
		send(obj{"tool_calls": []obj{{"index": i, "id": c.id, "type": "function",
			"function": obj{"name": c.name, "arguments": ""}}}}, nil)
		for _, piece := range chunks(c.raw, chunk) {
			send(obj{"tool_calls": []obj{{"index": i, "function": obj{"arguments": piece}}}}, nil)
		}
	}
	send(obj{}, finish)
	ev.send("", obj{"id": id, "object": "chat.completion.chunk", "created": now, "model": model, "choices": []obj{}, "usage": usage})
	ev.send("", "[DONE]")
}

// gemini answers a generateContent request, streamed as one chunk per
// text piece or call, then a final chunk with the finish reason and usage.
func gemini(w http.ResponseWriter, model string, stream bool, parts []part, in, chunk int) {
	var out []obj
	for _, p := range parts {
		switch p = asFunction(p); p.kind {
		case "thinking":
			out = append(out, obj{"text": p.text, "thought": true})
		case "text":
			out = append(out, obj{"text": p.text})
		case "call":
			out = append(out, obj{"functionCall": obj{"name": p.name, "args": p.args}})
		}
	}
	n := tokens(len(marshal(out)))
	usage := obj{"promptTokenCount": in, "candidatesTokenCount": n, "totalTokenCount": in + n}
	id := newID("mock")
	if !stream {
		writeJSON(w, http.StatusOK, obj{"candidates": []obj{{"content": obj{"role": "model", "parts": out}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": usage, "modelVersion": model, "responseId": id})
		return
	}
	ev := startEvents(w)
	send := func(p obj) {
		ev.send("", obj{"candidates": []obj{{"content": obj{"role": "model", "parts": []obj{p}}, "index": 0}},
			"usageMetadata": obj{"promptTokenCount": in, "totalTokenCount": in}, "modelVersion": model, "responseId": id})
	}
	for _, p := range out {
		t, ok := p["text"].(string)
		if !ok {
			send(p)
			continue
		}
		for _, piece := range chunks(t, chunk) {
			send(with(p, obj{"text": piece}))
		}
	}
	ev.send("", obj{"candidates": []obj{{"content": obj{"role": "model", "parts": []obj{{"text": ""}}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": usage, "modelVersion": model, "responseId": id})
}
