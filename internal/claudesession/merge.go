package claudesession

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

// The second pass: the session's conversation and its subagents' lines as
// one stream, in the order of their timestamps.

// source is one file of the merge: the session file, whose lines pass
// when the first pass included them, or a subagent's file, whose lines are
// wrapped in an envelope naming their call.
type source struct {
	closer io.Closer
	fr     *frame.Reader
	chk    checker
	path   string // for the reports of lines it cannot read
	buf    []byte // such a report's line
	glued  []byte // a whole line found written onto an unreadable one, borrowed from fr
	tail   []byte // lines of this package's own written after the file's (subagent files that could not be read)

	// the session file
	index   map[uuidKey]int32
	inc     bits
	emitted bits
	isMain  bool
	agentID string
	toolID  string
	// compaction: the file of a compaction's own request, whose lines
	// count for their tokens only
	compaction bool
	// untied: a subagent's file tied to no call of the conversation,
	// read only to count its lines (each one left out, leftNoCall)
	untied   bool
	seen     map[uuidKey]struct{} // a subagent file's uuids, for dedupe
	filed    map[string]bool      // the session file: calls whose subagent's file is a source
	lastTime time.Time

	// the next record to write, borrowed from fr
	ready bool
	done  bool
	data  []byte
	wrap  bool
	at    time.Time
}

// advance finds the source's next record to write.
func (s *source) advance() error {
	for !s.ready && !s.done {
		var data []byte
		var v jsonraw.Value
		if s.glued != nil {
			// The whole line written onto an unreadable one, after it.
			data, s.glued = s.glued, nil
			v, _ = s.chk.line(data)
		} else {
			rec, err := s.fr.Next()
			if err == io.EOF && len(s.tail) > 0 {
				s.ready, s.data, s.wrap, s.at = true, bytes.TrimSuffix(s.tail, []byte("\n")), false, s.lastTime
				s.tail = nil
				return nil
			}
			if err == io.EOF {
				s.done = true
				return nil
			}
			if err != nil {
				return err
			}
			if rec.Meta || rec.Problem == "" && len(rec.Data) == 0 {
				continue
			}
			reason := strings.TrimPrefix(rec.Problem, "skipped: ")
			if reason == "" {
				v, reason = s.chk.line(rec.Data)
			}
			if reason != "" && s.untied {
				// Counted as its file's other lines are: a line the
				// dialog would not use is no warning.
				s.buf = appendLeftOut(s.buf[:0], jsonraw.Value{}, leftNoCall)
				s.ready, s.data, s.wrap, s.at = true, s.buf, false, time.Time{}
				return nil
			}
			if reason != "" {
				if reason == reasonInvalid {
					if tail := s.chk.gluedTail(rec.Data); tail != nil {
						s.glued, reason = tail, reasonGlued
					}
				}
				// Broken: a line of this package's own takes its place,
				// for the adapter to warn and report where it is.
				s.buf = appendUnreadable(s.buf[:0], s.path, rec.Line, reason, frame.Preview(rec.Data), s.agentID, s.toolID)
				s.ready, s.data, s.wrap, s.at = true, s.buf, false, s.lastTime
				return nil
			}
			data = rec.Data
		}
		keep, why := s.keep(v)
		if !keep {
			// Counted by the adapter, as when the file is read as a
			// stream; at the zero time, so that it is written at once and
			// the lines that are kept come in the order they did.
			s.buf = appendLeftOut(s.buf[:0], v, why)
			s.ready, s.data, s.wrap, s.at = true, s.buf, false, time.Time{}
			return nil
		}
		if t, ok := adapter.Time(v.Get("timestamp")); ok {
			s.lastTime = t
		}
		s.ready, s.data, s.wrap, s.at = true, data, !s.isMain, s.lastTime
	}
	return nil
}

// keep says whether a line goes into the stream: a line of the
// conversation (user, assistant, system) the first pass included, once;
// and from the session file, off the conversation's chain, the lines
// naming the model and the agent_progress copies of subagents whose own
// file is not a source. A line left out comes with why.
func (s *source) keep(v jsonraw.Value) (bool, leftOut) {
	if s.untied {
		return false, leftNoCall
	}
	offChain := false
	switch string(v.Get("type").Body()) {
	case "user", "assistant", "system":
	case "attachment", "api-request":
		// The lines naming the model (2.1.x), for a session with no
		// answer. Attachments come before the first prompt, off the
		// conversation's parentUuid chain (the prompt is a root).
		if !s.isMain || v.Get("type").Is("attachment") && !v.Get("attachment").Get("type").Is("model") {
			return false, leftMetadata
		}
		offChain = true
	case "progress":
		// A subagent's message copied into the session file (2.1.x):
		// the only record of it when its own file is not in the stream.
		if !s.isMain || !v.Get("data").Get("type").Is("agent_progress") {
			return false, leftProgress
		}
		if s.filed[v.Get("parentToolUseID").Str()] {
			return false, leftDuplicate
		}
		// Not on the conversation's parentUuid chain (progress lines
		// branch off it): the adapter keeps those whose call it has seen.
		offChain = true
	default:
		return false, leftMetadata // metadata, snapshots, summaries
	}
	k, ok := keyOf(v.Get("uuid"))
	if !ok {
		return true, 0
	}
	if s.isMain {
		i, known := s.index[k]
		switch {
		case !known || !s.inc.has(i) && !offChain:
			return false, leftOffChain
		case s.emitted.has(i):
			return false, leftDuplicate
		}
		s.emitted.set(i)
		return true, 0
	}
	if _, dup := s.seen[k]; dup {
		return false, leftDuplicate
	}
	s.seen[k] = struct{}{}
	return true, 0
}

// leftOut says why the second pass left a line out; the adapter counts
// it under the reason of the same name.
type leftOut uint8

const (
	leftMetadata  leftOut = iota + 1 // dialog.SkipNoContent
	leftProgress                     // SkipProgress
	leftDuplicate                    // dialog.SkipDuplicate: a copy of a line the stream holds
	leftOffChain                     // SkipOffChain
	leftNoCall                       // SkipNoCall: a line of a subagent's file tied to no call
)

// keyLeftOut marks a line the second pass left out: the stream holds, in
// its place, its type and subtype (its kind in --stats) and why.
const keyLeftOut = "claude-session-left-out"

func appendLeftOut(b []byte, v jsonraw.Value, why leftOut) []byte {
	b = append(b, `{"type":`...)
	typ := v.Get("type")
	if !typ.IsString() {
		b = append(b, `null`...)
	} else if b = append(b, typ.Bytes()...); typ.Is("system") {
		// The one type Claude Code gives a subtype (its kind is both).
		if sub := v.Get("subtype"); sub.IsString() {
			b = append(b, `,"subtype":`...)
			b = append(b, sub.Bytes()...)
		}
	}
	b = append(b, `,"`+keyLeftOut+`":`...)
	b = strconv.AppendUint(b, uint64(why), 10)
	return append(b, '}')
}

// skipReason is the adapter's reason for a line left out.
func (why leftOut) skipReason() string {
	switch why {
	case leftMetadata:
		return dialog.SkipNoContent
	case leftProgress:
		return SkipProgress
	case leftDuplicate:
		return dialog.SkipDuplicate
	case leftOffChain:
		return SkipOffChain
	case leftNoCall:
		return SkipNoCall
	}
	return dialog.SkipUnknown
}

// merged is the stream: a header line, then the sources' records by time.
type merged struct {
	srcs []*source
	sessionfile.Records
	started bool
}

// noteFiled tells the session file's source which calls have their
// subagent's file among the sources: their progress copies are skipped.
func (m *merged) noteFiled() {
	for _, s := range m.srcs {
		if !s.isMain {
			continue
		}
		s.filed = make(map[string]bool)
		for _, a := range m.srcs {
			if !a.isMain && !a.untied && a.toolID != "" {
				s.filed[a.toolID] = true
			}
		}
	}
}

func (m *merged) Read(p []byte) (int, error) { return m.Records.Read(p, m.next) }

// next writes the earliest ready record into out; ties go to the session
// file, then to the subagents in the order given.
func (m *merged) next() error {
	if !m.started {
		m.started = true
		m.noteFiled()
	}
	best := -1
	for i, s := range m.srcs {
		if err := s.advance(); err != nil {
			return err
		}
		if s.ready && (best < 0 || s.at.Before(m.srcs[best].at)) {
			best = i
		}
	}
	if best < 0 {
		return io.EOF
	}
	s := m.srcs[best]
	if s.wrap {
		m.Out = append(m.Out, `{"type":"`+typeSubagent+`","agentId":`...)
		m.Out = jsonraw.AppendQuoted(m.Out, s.agentID)
		m.Out = append(m.Out, `,"toolUseId":`...)
		m.Out = jsonraw.AppendQuoted(m.Out, s.toolID)
		if s.compaction {
			m.Out = append(m.Out, `,"compaction":true`...)
		}
		m.Out = append(m.Out, `,"line":`...)
		m.Out = append(m.Out, s.data...)
		m.Out = append(m.Out, '}', '\n')
	} else {
		m.Out = append(m.Out, s.data...)
		m.Out = append(m.Out, '\n')
	}
	s.ready = false
	return nil
}

// Close closes the files and lets go of what the stream held (the graph,
// the read buffers): a batch keeps its inputs listed until it ends, and
// memory must not grow with the sessions converted.
func (m *merged) Close() error {
	var first error
	for _, s := range m.srcs {
		if err := s.closer.Close(); err != nil && first == nil {
			first = err
		}
	}
	m.srcs = nil
	m.Stop(errClosed)
	return first
}

// errClosed is what a read of a closed stream returns.
var errClosed = errors.New("read of a closed session stream")

// header is the stream's first line: what init should say, known before
// the first prompt.
func header(model, cwd string) []byte {
	b := []byte(`{"type":"` + typeStart + `","model":`)
	b = jsonraw.AppendQuoted(b, model)
	b = append(b, `,"cwd":`...)
	b = jsonraw.AppendQuoted(b, cwd)
	return append(b, '}', '\n')
}
