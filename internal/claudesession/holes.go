package claudesession

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// typeUnreadable is a third line type of the stream Open makes, in the
// place of a line of the session's files that could not be read, or after
// everything for a subagent's file that could not be read at all:
//
//	{"type":"claude-session-unreadable","file":"…","line":57,"reason":"not valid JSON","preview":" (…)","agentId":"…","toolUseId":"…"}
//
// line 0 is the whole file; agentId and toolUseId are set for a
// subagent's file; "folder":true marks a session's subagents folder that
// could not be listed. The adapter shows it as a warning entry and reports it
// at its file and line (adapter.LineError): the stream's own line numbers
// are not the files'.
const typeUnreadable = "claude-session-unreadable"

// appendUnreadable appends the stream's line for an unreadable line.
func appendUnreadable(b []byte, path string, line int, reason, preview, agentID, toolID string) []byte {
	b = append(b, `{"type":"`+typeUnreadable+`","file":`...)
	b = jsonraw.AppendQuoted(b, path)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(line), 10)
	b = append(b, `,"reason":`...)
	b = jsonraw.AppendQuoted(b, reason)
	b = append(b, `,"preview":`...)
	b = jsonraw.AppendQuoted(b, preview)
	if agentID != "" {
		b = append(b, `,"agentId":`...)
		b = jsonraw.AppendQuoted(b, agentID)
		b = append(b, `,"toolUseId":`...)
		b = jsonraw.AppendQuoted(b, toolID)
	}
	return append(b, '}', '\n')
}

// unreadableFile appends the stream's line for a subagent's file that
// could not be read: the reason without the path the report gives.
func unreadableFile(b []byte, a *agentFile) []byte {
	err := a.err
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	b = appendUnreadable(b, a.path, 0, err.Error(), "", a.agentID, a.toolUseID)
	if a.folder {
		b = append(b[:len(b)-2], `,"folder":true}`+"\n"...)
	}
	return b
}

// unreadable warns of a line or a file the stream could not read, and
// returns the report of it, at its own file and line.
func (a *Adapter) unreadable(v jsonraw.Value) error {
	file := v.Get("file").Str()
	line, _ := v.Get("line").Int()
	reason := v.Get("reason").Str()
	what := "the session file"
	if agent := v.Get("agentId").Str(); agent != "" {
		what = "subagent " + agent + "'s file (" + filepath.Base(file) + ")"
	}
	text := what + " could not be read (" + reason + "): the session is converted without it"
	if v.Get("folder").IsTrue() {
		text = "the session's subagents folder could not be read (" + reason + "): the session is converted without its subagents' files"
	}
	if line > 0 {
		text = "line " + strconv.FormatInt(line, 10) + " of " + what + " could not be read (" + reason + "): skipped"
		if v.Get("agentId").Str() == "" {
			a.holeAfter(line)
		}
	}
	a.notice(text, v.Get("toolUseId").Str())
	return &adapter.LineError{File: file, Line: int(line), Err: errors.New(reason + v.Get("preview").Str())}
}

// holeAfter notes the main thread's calls open when line of the session
// file could not be read: if the conversation goes on past them (a later
// answer of the model's), their results were on that line, or on another
// that was lost; closeLost ends them then, saying so, so that a torn
// result is not taken for a call that never returned.
func (a *Adapter) holeAfter(line int64) {
	a.blocks.OpenMain(func(id string) {
		if !slices.Contains(a.lost, id) {
			a.lost = append(a.lost, id)
		}
	})
	slices.Sort(a.lost) // map order is no order: the dialog must not depend on it
	a.lostLine = line
}

// closeLost ends the calls holeAfter noted that are still open, when a
// later answer of the main thread shows the conversation went on.
func (a *Adapter) closeLost() {
	for _, id := range a.lost {
		if a.blocks.Open(id) {
			a.blocks.EndTool(id, dialog.Plain("[no result in the session file: line "+strconv.FormatInt(a.lostLine, 10)+", which could not be read, may have held it]"), nil, true, "")
		}
	}
	a.lost = a.lost[:0]
}

// Why a line is unreadable, as the stream tells it.
const (
	reasonInvalid = "not valid JSON"
	reasonGlued   = "not valid JSON: cut short, with the next line written onto it, which is kept"
)

// checker checks the lines of a session's files, both passes alike.
type checker struct {
	jsonraw.Checker
	checks int // lines checked (a test counts them)
}

// line checks one line: its value, or why it cannot be read.
func (c *checker) line(data []byte) (jsonraw.Value, string) {
	c.checks++
	v, verdict := c.Value(data, 10000)
	switch {
	case verdict == jsonraw.TooDeep:
		return v, "nested too deep"
	case verdict > jsonraw.Dirty:
		return v, reasonInvalid
	case !v.IsObject():
		return v, "a JSON value that is not an object"
	}
	return v, ""
}

// maxGlueTries bounds the starts gluedTail tries: a hostile line of many
// line starts costs a few checks of it, not one per start.
const maxGlueTries = 16

// gluedTail finds, in a line that is not JSON, a whole line written onto
// the end of one cut short: a crash mid-write leaves no newline, and the
// resumed session appends its next line to the fragment. It is the first
// part of the line, past its start, that starts as Claude Code's lines do
// and is one object of this format to the line's end; nil when none is.
func (c *checker) gluedTail(data []byte) []byte {
	tries := 0
	for i := 1; i < len(data) && tries < maxGlueTries; i++ {
		j := bytes.Index(data[i:], []byte(`{"`))
		if j < 0 {
			return nil
		}
		i += j
		rest := data[i:]
		if !bytes.HasPrefix(rest, []byte(`{"parentUuid":`)) && !bytes.HasPrefix(rest, []byte(`{"type":`)) {
			continue
		}
		tries++
		if v, reason := c.line(rest); reason == "" && Detect(adapter.Event{Value: v}) == adapter.Yes {
			return rest
		}
	}
	return nil
}
