// Package agentrun runs an agent command the way a benchmark wrapper does: in
// a process group of its own, its standard output handed to a consumer and
// copied to a transcript as it arrives, stopped when a timeout expires, its
// context is done (a signal came in) or it hangs after its final event, and
// never leaving a process of its group behind.
package agentrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Cause is why the agent ended.
type Cause int

const (
	// Exited: the agent ended on its own.
	Exited Cause = iota
	// TimedOut: Config.Timeout expired and the agent was stopped.
	TimedOut
	// Signaled: the run's context was done, and the signal its cause names
	// (SIGTERM when it names none) was passed on.
	Signaled
	// Lingered: the agent stayed silent for Config.Linger after its final
	// event and was stopped.
	Lingered
)

func (c Cause) String() string {
	switch c {
	case TimedOut:
		return "timeout"
	case Signaled:
		return "signal"
	case Lingered:
		return "linger"
	}
	return "exited"
}

// Config describes one run.
type Config struct {
	// Argv is the command and its arguments; Argv[0] is looked up in $PATH.
	Argv []string
	// Stdin is the agent's standard input: an *os.File is handed over as it
	// is; any other reader is copied through a pipe, which is closed at its
	// end. Nil means no input (/dev/null).
	Stdin io.Reader
	// Stderr receives the agent's standard error: an *os.File is handed over
	// as it is, so the agent writes to it directly; any other writer gets a
	// copy through a pipe. Nil discards it.
	Stderr io.Writer
	// Transcript receives every byte of the agent's standard output as it is
	// read, before the consumer sees it. A write error stops the copy and is
	// returned in Result.TranscriptErr.
	Transcript io.Writer
	// Tee, like Transcript, receives the output as read; its errors are
	// ignored (a reader that went away must not stop the run).
	Tee io.Writer
	// Timeout, when > 0, stops the agent (SIGTERM) once it has run this long.
	Timeout time.Duration
	// Grace is how long a stopped process group has between SIGTERM (or the
	// signal passed on) and SIGKILL.
	Grace time.Duration
	// Linger, when > 0, stops an agent that has printed nothing for this
	// long while Finished reports true: an agent that hangs after its final
	// event.
	Linger time.Duration
	// Drain is how long the output may stay open once the agent has exited
	// and its process group is gone (a process that left the group holding
	// the pipe); the run then stops reading.
	Drain time.Duration
	// Finished reports whether the output consumed so far held the agent's
	// final event. Run asks it every lingerPoll while Linger is set, from its
	// own goroutine, so it must be safe to call while the consumer runs.
	// Nil: never.
	Finished func() bool
	// Kill, when closed, sends SIGKILL at once: a second signal, after the
	// one that ended the run's context. Nil: never.
	Kill <-chan struct{}
	// OnStop, if not nil, is called once when the run stops the agent
	// (timeout, signal, linger), before the group is signalled, so that what
	// the agent prints once signalled cannot change the verdict; sig is the
	// signal received, for Signaled. An OnStop that blocks (a dialog write
	// into a stalled pipe) delays the signal by onStopWait at most.
	OnStop func(c Cause, sig os.Signal)
}

// Result is how a run ended.
type Result struct {
	Cause Cause
	// Signal is the signal passed on, for Signaled.
	Signal os.Signal
	// Code is the agent's exit status, 128+N when signal N ended it.
	Code int
	// KilledBy is the signal that ended the agent, 0 when it exited.
	KilledBy syscall.Signal
	// PGID is the agent's process group (its pid).
	PGID int
	// TranscriptErr is the error that stopped the transcript, if any.
	TranscriptErr error
}

// StartError is a command that could not be started.
type StartError struct {
	Name string
	Err  error
}

func (e *StartError) Error() string { return fmt.Sprintf("cannot start %s: %v", e.Name, e.Err) }
func (e *StartError) Unwrap() error { return e.Err }

// ExitCode is the status a shell gives the same failure: 127 when the
// command does not exist, 126 when it exists but cannot be run.
func (e *StartError) ExitCode() int {
	if errors.Is(e.Err, exec.ErrNotFound) || errors.Is(e.Err, os.ErrNotExist) {
		return 127
	}
	return 126
}

// pollEvery is how often a stopping process group is checked for survivors.
const pollEvery = 20 * time.Millisecond

// killWait bounds the wait for a group to vanish after SIGKILL (a process in
// uninterruptible sleep can outlive it for a while).
const killWait = 5 * time.Second

// lingerPoll is how often a run with Linger asks Finished. The consumer may
// read ahead of what it has converted, so the final event can be converted
// after the read that follows it has blocked: only asking again finds it.
const lingerPoll = 100 * time.Millisecond

// onStopWait bounds how long OnStop may keep the group from being signalled.
const onStopWait = time.Second

var errUnsupported = errors.New("run needs process groups, which this system lacks")

// SignalCause is a context's cause (context.Cause) that names the signal to
// pass on to the agent's group when the context is done.
type SignalCause interface {
	StopSignal() os.Signal
}

// stopSignal is the signal ctx's cause names, else SIGTERM.
func stopSignal(ctx context.Context) os.Signal {
	var sc SignalCause
	if errors.As(context.Cause(ctx), &sc) {
		if sig := sc.StopSignal(); sig != nil {
			return sig
		}
	}
	return syscall.SIGTERM
}

// Run starts the agent and runs consume on its standard output, in a
// goroutine, until the output ends; whatever consume leaves unread still
// goes to the transcript. When ctx is done the agent's group gets the signal
// its cause names (SignalCause; SIGTERM by default), then SIGKILL after
// Grace; once the agent has exited, what is left of its group gets SIGKILL
// at once. Run returns once the agent has exited, its process group is gone
// and its output is consumed. A command that cannot be started gives a
// *StartError and runs nothing.
func Run(ctx context.Context, cfg Config, consume func(io.Reader)) (Result, error) {
	if len(cfg.Argv) == 0 {
		return Result{}, &StartError{Name: "", Err: errors.New("no command")}
	}
	if !supported {
		return Result{}, &StartError{Name: cfg.Argv[0], Err: errUnsupported}
	}
	p, err := start(cfg)
	if err != nil {
		return Result{}, err
	}
	res := Result{PGID: p.pgid}

	out := &output{f: p.stdout, transcript: cfg.Transcript, tee: cfg.Tee, start: time.Now()}
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		consume(out)
		_, _ = io.Copy(io.Discard, out) // keep the transcript whole and the agent unblocked
	}()

	var timeoutC <-chan time.Time
	if cfg.Timeout > 0 {
		t := time.NewTimer(cfg.Timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	var lingerC <-chan time.Time
	if cfg.Linger > 0 && cfg.Finished != nil {
		t := time.NewTicker(min(cfg.Linger, lingerPoll))
		defer t.Stop()
		lingerC = t.C
	}
	// The run ends when the agent has exited, its output is consumed, and
	// no process of its group is left.
	exited, groupGone, gone := p.exited, (<-chan struct{})(nil), false
	var drainC <-chan time.Time
	stopping := false
	stop := func(c Cause, sig os.Signal, send syscall.Signal) {
		if stopping {
			p.group.kill()
			return
		}
		stopping = true
		res.Cause, res.Signal = c, sig
		if cfg.OnStop != nil {
			t := time.AfterFunc(onStopWait, func() { p.group.stop(send, cfg.Grace) })
			cfg.OnStop(c, sig)
			t.Stop()
		}
		groupGone = p.group.stop(send, cfg.Grace)
	}
	stopC, killC := ctx.Done(), cfg.Kill
	signaled := func() {
		sig := stopSignal(ctx)
		s, ok := sig.(syscall.Signal)
		if !ok {
			s = syscall.SIGTERM
		}
		stop(Signaled, sig, s)
	}
	for exited != nil || consumed != nil || !gone {
		select {
		case <-timeoutC:
			timeoutC = nil
			if exited != nil {
				stop(TimedOut, nil, syscall.SIGTERM)
			}
		case <-lingerC:
			if exited != nil && !stopping && out.quiet() >= cfg.Linger && cfg.Finished() {
				stop(Lingered, nil, syscall.SIGTERM)
			}
		case <-stopC:
			stopC = nil
			if exited == nil {
				p.group.kill() // only leftovers remain: hurry them up
				continue
			}
			signaled()
		case <-killC:
			killC = nil
			if exited != nil && !stopping {
				signaled() // the verdict first, as for the stop it follows
			}
			p.group.kill()
		case <-exited:
			exited = nil
			// What the agent left running in its group goes with it.
			groupGone = p.group.stop(syscall.SIGTERM, cfg.Grace)
		case <-groupGone:
			groupGone = nil
			if exited == nil {
				gone = true
				drainC = time.After(cfg.Drain)
			}
		case <-drainC:
			drainC = nil
			p.cutOutput()
		case <-consumed:
			consumed = nil
		}
	}
	p.finish(cfg.Drain)
	res.Code, res.KilledBy = p.status()
	res.TranscriptErr = out.transcriptErr()
	return res, nil
}

// process is a started agent.
type process struct {
	cmd     *exec.Cmd
	pgid    int
	stdout  *os.File
	stderrR *os.File      // our end of the stderr copy, or nil
	stderrC chan struct{} // closed when the stderr copy ends, or nil
	exited  chan struct{}
	group   *group
}

func start(cfg Config) (*process, error) {
	name := cfg.Argv[0]
	cmd := exec.Command(name, cfg.Argv[1:]...)
	cmd.SysProcAttr = sysProcAttr()
	// theirs are the agent's ends of the pipes, closed once it holds them;
	// ours are closed as well when it cannot start.
	var theirs, ours []*os.File
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			_ = f.Close()
		}
	}
	fail := func(err error) (*process, error) {
		closeAll(theirs)
		closeAll(ours)
		return nil, &StartError{Name: name, Err: err}
	}

	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	cmd.Stdout = stdoutW
	theirs, ours = append(theirs, stdoutW), append(ours, stdoutR)
	p := &process{stdout: stdoutR, exited: make(chan struct{})}

	// Pipes we copy through ourselves, so that exec.Cmd.Wait returns as soon
	// as the agent exits, whatever its children still hold open.
	var stdinW *os.File
	switch in := cfg.Stdin.(type) {
	case nil:
	case *os.File:
		cmd.Stdin = in
	default:
		r, w, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		cmd.Stdin, stdinW = r, w
		theirs, ours = append(theirs, r), append(ours, w)
	}
	switch e := cfg.Stderr.(type) {
	case nil:
	case *os.File:
		cmd.Stderr = e
	default:
		r, w, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		cmd.Stderr = w
		theirs, ours = append(theirs, w), append(ours, r)
		p.stderrR, p.stderrC = r, make(chan struct{})
	}

	if err := cmd.Start(); err != nil {
		return fail(startCause(err))
	}
	closeAll(theirs)
	p.cmd, p.pgid = cmd, cmd.Process.Pid
	p.group = &group{pgid: p.pgid, killNow: make(chan struct{}, 1)}
	if stdinW != nil {
		go func() {
			// An agent that never reads its input makes this fail with EPIPE
			// once it is gone: nothing to report.
			_, _ = io.Copy(stdinW, cfg.Stdin)
			_ = stdinW.Close()
		}()
	}
	if p.stderrR != nil {
		go func() {
			defer close(p.stderrC)
			_, _ = io.Copy(cfg.Stderr, p.stderrR)
		}()
	}
	go func() {
		_ = cmd.Wait() // the status is read from ProcessState
		close(p.exited)
	}()
	return p, nil
}

// startCause strips the wrapping exec adds ("exec: \"x\": …", "fork/exec x: …"),
// since StartError names the command already.
func startCause(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// cutOutput makes the consumer's pending and later reads end, for output
// still held open by a process outside the group.
func (p *process) cutOutput() {
	_ = p.stdout.SetReadDeadline(time.Now())
}

// finish waits, at most drain, for the stderr copy, and releases our ends.
func (p *process) finish(drain time.Duration) {
	if p.stderrC != nil {
		select {
		case <-p.stderrC:
		case <-time.After(drain):
			_ = p.stderrR.SetReadDeadline(time.Now())
			<-p.stderrC
		}
		_ = p.stderrR.Close()
	}
	_ = p.stdout.Close()
}

func (p *process) status() (int, syscall.Signal) {
	ps := p.cmd.ProcessState
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), ws.Signal()
	}
	return ps.ExitCode(), 0
}

// output is the agent's standard output as the consumer reads it.
type output struct {
	f     *os.File
	start time.Time
	last  atomic.Int64 // when data last came, as time since start

	mu         sync.Mutex // one Read at a time, see Read; guards what follows
	transcript io.Writer
	tee        io.Writer
	terr       error
}

// Read reads the agent's output and copies what it got to the transcript
// and the tee. Reads may come from more than one goroutine: a consumer may
// return while a reader of its own is still waiting for input (convert.Feed
// reads ahead), and Run then drains the rest. One Read at a time keeps the
// transcript in the order the agent wrote it.
func (o *output) Read(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.f.Read(b)
	if n > 0 {
		o.last.Store(int64(time.Since(o.start)))
		o.copy(b[:n])
	}
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, os.ErrClosed) {
		err = io.EOF // cut by Run: the end of the output as far as we care
	}
	return n, err
}

// quiet is how long the agent has printed nothing.
func (o *output) quiet() time.Duration {
	return time.Since(o.start) - time.Duration(o.last.Load())
}

func (o *output) copy(b []byte) {
	if o.transcript != nil {
		if _, err := o.transcript.Write(b); err != nil {
			o.terr, o.transcript = err, nil
		}
	}
	if o.tee != nil {
		if _, err := o.tee.Write(b); err != nil {
			o.tee = nil
		}
	}
}

// transcriptErr is the error that stopped the transcript. Run asks once the
// output is closed, so no Read holds the lock for long.
func (o *output) transcriptErr() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.terr
}

// group stops a process group: a signal, then SIGKILL after a grace period
// while any member is left.
type group struct {
	pgid    int
	once    sync.Once
	done    chan struct{}
	killNow chan struct{}
}

// stop signals the group and returns a channel closed once no member is
// left (or SIGKILL did not help within killWait). Later calls only return
// the channel.
func (g *group) stop(sig syscall.Signal, grace time.Duration) <-chan struct{} {
	g.once.Do(func() {
		g.done = make(chan struct{})
		go g.run(sig, grace)
	})
	return g.done
}

// kill sends SIGKILL now, starting a stop if none is running.
func (g *group) kill() {
	g.stop(syscall.SIGKILL, 0)
	select {
	case g.killNow <- struct{}{}:
	default:
	}
}

func (g *group) run(sig syscall.Signal, grace time.Duration) {
	defer close(g.done)
	if !GroupAlive(g.pgid) {
		return
	}
	_ = signalGroup(g.pgid, sig)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	graceT := time.NewTimer(grace)
	defer graceT.Stop()
	var giveUp <-chan time.Time
	killed := sig == syscall.SIGKILL
	if killed {
		giveUp = time.After(killWait)
	}
	kill := func() {
		if !killed {
			killed = true
			_ = signalGroup(g.pgid, syscall.SIGKILL)
			giveUp = time.After(killWait)
		}
	}
	for {
		select {
		case <-tick.C:
			if !GroupAlive(g.pgid) {
				return
			}
		case <-graceT.C:
			kill()
		case <-g.killNow:
			kill()
		case <-giveUp:
			return
		}
	}
}
