package view

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
)

// Pager is view's output: held until it fills a screen (Height lines),
// then piped to Command (run by the shell, as git runs $PAGER), else
// less -R, as it is written; shorter output, or output with no height, is
// written as it is. A pager that cannot start leaves the output printed.
type Pager struct {
	stdout, stderr io.Writer
	height         int    // 0: never page
	command        string // run by sh; "": less -R
	held           bytes.Buffer
	lines          int
	direct         bool
	pager          *exec.Cmd
	pipe           io.WriteCloser
	werr           error // stdout's write error: ours to tell, not the input's
	notes          PagerNotes
}

// NewPager returns the output of a view into stdout, paged through command
// ("": less -R) once it fills height lines (0: never paged).
func NewPager(stdout, stderr io.Writer, height int, command string) *Pager {
	return &Pager{stdout: stdout, stderr: stderr, height: height, command: command, notes: PagerNotes{w: stderr}}
}

// Notes is the stderr of what feeds the view (a conversion's warnings):
// kept while the pager owns the terminal (PagerNotes).
func (p *Pager) Notes() io.Writer { return &p.notes }

// WriteErr is the error writing to stdout failed with: the view's failure,
// not its input's.
func (p *Pager) WriteErr() error { return p.werr }

// PagerNotes is the conversion's stderr while a view is drawn: written
// through until a pager owns the terminal, then kept (up to maxPagerNotes)
// and written once the pager is quit, so that no warning lands inside the
// pager's screen and is gone with it. The conversion writes from its own
// goroutine.
type PagerNotes struct {
	mu     sync.Mutex
	w      io.Writer
	paging bool
	kept   bytes.Buffer
	lost   int
}

// maxPagerNotes bounds what is kept of the conversion's stderr while the
// pager runs.
const maxPagerNotes = 64 << 10

func (n *PagerNotes) Write(b []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.paging {
		return n.w.Write(b)
	}
	if n.kept.Len()+len(b) > maxPagerNotes {
		n.lost += len(b)
		return len(b), nil
	}
	return n.kept.Write(b)
}

// page marks the pager started.
func (n *PagerNotes) page() {
	n.mu.Lock()
	n.paging = true
	n.mu.Unlock()
}

// flush writes what was kept while the pager ran.
func (n *PagerNotes) flush() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.paging = false
	n.w.Write(n.kept.Bytes())
	if n.lost > 0 {
		fmt.Fprintf(n.w, "%s: %d more bytes of warnings left out while the pager ran\n", cli.Program, n.lost)
	}
	n.kept.Reset()
}

// ErrPagerQuit: the pager was quit before the dialog was all drawn.
var ErrPagerQuit = errors.New("the pager was quit")

func (p *Pager) Write(b []byte) (int, error) {
	switch {
	case p.pipe != nil:
		if _, err := p.pipe.Write(b); err != nil {
			return 0, ErrPagerQuit
		}
		return len(b), nil
	case p.height == 0 || p.direct:
		n, err := p.stdout.Write(b)
		if err != nil && p.werr == nil {
			p.werr = err
		}
		return n, err
	}
	p.held.Write(b)
	p.lines += bytes.Count(b, []byte("\n"))
	if p.lines < p.height {
		return len(b), nil
	}
	if err := p.startPager(); err != nil {
		p.direct = true
	}
	held := p.held.Bytes()
	p.held = bytes.Buffer{}
	if _, err := p.Write(held); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (p *Pager) startPager() error {
	if p.command != "" {
		p.pager = exec.Command("sh", "-c", p.command)
	} else {
		p.pager = exec.Command("less", "-R")
	}
	p.pager.Stdout, p.pager.Stderr = p.stdout, p.stderr
	pipe, err := p.pager.StdinPipe()
	if err != nil {
		return err
	}
	p.notes.page()
	if err := p.pager.Start(); err != nil {
		p.notes.flush()
		return err
	}
	p.pipe = pipe
	return nil
}

// Close writes what is held (output shorter than a screen), or ends the
// pager's input and waits for the reader to quit it.
func (p *Pager) Close() error {
	if p.pipe == nil {
		_, err := p.stdout.Write(p.held.Bytes())
		p.held = bytes.Buffer{}
		return err
	}
	p.pipe.Close()
	err := p.pager.Wait()
	p.notes.flush()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil // quitting a pager early is not our failure
		}
		return err
	}
	return nil
}
