package main

import (
	"context"
	"io"
	"runtime"
	"slices"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
)

// registerOffline adds the flags for saved and growing transcripts. They
// belong to the root command only: run has a live agent, not files.
func (o *convertOptions) registerOffline(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.outDir, "out-dir", "", "convert each FILE (each session of a folder) into its own dialog in `DIR`, named FILE's base name without .gz or .zst and .jsonl, .ndjson or .json, plus .dialog.jsonl")
	f.IntVarP(&o.jobs, "jobs", "j", 0, "with --out-dir, convert `N` files at a time (0: the number of CPUs)")
	f.StringVar(&o.filesFrom, "files-from", "", "with --out-dir, read more FILEs from `LIST`, one per line (- for standard input)")
	f.BoolVarP(&o.nul, "null", "0", false, "with --files-from, the names are separated by NUL bytes (find -print0)")
	f.StringVar(&o.base, "base", "", "with --out-dir, name each dialog from FILE's path below `DIR`, folders joined by _ (DIR/a1/t.jsonl: a1_t.dialog.jsonl): the same name in any batch or shard")
}

// checkOffline rejects flag combinations that make no sense with --out-dir
// or --follow.
func (o *convertOptions) checkOffline(files []string) error {
	switch {
	case o.outDir != "" && o.follow:
		return cli.Usagef("--out-dir and --follow cannot be combined")
	case o.outDir != "" && o.output != "":
		return cli.Usagef("--out-dir and -o cannot be combined: --out-dir names each dialog itself")
	case (o.outDir != "" || o.follow) && o.tee:
		return cli.Usagef("--tee works only for one live stream, not with --out-dir or --follow")
	case o.jobs < 0:
		return cli.Usagef("--jobs cannot be negative (0: the number of CPUs)")
	case o.idleTimeout < 0:
		return cli.Usagef("--idle-timeout cannot be negative")
	case o.idleTimeoutSet && !o.follow:
		return cli.Usagef("--idle-timeout works only with --follow")
	case o.follow && (len(files) != 1 || files[0] == "-"):
		return cli.Usagef("--follow takes exactly one FILE (standard input waits by itself)")
	case o.base != "" && o.outDir == "":
		return cli.Usagef("--base names the dialogs of --out-dir (give --out-dir DIR)")
	case o.jobsSet && o.outDir == "":
		return cli.Usagef("--jobs tells how many files --out-dir converts at a time (give --out-dir DIR)")
	case o.filesFrom != "" && o.outDir == "":
		return cli.Usagef("--files-from lists the FILEs of --out-dir (give --out-dir DIR)")
	case o.nul && o.filesFrom == "":
		return cli.Usagef("-0 tells how --files-from separates names: give --files-from")
	case o.outDir != "" && len(files) == 0 && o.filesFrom == "":
		return cli.Usagef("--out-dir needs at least one FILE (or --files-from)")
	case o.outDir != "" && slices.Contains(files, "-"):
		return cli.Usagef("--out-dir converts files; standard input has no name to give its dialog")
	}
	return nil
}

// jobCount is how many files --out-dir converts at a time.
func (o *convertOptions) jobCount() int {
	if o.jobs == 0 {
		return runtime.NumCPU()
	}
	return o.jobs
}

// sourceJobs is how many FILEs inputs.Sources asks at a time: --jobs for a batch,
// but no more than there are CPUs (each asker holds a file open and a read
// buffer of 256 KiB, and asking is mostly CPU work); one for one dialog (its
// FILEs are few, and a stream's legs).
func (o *convertOptions) sourceJobs() int {
	if o.outDir == "" {
		return 1
	}
	return min(o.jobCount(), runtime.NumCPU())
}

// runBatch converts every source into its own dialog in o.outDir, --jobs
// at a time (convert.Batch).
func runBatch(ctx context.Context, o convertOptions, copt dispatch.Options, wopt dialog.Options, srcs []inputs.Source, stdin io.Reader, stderr io.Writer) error {
	b := convert.Batch{
		OutDir: o.outDir, Base: o.base, Jobs: o.jobCount(), Stats: o.stats, Format: o.format, Strict: o.strict,
		Reads: o.reads(stdin), Converter: copt, Writer: wopt, Stderr: stderr, StderrTerminal: o.streams.ErrTerminal,
		CatchStops: cli.CatchStops,
	}
	return b.Run(ctx, srcs)
}
