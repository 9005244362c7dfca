package cli

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// CatchStops returns a context that SIGINT, SIGTERM and SIGHUP cancel, with
// the signal as its cause (a *Stopped), instead of ending the process; and
// makes a write into a closed pipe (stdout, the reader of --tee) fail with
// EPIPE instead of killing us before the dialog is complete. SIGPIPE is
// caught, not ignored: an ignored signal stays ignored in the agent run
// starts, and Ignore would outlive the command.
//
// After the first signal the next one takes its default action: the way
// out when the output is stuck and the dialog cannot be closed. release
// undoes it all.
func CatchStops(parent context.Context) (ctx context.Context, release func()) {
	ctx, _, release = catchStops(parent, false)
	return ctx, release
}

// CatchStopsAndKills is CatchStops for a command that passes the stop on
// to a process of its own (run): signals keep being caught, and the one
// after the first closes kill (the process is then killed at once).
func CatchStopsAndKills(parent context.Context) (ctx context.Context, kill <-chan struct{}, release func()) {
	return catchStops(parent, true)
}

func catchStops(parent context.Context, keep bool) (context.Context, <-chan struct{}, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	kill := make(chan struct{})
	var killOnce sync.Once
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				switch {
				case ctx.Err() == nil:
					if !keep {
						signal.Stop(sigs)
					}
					cancel(&Stopped{Signal: sig})
				case keep:
					killOnce.Do(func() { close(kill) })
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, kill, func() {
		close(done)
		signal.Stop(sigs)
		signal.Stop(pipes)
		cancel(context.Canceled)
	}
}
