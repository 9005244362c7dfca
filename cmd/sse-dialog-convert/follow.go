package main

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/follow"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
)

// registerFollow adds --follow and --idle-timeout (root command only).
func (o *convertOptions) registerFollow(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&o.follow, "follow", false, "convert FILE while another process writes it, until its final event, --idle-timeout or a signal")
	o.idleTimeout = 5 * time.Minute
	f.Var((*cli.DurationValue)(&o.idleTimeout), "idle-timeout", "with --follow, stop after `DURATION` without new data: seconds or a duration (0: never)")
}

// runFollow converts file while another process writes it (--follow).
func runFollow(ctx context.Context, o convertOptions, copt dispatch.Options, wopt dialog.Options, file string, stdout, stderr io.Writer) error {
	path := o.outputPath()
	if path != "-" && inputs.SameAbsPath(path, file) {
		return cli.Refusef("refusing to write the dialog to %s: it is the file followed", path)
	}
	if f, err := os.Open(file); err == nil {
		err = follow.RefuseCompressed(f, file)
		f.Close()
		if err != nil {
			return err // before the output is created: it stays as it was
		}
	}
	s := o.jobSpec(inputs.Source{Name: file}, copt, wopt, stderr)
	s.Out = convert.FileOutput(path, stdout)
	s.Reads = append(o.reads(nil), inputs.StatFile("the input", file)) // it may not exist yet
	s.Feed = convert.FollowFeed(file, o.idleTimeout, stderr)
	ctx, release := cli.CatchStops(ctx)
	defer release()
	_, err := convert.New(s).Run(ctx)
	return err
}
