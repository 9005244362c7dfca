package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/agentrun"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
)

// reasonNotStarted is complete.reason when the agent could not be started.
const reasonNotStarted = "not_started"

// drainAfterExit is how long the agent's output may stay open once the
// agent has exited and its process group is gone (a process that left the
// group holding the pipe): the run then stops reading.
const drainAfterExit = time.Second

// EnvTimeout reads $TIMEOUT: seconds, as the benchmark sets it (a Go
// duration such as 30m is accepted too). Empty or 0: no limit.
func EnvTimeout(s string) (time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	if d, err := cli.ParseSeconds(s); err == nil && d >= 0 {
		return d, nil
	}
	return 0, fmt.Errorf("TIMEOUT=%q is not a number of seconds; set it to seconds (TIMEOUT=1800), or give --timeout, which overrides it", s)
}

// Agent is run's feed: it starts the agent and converts its output.
type Agent struct {
	Argv   []string
	Stdin  io.Reader // the agent's
	Stdout io.Writer // ours: --tee's copy
	Stderr io.Writer // ours, the agent's too
	// Kill is closed by a second signal: SIGKILL to the agent's group.
	Kill                   <-chan struct{}
	Timeout, Grace, Linger time.Duration
	Tee                    bool
	// Transcript is where the agent's output is saved; "": nowhere.
	Transcript string
	// Writes lists the files the run writes besides the transcript, as
	// they are open once the feed starts (the dialog, standard output):
	// the transcript may be none of them.
	Writes func() []OpenFile
}

// OpenFile is a file a run writes: Name says it in a message ("the dialog
// "x.jsonl""), Info is what it is (nil: unknown).
type OpenFile struct {
	Name string
	Info os.FileInfo
}

// Feed starts the agent and converts its output with conv, until the
// agent is gone; ctx done stops it (agentrun.Run). It is run's
// convert.Feed.
func (a *Agent) Feed(ctx context.Context, conv *dispatch.Converter) convert.Fed {
	if ctx.Err() != nil { // stopped before the agent started: do not start it
		s := cli.StopOf(ctx)
		return convert.Fed{Code: s.ExitCode(), Ending: s.Ending()}
	}
	var transcript *os.File
	tpath := a.Transcript
	if tpath != "" {
		var err error
		if transcript, err = openTranscript(tpath, a.Writes()); err != nil {
			code := 1
			var ue *cli.UsageError
			if errors.As(err, &ue) {
				code = 2
			} else {
				err = fmt.Errorf("cannot write the transcript: %w", err)
			}
			return convert.Fed{Code: code, Errs: []error{err}, Ending: &dialog.Ending{Status: dialog.StatusError, Reason: reasonNotStarted, Message: err.Error()}}
		}
		defer transcript.Close() // for the early returns; closed and checked below
	}

	cfg := agentrun.Config{
		Argv:     a.Argv,
		Stdin:    a.Stdin,
		Stderr:   a.Stderr,
		Timeout:  a.Timeout,
		Grace:    a.Grace,
		Linger:   a.Linger,
		Drain:    drainAfterExit,
		Finished: conv.Finished,
		Kill:     a.Kill,
		OnStop: func(c agentrun.Cause, sig os.Signal) {
			// Close now: whoever sent the signal may not wait for the agent.
			switch c {
			case agentrun.TimedOut:
				fmt.Fprintf(a.Stderr, "%s: the agent ran for %v, its time limit: stopping it\n", cli.Program, a.Timeout)
				_ = conv.Close(&dialog.Ending{Status: dialog.StatusTimeout, Reason: dialog.ReasonTimeout,
					Message: fmt.Sprintf("stopped at the time limit of %v", a.Timeout)})
			case agentrun.Signaled:
				_ = conv.Close((&cli.Stopped{Signal: sig}).Ending())
			case agentrun.Lingered:
				fmt.Fprintf(a.Stderr, "%s: the agent printed nothing for %v after its final event: stopping it\n", cli.Program, a.Linger)
				_ = conv.Close(nil) // the final event decides
			}
		},
	}
	if transcript != nil {
		cfg.Transcript = transcript
	}
	if a.Tee {
		cfg.Tee = a.Stdout
	}
	var feedErr error
	// The stop the context brings is passed on to the agent's group.
	res, err := agentrun.Run(ctx, cfg, func(r io.Reader) { feedErr = conv.Feed(r, "<agent stdout>") })
	var se *agentrun.StartError
	if errors.As(err, &se) {
		return convert.Fed{Code: se.ExitCode(), Errs: []error{se}, Ending: &dialog.Ending{Status: dialog.StatusError, Reason: reasonNotStarted, Message: se.Error()}}
	}
	if err != nil {
		return convert.Fed{Code: 1, Errs: []error{err}}
	}

	if transcript != nil {
		if cerr := transcript.Close(); cerr != nil && res.TranscriptErr == nil {
			res.TranscriptErr = cerr
		}
	}
	f := convert.Fed{Whole: res.Cause == agentrun.Exited}
	f.Code, f.Ending = judge(res, conv)
	if res.TranscriptErr != nil {
		f.Errs = append(f.Errs, fmt.Errorf("writing the transcript to %s: %w", tpath, cli.UnwrapPath(res.TranscriptErr)))
		f.Code = convert.FailCode(f.Code, 1)
	}
	var oe *dispatch.OutputError
	switch {
	case errors.As(feedErr, &oe):
		f.OutErr = feedErr
	case feedErr != nil:
		// Reading a pipe fails only if something is badly wrong; say so.
		f.Errs = append(f.Errs, fmt.Errorf("reading the agent's output: %w", feedErr))
		f.Code = convert.FailCode(f.Code, 1)
	}
	return f
}

// judge gives our exit code and the dialog's ending, from how the run ended.
func judge(res agentrun.Result, conv *dispatch.Converter) (int, *dialog.Ending) {
	switch res.Cause {
	case agentrun.TimedOut:
		return res.Code, nil // the ending was written when the stop began
	case agentrun.Signaled:
		return (&cli.Stopped{Signal: res.Signal}).ExitCode(), nil
	case agentrun.Lingered:
		if conv.Summary().Status == dialog.StatusSuccess {
			return 0, nil
		}
		return 1, nil
	}
	if conv.Finished() {
		return res.Code, nil // the final event decides the dialog
	}
	msg := fmt.Sprintf("the agent exited with code %d before its final event", res.Code)
	if res.KilledBy != 0 {
		msg = fmt.Sprintf("the agent was killed by %s before its final event", cli.SignalName(res.KilledBy))
	}
	return res.Code, &dialog.Ending{Status: dialog.StatusError, Reason: dialog.ReasonIncomplete, Message: msg}
}

// openTranscript opens the transcript, creating it and its folder, and
// refuses it when it is one of the files the run writes (writes): through a
// dangling symlink or a symlinked folder, the usual first run, the check
// before the start sees no file yet, and the dialog and the transcript went
// into one file, both corrupt, exit 0. The open files are compared, before
// a byte is written; the transcript is emptied only after.
func openTranscript(path string, writes []OpenFile) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && info.Mode().IsRegular() {
		for _, w := range writes {
			if w.Info != nil && os.SameFile(info, w.Info) {
				f.Close()
				return nil, cli.Refusef("refusing to write the transcript to %s: it is the same file as %s", cli.QuoteName(path), w.Name)
			}
		}
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
