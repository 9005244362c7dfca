package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
)

// catchStops returns a context that SIGINT, SIGTERM and SIGHUP cancel, with
// the signal as its cause (a *cli.Stopped), instead of ending the process; and
// makes a write into a closed pipe (stdout, the reader of --tee) fail with
// EPIPE instead of killing us before the dialog is complete. SIGPIPE is
// caught, not ignored: an ignored signal stays ignored in the agent run
// starts, and Ignore would outlive the command.
//
// After the first signal the next one takes its default action: the way
// out when the output is stuck and the dialog cannot be closed. With
// later set (run), signals keep being caught and the later ones are sent
// there instead. release undoes it all.
func catchStops(parent context.Context, later chan<- os.Signal) (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				switch {
				case ctx.Err() == nil:
					if later == nil {
						signal.Stop(sigs)
					}
					cancel(&cli.Stopped{Signal: sig})
				case later != nil:
					select {
					case later <- sig:
					default: // one is waiting already: it does what this one would
					}
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		close(done)
		signal.Stop(sigs)
		signal.Stop(pipes)
		cancel(context.Canceled)
	}
}
