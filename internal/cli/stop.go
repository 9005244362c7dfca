package cli

import (
	"context"
	"fmt"
	"os"
	"syscall"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// Stopped is the cause of a conversion's context when a signal stops it
// (or a caller stops it as a signal would). As an error it ends the
// program with 128+N and says nothing: the dialog says it.
type Stopped struct{ Signal os.Signal }

func (s *Stopped) Error() string { return "stopped by " + SignalName(s.Signal) }
func (s *Stopped) ExitCode() int { return 128 + signalNumber(s.Signal) }

// StopSignal is the signal to pass on to a process we run
// (agentrun.SignalCause).
func (s *Stopped) StopSignal() os.Signal { return s.Signal }

// Ending is how a dialog ends when the stop cuts it short.
func (s *Stopped) Ending() *dialog.Ending {
	return &dialog.Ending{Status: dialog.StatusTimeout, Reason: dialog.ReasonSignal, Message: s.Error()}
}

// StopOf returns why ctx was stopped: its cause when that is a signal's,
// else a stop with no signal to name (SIGTERM's status, the one a plain
// "stop" gets).
func StopOf(ctx context.Context) *Stopped {
	if s, ok := context.Cause(ctx).(*Stopped); ok {
		return s
	}
	return &Stopped{Signal: syscall.SIGTERM}
}

func signalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return 1
}

// SignalName names a signal as shell users know it: SIGTERM, not Go's
// "terminated".
func SignalName(sig os.Signal) string {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return sig.String()
	}
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	}
	return fmt.Sprintf("signal %d (%v)", int(s), s)
}
