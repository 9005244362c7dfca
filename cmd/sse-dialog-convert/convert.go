package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
)

// runConvert converts FILEs (standard input when none) into one dialog,
// or each into its own with --out-dir, or follows one with --follow.
func runConvert(ctx context.Context, o convertOptions, files []string, stdin io.Reader, stdout, stderr io.Writer) error {
	copt, err := o.check()
	if err != nil {
		return err
	}
	if err := o.checkOffline(files); err != nil {
		return err
	}
	if err := o.checkStats(); err != nil {
		return err
	}
	wopt, err := o.writerOptions()
	if err != nil {
		return err
	}
	if o.filesFrom != "" {
		list, err := inputs.ReadFileList(o.filesFrom, o.nul, stdin)
		if err != nil {
			return err
		}
		files = append(files, list...)
	}
	if o.follow {
		return runFollow(ctx, o, copt, wopt, files[0], stdout, stderr)
	}
	if len(files) == 0 && o.filesFrom == "" {
		files = []string{"-"}
	}
	srcs := inputs.Sources(files, copt.Formats, copt.Forced, stdin, o.sourceJobs())
	if o.outDir != "" {
		return runBatch(ctx, o, copt, wopt, srcs, stdin, stderr)
	}
	src, err := inputs.OneDialog(srcs)
	if err != nil {
		return err
	}
	if o.tee && src.Format != nil {
		return cli.Usagef("--tee copies a stream as it is read; %s is read as %s (its files merged)", src.Name, src.Format.Title)
	}
	s := o.jobSpec(src, copt, wopt, stderr)
	s.Out = convert.FileOutput(o.outputPath(), stdout)
	s.Writer.Saved = src.Saved()
	if o.tee {
		s.Tee = stdout
	}
	s.Reads = o.reads(stdin)

	// Signals are caught before the output exists: from then on the dialog
	// always gets its complete entry.
	ctx, release := cli.CatchStops(ctx)
	defer release()
	if src.ReadsStdin() && o.streams.InTerminal {
		fmt.Fprintf(stderr, "%s: reading agent events from standard input (a terminal); Ctrl-D ends them\n", name)
	}
	res, err := convert.New(s).Run(ctx)
	if o.stats == "" || !res.Converted {
		return err
	}
	// The stats come last on stderr: what went wrong is told before them.
	cli.Tell(stderr, err)
	convert.TellStats(stderr, o.stats, []*convert.FileStats{convert.StatsOf(src.Name, "", res)}, false)
	return cli.Failed(cli.ExitCode(err))
}
