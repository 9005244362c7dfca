package view

import (
	"io"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
)

// Stream draws a dialog as its entries arrive (view --follow). A tool call
// is drawn when its result arrives, merged with it; a call whose subagent
// starts working first gets its head drawn then, its subagent's entries
// under it as they come, and its result after them.
type Stream struct {
	r      *Renderer
	w      io.Writer
	d      *dialogread.Dialog
	headed map[*dialogread.Node]bool
	err    error
}

// NewStream returns a Stream drawing to w.
func NewStream(w io.Writer, opt Options) *Stream {
	return &Stream{r: New(opt), w: w, d: &dialogread.Dialog{}, headed: map[*dialogread.Node]bool{}}
}

// Dialog is what was read so far.
func (s *Stream) Dialog() *dialogread.Dialog { return s.d }

func (s *Stream) write(str string) {
	if s.err == nil && str != "" {
		_, s.err = io.WriteString(s.w, str)
	}
}

// head draws the heads of n and of the calls above it that are not drawn yet.
func (s *Stream) head(n *dialogread.Node) {
	if n == nil || s.headed[n] {
		return
	}
	s.head(n.Parent)
	s.headed[n] = true
	s.write(s.r.Node(n)) // a call with subagent entries: its head only
}

// Add draws what one entry shows, if anything yet. It returns the first
// write error. What is drawn is not kept: a followed dialog of any length
// holds, per entry, only what the closing line counts.
func (s *Stream) Add(e dialogread.Entry) error {
	n, isNew := s.d.Add(e)
	switch {
	case !isNew && s.headed[n]:
		s.write(s.r.SubagentEnd(n))
		drawn(n)
	case !isNew:
		s.head(n.Parent)
		s.write(s.r.Node(n))
		drawn(n)
	case e.Type == "tool" && n.Result == nil, e.Type == "complete":
		// A call waits for its result or its subagent; the ending is drawn by Close.
	default:
		s.head(n.Parent)
		s.write(s.r.Node(n))
		drawn(n)
	}
	return s.err
}

// drawn drops the text of a node that is drawn: its content, args, result
// and error. Names, times, tokens and statuses stay, for the closing line
// and for a subagent's call, whose end is drawn after its entries.
func drawn(n *dialogread.Node) {
	for _, e := range []*dialogread.Entry{n.Entry, n.Result} {
		if e != nil {
			e.Content, e.Args, e.Result, e.Error = "", nil, "", ""
		}
	}
}

// Note draws a line that says something about the dialog itself (what
// was not read), before the closing line.
func (s *Stream) Note(msg string) {
	s.write(s.r.paint(bold+";"+yellow, "⚠ left out") + "\n" + s.r.text(msg, 0, yellow) + "\n")
}

// Close draws the closing line.
func (s *Stream) Close() error {
	s.write(s.r.Ending(s.d.Summary()))
	return s.err
}
