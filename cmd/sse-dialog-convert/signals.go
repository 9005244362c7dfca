package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// catchStops makes SIGINT, SIGTERM and SIGHUP arrive on the returned
// channel (of capacity n) instead of ending the process, and a write into a
// closed pipe (stdout, the reader of --tee) fail with EPIPE instead of
// killing us before the dialog is complete. SIGPIPE is caught, not ignored:
// an ignored signal stays ignored in the agent run starts, and Ignore would
// outlive the command. release undoes both.
func catchStops(n int) (sigs chan os.Signal, release func()) {
	sigs = make(chan os.Signal, n)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	return sigs, func() {
		signal.Stop(sigs)
		signal.Stop(pipes)
	}
}

// signalEnding is how a dialog ends when a signal stops the conversion.
func signalEnding(sig os.Signal) *dialog.Ending {
	return &dialog.Ending{
		Status:  dialog.StatusTimeout,
		Reason:  dialog.ReasonSignal,
		Message: "stopped by " + signalName(sig),
	}
}

func signalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return 1
}

// signalName names a signal as shell users know it: SIGTERM, not Go's
// "terminated".
func signalName(sig os.Signal) string {
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
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	}
	return fmt.Sprintf("signal %d (%v)", int(s), s)
}
