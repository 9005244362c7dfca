package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
	"github.com/ssebench/sse-dialog-convert/internal/runstats"
)

type statsOptions struct {
	format    string
	by        string
	sort      string
	filesFrom string
	nul       bool
	jobs      int
}

func newStatsCmd(streams *cli.Streams) *cobra.Command {
	var o statsOptions
	cmd := &cobra.Command{
		Use:   "stats [flags] DIALOG|TRANSCRIPT|DIR...",
		Short: "Compare many runs: one row per run, totals, sums by agent, model or status",
		Long: `stats reads dialogs, and any input the converter reads (converted in memory;
nothing is written), and prints one row per run: agent, model, status and
reason, turns, duration, tokens in/out/cache, cost, tool calls, tool errors,
warnings, subagents, the first prompt (cut) and the file; then the totals, and
with --by the sums per agent, model or status.

A DIR is read whole: a folder of sessions (Claude Code, Codex, Gemini CLI,
Harbor jobs) as its format reads it, one run per session; any other folder for
every .jsonl, .ndjson (also .gz, .zst) file in it, at any depth. A value the
dialog does not give (a cost, a duration) is shown as "—" (empty in CSV), and
left out of the sums.`,
		Example: `  sse-dialog-convert stats dialogs/
  sse-dialog-convert stats --by model --sort cost runs/*/dialog.jsonl
  sse-dialog-convert stats --format csv ~/.claude/projects > runs.csv
  find runs -name dialog.jsonl -print0 | sse-dialog-convert stats --files-from - -0 --format json`,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStats(cmd.Context(), o, args, conversions{streams: streams}, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "table", "output `FORMAT`: "+strings.Join(runstats.Formats, ", "))
	f.StringVar(&o.by, "by", "", "also sum the runs up by `KEY`: "+strings.Join(runstats.GroupKeys, ", "))
	f.StringVar(&o.sort, "sort", "", "order the runs by `KEY`, largest first: cost, duration, tokens, turns, errors (or file)")
	f.StringVar(&o.filesFrom, "files-from", "", "read more inputs from `LIST`, one per line (- for standard input)")
	f.BoolVarP(&o.nul, "null", "0", false, "with --files-from, the names are separated by NUL bytes (find -print0)")
	f.IntVarP(&o.jobs, "jobs", "j", runtime.NumCPU(), "read `N` runs at a time")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(runstats.Formats, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("by", cobra.FixedCompletions(runstats.GroupKeys, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runStats(ctx context.Context, o statsOptions, args []string, c conversions, stdin io.Reader, stdout, stderr io.Writer) error {
	if !slices.Contains(runstats.Formats, o.format) {
		return cli.Usagef("unknown --format %q (want %s)", o.format, strings.Join(runstats.Formats, ", "))
	}
	if o.by != "" && !slices.Contains(runstats.GroupKeys, o.by) {
		return cli.Usagef("unknown --by %q (want %s)", o.by, strings.Join(runstats.GroupKeys, ", "))
	}
	if o.jobs < 1 {
		return cli.Usagef("--jobs must be at least 1")
	}
	if o.nul && o.filesFrom == "" {
		return cli.Usagef("-0 tells how --files-from separates names: give --files-from")
	}
	files := args
	if o.filesFrom != "" {
		more, err := inputs.ReadFileList(o.filesFrom, o.nul, stdin)
		if err != nil {
			return err
		}
		files = append(slices.Clone(files), more...)
	}
	if len(files) == 0 {
		return cli.Usagef("stats needs at least one DIALOG, TRANSCRIPT or DIR")
	}
	var runs []inputs.Run
	var rows []runstats.Row // rows of inputs that could not even be listed
	for _, f := range files {
		found, err := inputs.RunsOf(f, stdin)
		if err != nil {
			rows = append(rows, runstats.Failed(f, err))
			continue
		}
		runs = append(runs, found...)
	}
	stderr = &cli.LockedWriter{W: stderr}
	rows = append(rows, convert.Rows(ctx, runs, o.jobs, func(run inputs.Run) runstats.Row { return c.statsRow(ctx, run, stdin, stderr) })...)
	if ctx.Err() != nil {
		return cli.StopOf(ctx)
	}
	if o.sort != "" {
		if err := runstats.SortBy(rows, o.sort); err != nil {
			return cli.Usagef("--sort: %v", err)
		}
	}
	rep, err := runstats.NewReport(rows, o.by)
	if err != nil {
		return cli.Usagef("--by: %v", err)
	}
	if err := rep.Write(stdout, o.format); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Err != "" {
			return &cli.ExitError{Code: 1} // each failure is a row that says why
		}
	}
	return nil
}

// statsRow reads one run as view does: a dialog as it is, anything else
// converted in memory.
func (c conversions) statsRow(ctx context.Context, run inputs.Run, stdin io.Reader, stderr io.Writer) runstats.Row {
	name := run.File
	var r io.ReadCloser
	var err error
	if run.Source != nil {
		name = run.Source.Name
		if run.Source.Err != nil {
			return runstats.Failed(name, run.Source.Err)
		}
		r, err = c.convertSource(ctx, *run.Source, stderr)
	} else {
		r, err = c.dialogSource(ctx, run.File, stdin, stderr)
	}
	if err != nil {
		return runstats.Failed(name, err)
	}
	d, err := dialogread.Read(r, nil)
	// Close ends the reading (the file, the conversion) at once, not when
	// the collector gets to it, and says what failed first.
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return runstats.Failed(name, err)
	}
	if d.Init == nil {
		return runstats.Failed(name, fmt.Errorf("no dialog: the input holds no entries"))
	}
	return runstats.FromDialog(d, name)
}
