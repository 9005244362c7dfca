package view

import (
	"io"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
)

// Hold bounds what a Drawer keeps back to merge a call with its result.
type Hold struct {
	// Bytes and Entries bound the entries held behind a call that waits
	// for its result (their lines' bytes, and their count): past either,
	// the oldest waiting call is drawn without its result, and its result
	// is drawn where it comes, after a line naming the call again.
	Bytes   int64
	Entries int
}

// DefaultHold is view's: a result within about a thousand entries (or
// 1 MiB) of its call is drawn with it, as Render draws it.
func DefaultHold() Hold { return Hold{Bytes: 1 << 20, Entries: 1000} }

// Drawer draws a finished dialog entry by entry as it is read, in the
// order Render draws it, writing as it goes: what is drawn is not kept.
// A call is held back, with what comes after it, until its result comes,
// so that the two are drawn as one block; a subagent's entries are held
// with its call and drawn under it. What is held is bounded by Hold; past
// it the oldest waiting call is drawn as running, and its result (or its
// subagent's end) is drawn later, where it comes, under a line naming
// the call again (SubagentEnd). The closing line comes last, with the
// figures of the whole dialog.
//
// What a Drawer keeps besides the held entries: the calls whose result
// has not come, and the last KeptSubagents subagent calls drawn (name and
// times, for the entries of theirs that may still come), with their text
// dropped.
type Drawer struct {
	r    *Renderer
	w    io.Writer
	err  error
	hold Hold
	// queue is what waits to be drawn, in order: top-level nodes (with
	// the subtree held under them) and the entries of calls already
	// drawn. Its front blocks while a call in it waits for its result.
	queue []item
	// calls are the calls by tool key that an entry may still name: held
	// ones, drawn ones waiting for their result, and drawn subagent calls.
	calls map[string]*dialogread.Node
	// drawnEarly are drawn calls (in calls) whose later entries (their
	// result, their subagent's) are drawn where they come.
	drawnEarly map[*dialogread.Node]bool
	// sizes are the line sizes of held nodes (call and result together).
	sizes       map[*dialogread.Node]int64
	heldBytes   int64
	heldEntries int

	totals         dialogread.Totals
	entries        int
	init, complete *dialogread.Entry
	maxHeldEntries int // the most entries held at once, for tests
	maxCalls       int // the most calls kept at once, for tests
	// subagents are the drawn calls with entries under them, kept (their
	// text dropped) while their entries may come; ended are the last
	// KeptSubagents of them whose end is drawn, oldest first: an entry
	// of an older one is drawn unnested.
	subagents map[*dialogread.Node]bool
	ended     []*dialogread.Node
}

// KeptSubagents is how many ended subagent calls a Drawer keeps for their
// late entries, so that a dialog of many subagents is not held whole.
const KeptSubagents = 64

// item is a node to draw, or (end) the end of a call drawn early.
type item struct {
	n    *dialogread.Node
	end  bool
	size int64 // an end's line size, held until it is drawn
}

// NewDrawer returns a Drawer writing to w.
func NewDrawer(w io.Writer, opt Options, hold Hold) *Drawer {
	return &Drawer{r: New(opt), w: w, hold: hold, calls: map[string]*dialogread.Node{},
		drawnEarly: map[*dialogread.Node]bool{}, subagents: map[*dialogread.Node]bool{}, sizes: map[*dialogread.Node]int64{}}
}

func (d *Drawer) write(s string) {
	if d.err == nil && s != "" {
		_, d.err = io.WriteString(d.w, s)
	}
}

// Held says how many entries and calls the Drawer held at most at once:
// what its memory is bounded by.
func (d *Drawer) Held() (entries, calls int) { return d.maxHeldEntries, d.maxCalls }

// Add takes one entry, its line size, and draws what can be drawn. It
// returns the first write error.
func (d *Drawer) Add(e dialogread.Entry, size int) error {
	d.entries++
	cp := new(dialogread.Entry)
	*cp = e
	switch cp.Type {
	case "init":
		if d.init == nil {
			d.init = &dialogread.Entry{Type: cp.Type, Init: cp.Init}
		}
	case "complete":
		if d.complete == nil {
			d.complete = cp
		}
	}
	key := cp.ToolKey()
	if cp.Type == "tool" && cp.Status != "running" && key != "" {
		if n, ok := d.calls[key]; ok && n.Result == nil {
			n.Result = cp
			d.totals.Add(n)
			if d.drawnEarly[n] {
				d.queue = append(d.queue, item{n: n, end: true, size: int64(size)})
				d.heldBytes += int64(size)
				d.heldEntries++
				d.maxHeldEntries = max(d.maxHeldEntries, d.heldEntries)
			} else {
				d.holdEntry(n, size)
			}
			d.flush(false)
			return d.err
		}
	}
	n := &dialogread.Node{Entry: cp}
	if cp.Type == "tool" {
		if cp.Status != "running" {
			n.Result = cp // a result with no call: shown as a call of its own
		}
		if _, seen := d.calls[key]; key != "" && !seen {
			d.calls[key] = n
		}
	}
	if cp.Type != "tool" || n.Result != nil || d.calls[key] != n {
		d.totals.Add(n) // a call no result can reach is counted running now
	}
	p, ok := d.calls[cp.ParentKey()]
	switch {
	case ok && cp.ParentKey() != "" && p != n:
		n.Parent, n.Depth = p, p.Depth+1
		if d.drawnEarly[p] {
			d.subagents[p] = true
			d.queue = append(d.queue, item{n: n})
		} else {
			p.Children = append(p.Children, n) // drawn with its call
		}
	default:
		d.queue = append(d.queue, item{n: n})
	}
	d.holdEntry(n, size)
	d.maxCalls = max(d.maxCalls, len(d.calls))
	d.flush(false)
	return d.err
}

func (d *Drawer) holdEntry(n *dialogread.Node, size int) {
	d.sizes[n] += int64(size)
	d.heldBytes += int64(size)
	d.heldEntries++
	d.maxHeldEntries = max(d.maxHeldEntries, d.heldEntries)
}

// waiting reports whether n, or a node under it, is a call whose result
// has not come.
func waiting(n *dialogread.Node) bool {
	if n.IsTool() && n.Result == nil {
		return true
	}
	for _, c := range n.Children {
		if waiting(c) {
			return true
		}
	}
	return false
}

// flush draws the front of the queue while it can: all of it when
// closing, else up to the first node that waits, unless more than Hold
// is held behind it.
func (d *Drawer) flush(closing bool) {
	for len(d.queue) > 0 {
		it := d.queue[0]
		if it.end {
			d.write(d.r.SubagentEnd(it.n))
			d.heldBytes -= it.size
			d.heldEntries--
			d.finish(it.n)
		} else {
			over := d.heldBytes > d.hold.Bytes || d.heldEntries > d.hold.Entries
			if !closing && !over && waiting(it.n) {
				return
			}
			d.draw(it.n, closing)
		}
		d.queue[0] = item{}
		d.queue = d.queue[1:]
	}
	d.queue = nil // let the array go: the queue refills from empty
}

// draw draws a held node and the subtree under it, as Render does; a call
// still waiting is drawn as running, and what comes of it later is drawn
// where it comes.
func (d *Drawer) draw(n *dialogread.Node, closing bool) {
	d.write(d.r.Node(n))
	if n.IsTool() && len(n.Children) > 0 {
		for _, c := range n.Children {
			d.draw(c, closing)
		}
		if n.Result != nil || closing { // at the end, a subagent still running is closed as Render closes it
			d.write(d.r.SubagentEnd(n))
		}
	}
	d.heldBytes -= d.sizes[n]
	d.heldEntries--
	if n.Result != nil && n.Result != n.Entry {
		d.heldEntries--
	}
	delete(d.sizes, n)
	if len(n.Children) > 0 {
		d.subagents[n] = true
	}
	n.Children = nil
	drawn(n)
	switch {
	case n.IsTool() && n.Result == nil:
		d.drawnEarly[n] = true // what comes of it is drawn where it comes
	case d.subagents[n], n.IsTool() && n.Result != n.Entry:
		// an ended call, with or without entries under it so far: a
		// background subagent's entries come after its result
		d.drawnEarly[n] = true
		d.keepEnded(n)
	default:
		d.forget(n)
	}
}

// finish lets go of a call drawn early whose end is now drawn, unless its
// subagent may still write under it.
func (d *Drawer) finish(n *dialogread.Node) {
	drawn(n)
	if d.subagents[n] {
		d.keepEnded(n)
		return
	}
	d.forget(n)
}

// keepEnded keeps an ended subagent call for its late entries, and lets
// the oldest go past KeptSubagents.
func (d *Drawer) keepEnded(n *dialogread.Node) {
	d.ended = append(d.ended, n)
	if len(d.ended) > KeptSubagents {
		d.forget(d.ended[0])
		d.ended[0] = nil
		d.ended = d.ended[1:]
	}
}

// forget lets go of a drawn node: no later entry is drawn under it.
func (d *Drawer) forget(n *dialogread.Node) {
	delete(d.drawnEarly, n)
	delete(d.subagents, n)
	if n.Entry.Type != "tool" {
		return
	}
	if key := n.Entry.ToolKey(); d.calls[key] == n {
		delete(d.calls, key)
	}
}

// Note draws a line that says something about the dialog itself (what
// was not read), before the closing line.
func (d *Drawer) Note(msg string) {
	d.flush(true)
	d.write(d.r.paint(bold+";"+yellow, "⚠ left out") + "\n" + d.r.text(msg, 0, yellow) + "\n")
}

// Close draws what is still held (a call with no result as running) and
// the closing line.
func (d *Drawer) Close() error {
	d.flush(true)
	for _, n := range d.calls {
		if n.Result == nil {
			d.totals.Add(n) // counted running, as Summary counts it
		}
	}
	d.write(d.r.Ending(d.totals.Summary(d.entries, d.init, d.complete)))
	return d.err
}

// DrawFrom reads a dialog from r and draws it with a Drawer as it is
// read. Lines over maxLine bytes are not read, and lines that are no
// entry are skipped; both are counted and said before the closing line
// (the figures that need the whole dialog come at its end).
func DrawFrom(w io.Writer, r io.Reader, red *dialogread.Redactor, maxLine int, opt Options, hold Hold) error {
	d := NewDrawer(w, opt, hold)
	unshown := dialogread.Dialog{LeftOut: dialogread.LeftOut{Limits: dialogread.Limits{MaxLine: maxLine}}}
	err := dialogread.EachLineCapped(r, maxLine, func(line []byte, long int64) error {
		if e, ok := unshown.ReadLine(line, long, red); ok {
			return d.Add(e, len(line))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if msg := unshown.Banner(); msg != "" {
		d.Note(msg)
	}
	return d.Close()
}
