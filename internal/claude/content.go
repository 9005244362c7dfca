package claude

import (
	"bytes"
	"hash/maphash"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// The text of a tool result is built as one literal from pieces of the
// input (jsonraw.Builder): they are joined without decoding, and the result
// goes to the writer as dialog.Lit. Placeholders are plain ASCII.

// Parts builds one text of newline-separated parts, and renders the
// Anthropic Messages API's tool result content (Result, BashOutput). Claude
// Code's session files hold the same messages as its stream: their adapter
// (internal/claudesession) renders them with this too.
type Parts struct {
	b     jsonraw.Builder
	parts int
	// images are the base64 images of a tool result (Result), which the
	// writer puts after its text (see dialog.Image).
	images []dialog.Image
}

// Reset starts a new text.
func (l *Parts) Reset() {
	l.b.Reset()
	l.parts = 0
	l.images = l.images[:0]
}

// Images returns the base64 images of the last Result, valid until the
// next Reset.
func (l *Parts) Images() []dialog.Image { return l.images }

// sep starts a new part, separated from the previous one by a newline.
func (l *Parts) sep() {
	if l.parts > 0 {
		l.b.Text("\n")
	}
	l.parts++
}

// Add appends the text of a literal from the input as a new part; empty
// ones are skipped.
func (l *Parts) Add(lit jsonraw.Literal) {
	if lit.IsEmpty() {
		return
	}
	l.sep()
	l.b.Lit(lit)
}

// Empty reports whether no part was added since Reset.
func (l *Parts) Empty() bool { return l.parts == 0 }

// Literal returns the text built so far as one literal, valid until the
// next Reset.
func (l *Parts) Literal() jsonraw.Literal { return l.b.Literal() }

// Text returns the text built so far. It is valid until the next Reset;
// the writer copies it during the call it is passed to.
func (l *Parts) Text() dialog.Text {
	if l.parts == 0 {
		return dialog.Text{}
	}
	return dialog.Lit(l.b.Literal())
}

// Result renders tool result content — a string, an array of blocks or
// (for server tools) an object — as text, in l when it takes more than one
// piece. It reports whether the content itself says the call failed
// (server tool "*_error" objects).
func (l *Parts) Result(content jsonraw.Value) (dialog.Text, bool) {
	l.images = l.images[:0]
	switch content.Kind() {
	case jsonraw.String:
		return dialog.Lit(content.Lit()), false
	case jsonraw.Array:
		// The common Agent/Task result is a single text block: pass it through.
		e := content.Elements()
		if !e.Next() {
			return dialog.Text{}, false
		}
		if first := e.Value; !e.Next() && first.Get("type").Is("text") {
			return dialog.Lit(first.Get("text").Lit()), false
		}
		l.Reset()
		for e := content.Elements(); e.Next(); {
			l.addBlock(e.Value)
		}
		return l.Text(), false
	case jsonraw.Object:
		l.Reset()
		failed := l.addObject(content)
		return l.Text(), failed
	}
	return dialog.Text{}, false
}

// addBlock appends one element of a content array.
func (l *Parts) addBlock(el jsonraw.Value) {
	if el.IsString() {
		l.Add(el.Lit())
		return
	}
	typ := el.Get("type")
	switch string(typ.Body()) {
	case "text":
		l.Add(el.Get("text").Lit())
	case "image":
		source := el.Get("source")
		if img, ok := Base64Image(source); ok {
			l.images = append(l.images, img)
		} else {
			l.AddMedia(typ.Lit(), source)
		}
	case "document":
		l.AddMedia(typ.Lit(), el.Get("source"))
	case "tool_reference":
		// A ToolSearch result: each block names a tool it loaded, as
		// [tool_reference WebSearch]; without a name it is the placeholder.
		if name := el.Get("tool_name").Lit(); !name.IsEmpty() {
			l.sep()
			l.b.Text("[tool_reference ")
			l.b.Lit(name)
			l.b.Byte(']')
			return
		}
		l.addObject(el)
	default:
		l.addObject(el)
	}
}

// Base64Image reads an image block's source of type base64: its media
// type and data (borrowed), for the writer to carry or name (an image
// given by URL is a placeholder, never fetched).
func Base64Image(source jsonraw.Value) (dialog.Image, bool) {
	var typ, media, data jsonraw.Value
	source.Pick([]string{"type", "media_type", "data"}, &typ, &media, &data)
	if !typ.Is("base64") || !data.IsString() {
		return dialog.Image{}, false
	}
	return dialog.Image{Media: media.Str(), Data: data.Body()}, true
}

// AddMedia appends a placeholder for an image or document block, such as
// [image image/png 48213 bytes]: the bytes are the decoded size of the
// base64 data, counted without decoding it.
func (l *Parts) AddMedia(typ jsonraw.Literal, source jsonraw.Value) {
	l.sep()
	l.b.Byte('[')
	l.b.Lit(typ)
	var mediaV, dataV, urlV jsonraw.Value
	source.Pick([]string{"media_type", "data", "url"}, &mediaV, &dataV, &urlV)
	media, data, url := mediaV.Lit(), dataV.Lit(), urlV.Lit() // a member that is no string counts as absent
	if !media.IsEmpty() {
		l.b.Byte(' ')
		l.b.Lit(media)
	}
	switch {
	case !data.IsEmpty():
		l.b.Byte(' ')
		l.b.Int(int64(base64Len(data.Body())))
		l.b.Text(" bytes")
	case !url.IsEmpty():
		l.b.Byte(' ')
		l.b.Lit(url)
	}
	l.b.Byte(']')
}

// addObject appends the readable part of a block or server tool result
// object, or a [type] placeholder; it reports whether the object is an error
// result (type "*_error", e.g. web_search_tool_result_error).
func (l *Parts) addObject(obj jsonraw.Value) bool {
	var typV, textV, stdoutV, stderrV, titleV, urlV, codeV, content jsonraw.Value
	obj.Pick([]string{"type", "text", "stdout", "stderr", "title", "url", "error_code", "content"},
		&typV, &textV, &stdoutV, &stderrV, &titleV, &urlV, &codeV, &content)
	// Read as literals: a member that is no string counts as absent.
	typ, text, stdout, stderr := typV.Lit(), textV.Lit(), stdoutV.Lit(), stderrV.Lit()
	title, url, code := titleV.Lit(), urlV.Lit(), codeV.Lit()
	failed := bytes.HasSuffix(typ.Body(), []byte("_error"))
	n := l.parts
	switch {
	case failed:
		l.sep()
		l.b.Lit(typ)
		if !code.IsEmpty() {
			l.b.Text(": ")
			l.b.Lit(code)
		}
	case !text.IsEmpty():
		l.Add(text)
	case !stdout.IsEmpty() || !stderr.IsEmpty():
		l.Add(stdout)
		l.Add(stderr)
	case !url.IsEmpty():
		l.sep()
		if !title.IsEmpty() {
			l.b.Lit(title)
			l.b.Byte(' ')
		}
		l.b.Lit(url)
	case content.IsString():
		l.Add(content.Lit())
	case content.IsArray():
		for e := content.Elements(); e.Next(); {
			l.addBlock(e.Value)
		}
	}
	if l.parts == n && !typ.IsEmpty() {
		l.sep()
		l.b.Byte('[')
		l.b.Lit(typ)
		l.b.Byte(']')
	}
	return failed
}

// base64Len is the number of bytes the base64 text s (the escaped body of a
// JSON string) decodes to. Padding, line breaks and JSON escapes other than
// \/ do not count.
func base64Len(s []byte) int {
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

// BashOutput renders a tool_use_result's stdout and stderr, for a result
// whose content is empty; a tool_use_result that is a string (an error) is
// used as it is.
func (l *Parts) BashOutput(tur jsonraw.Value) dialog.Text {
	if tur.IsString() {
		return dialog.Lit(tur.Lit())
	}
	if !tur.IsObject() {
		return dialog.Text{}
	}
	var stdout, stderr jsonraw.Value
	tur.Pick([]string{"stdout", "stderr"}, &stdout, &stderr)
	l.Reset()
	l.Add(stdout.Lit())
	l.Add(stderr.Lit())
	return l.Text()
}

// Block is the members of an assistant content block that the adapters
// read, as they stand in the input (borrowed for the event's call).
type Block struct {
	Type, Text, Thinking, ID, Name, Input, ToolUseID, Content, IsError jsonraw.Value
}

// Message is the members of an API message (an assistant line's
// "message") that the formats of Claude Code's lines read.
type Message struct {
	ID, Model, Content, Usage, StopReason jsonraw.Value
}

// ParseMessage reads the members of message m in one walk.
func ParseMessage(m jsonraw.Value) Message {
	var msg Message
	m.Pick([]string{"id", "model", "content", "usage", "stop_reason"},
		&msg.ID, &msg.Model, &msg.Content, &msg.Usage, &msg.StopReason)
	return msg
}

// ParseBlock reads a content block, in one walk over its members.
func ParseBlock(b jsonraw.Value) Block {
	var blk Block
	b.Pick([]string{"type", "text", "thinking", "id", "name", "input", "tool_use_id", "content", "is_error"},
		&blk.Type, &blk.Text, &blk.Thinking, &blk.ID, &blk.Name, &blk.Input, &blk.ToolUseID, &blk.Content, &blk.IsError)
	return blk
}

// Shown holds the hashes of the content blocks of one API message already
// shown. A block repeated byte for byte (one message split over several
// lines, history a resumed session copies) is shown once. Both Claude
// formats (the stream here, the session files in internal/claudesession)
// keep one per message.id.
type Shown []uint64

// Fresh reports whether block b is not in s yet, and adds it.
func (s *Shown) Fresh(seed maphash.Seed, b jsonraw.Value) bool {
	h := maphash.Bytes(seed, b.Bytes())
	for _, x := range *s {
		if x == h {
			return false
		}
	}
	*s = append(*s, h)
	return true
}

// IsToolResult reports whether an assistant content block is a server
// tool's result (web_search_tool_result, …): it arrives in the
// assistant's own content and closes its server_tool_use.
func (blk Block) IsToolResult() bool {
	return blk.ToolUseID.Exists() && bytes.HasSuffix(blk.Type.Body(), []byte("_tool_result"))
}

// ToolResult reads a tool_result block of a user message: the call's id,
// its output, and whether it failed. Failure comes from is_error alone
// (absent is false); the tool_use_result beside the block (toolUseResult
// in session files) only fills in an empty output.
func (l *Parts) ToolResult(b, toolUseResult jsonraw.Value) (id string, out dialog.Text, isError bool) {
	blk := ParseBlock(b)
	out, _ = l.Result(blk.Content)
	if out.IsEmpty() && len(l.images) == 0 && toolUseResult.Exists() {
		out = l.BashOutput(toolUseResult)
	}
	return blk.ToolUseID.Str(), out, adapter.FailureFlag(blk.IsError)
}
