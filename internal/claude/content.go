package claude

import (
	"strconv"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// The text of a tool result is built as the body of a JSON string literal in
// a reused buffer: every piece taken from the input is already a valid
// escaped body, so pieces are joined without decoding and the result goes to
// the writer as dialog.RawString. Placeholders are plain ASCII.

// literal is a reused buffer that holds one JSON string literal being built.
type literal struct {
	b     []byte
	parts int
}

func (l *literal) reset() {
	l.b = append(l.b[:0], '"')
	l.parts = 0
}

// sep starts a new part, separated from the previous one by a newline.
func (l *literal) sep() {
	if l.parts > 0 {
		l.b = append(l.b, '\\', 'n')
	}
	l.parts++
}

// add appends an escaped body (from the input) as a new part; empty bodies
// are skipped.
func (l *literal) add(escaped string) {
	if escaped == "" {
		return
	}
	l.sep()
	l.b = append(l.b, escaped...)
}

// text returns the literal built so far. It is valid until the next reset;
// the writer copies it during the call it is passed to.
func (l *literal) text() dialog.Text {
	if l.parts == 0 {
		return dialog.Text{}
	}
	l.b = append(l.b, '"')
	return dialog.RawString(jsonraw.View(l.b))
}

// resultText renders tool result content — a string, an array of blocks or
// (for server tools) an object — as text. It reports whether the content
// itself says the call failed (server tool "*_error" objects).
func (a *Adapter) resultText(content string) (dialog.Text, bool) {
	content = strings.TrimSpace(content)
	if content == "" {
		return dialog.Text{}, false
	}
	switch content[0] {
	case '"':
		return dialog.RawString(content), false
	case '[':
		// The common Agent/Task result is a single text block: pass it through.
		e := jsonraw.Elements(content)
		if !e.Next() {
			return dialog.Text{}, false
		}
		if first := e.Value; !e.Next() && jsonraw.Get(first, "type") == `"text"` {
			return dialog.RawString(jsonraw.Get(first, "text")), false
		}
		l := &a.lit
		l.reset()
		for e := jsonraw.Elements(content); e.Next(); {
			l.addBlock(e.Value)
		}
		return l.text(), false
	case '{':
		l := &a.lit
		l.reset()
		failed := l.addObject(content)
		return l.text(), failed
	}
	return dialog.Text{}, false
}

// addBlock appends one element of a content array.
func (l *literal) addBlock(el string) {
	if jsonraw.IsString(el) {
		l.add(jsonraw.Body(el))
		return
	}
	typ := jsonraw.Body(jsonraw.Get(el, "type"))
	switch typ {
	case "text":
		l.add(jsonraw.Body(jsonraw.Get(el, "text")))
	case "image", "document":
		l.addMedia(typ, jsonraw.Get(el, "source"))
	default:
		l.addObject(el)
	}
}

// addMedia appends a placeholder for an image or document block, such as
// [image image/png 48213 bytes]: the bytes are the decoded size of the
// base64 data, counted without decoding it.
func (l *literal) addMedia(typ, source string) {
	l.sep()
	l.b = append(l.b, '[')
	l.b = append(l.b, typ...)
	var media, data, url string
	for m := jsonraw.Members(source); m.Next(); {
		switch m.Key {
		case "media_type":
			media = jsonraw.Body(m.Value)
		case "data":
			data = jsonraw.Body(m.Value)
		case "url":
			url = jsonraw.Body(m.Value)
		}
	}
	if media != "" {
		l.b = append(l.b, ' ')
		l.b = append(l.b, media...)
	}
	switch {
	case data != "":
		l.b = append(l.b, ' ')
		l.b = strconv.AppendInt(l.b, int64(base64Len(data)), 10)
		l.b = append(l.b, " bytes"...)
	case url != "":
		l.b = append(l.b, ' ')
		l.b = append(l.b, url...)
	}
	l.b = append(l.b, ']')
}

// addObject appends the readable part of a block or server tool result
// object, or a [type] placeholder; it reports whether the object is an error
// result (type "*_error", e.g. web_search_tool_result_error).
func (l *literal) addObject(obj string) bool {
	var typ, text, stdout, stderr, title, url, code, content string
	for m := jsonraw.Members(obj); m.Next(); {
		switch m.Key {
		case "type":
			typ = jsonraw.Body(m.Value)
		case "text":
			text = jsonraw.Body(m.Value)
		case "stdout":
			stdout = jsonraw.Body(m.Value)
		case "stderr":
			stderr = jsonraw.Body(m.Value)
		case "title":
			title = jsonraw.Body(m.Value)
		case "url":
			url = jsonraw.Body(m.Value)
		case "error_code":
			code = jsonraw.Body(m.Value)
		case "content":
			content = m.Value
		}
	}
	failed := strings.HasSuffix(typ, "_error")
	n := l.parts
	switch {
	case failed:
		l.sep()
		l.b = append(l.b, typ...)
		if code != "" {
			l.b = append(l.b, ": "...)
			l.b = append(l.b, code...)
		}
	case text != "":
		l.add(text)
	case stdout != "" || stderr != "":
		l.add(stdout)
		l.add(stderr)
	case url != "":
		l.sep()
		if title != "" {
			l.b = append(l.b, title...)
			l.b = append(l.b, ' ')
		}
		l.b = append(l.b, url...)
	case content != "" && (content[0] == '[' || content[0] == '"'):
		if content[0] == '"' {
			l.add(jsonraw.Body(content))
			break
		}
		for e := jsonraw.Elements(content); e.Next(); {
			l.addBlock(e.Value)
		}
	}
	if l.parts == n && typ != "" {
		l.sep()
		l.b = append(l.b, '[')
		l.b = append(l.b, typ...)
		l.b = append(l.b, ']')
	}
	return failed
}

// base64Len is the number of bytes the base64 text s (the escaped body of a
// JSON string) decodes to. Padding, line breaks and JSON escapes other than
// \/ do not count.
func base64Len(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/', c == '-', c == '_':
			n++
		case c == '\\' && i+1 < len(s):
			switch s[i+1] {
			case '/':
				n++
				i++
			case 'u':
				i += 5
			default:
				i++
			}
		}
	}
	return n * 3 / 4
}

// bashOutput renders a tool_use_result's stdout and stderr, for a result
// whose content is empty; a tool_use_result that is a string (an error) is
// used as it is.
func (a *Adapter) bashOutput(tur string) dialog.Text {
	if jsonraw.IsString(tur) {
		return dialog.RawString(tur)
	}
	if tur == "" || tur[0] != '{' {
		return dialog.Text{}
	}
	var stdout, stderr string
	for m := jsonraw.Members(tur); m.Next(); {
		switch m.Key {
		case "stdout":
			stdout = jsonraw.Body(m.Value)
		case "stderr":
			stderr = jsonraw.Body(m.Value)
		}
	}
	l := &a.lit
	l.reset()
	l.add(stdout)
	l.add(stderr)
	return l.text()
}
