package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
)

// runProgram is the whole program; main only passes it the process's
// streams and environment. ctx is cancelled, with a *cli.Stopped as its cause, to stop a
// conversion as a signal does (the signals themselves are caught by the
// commands that convert: cli.CatchStops).
func runProgram(ctx context.Context, args []string, streams *cli.Streams) int {
	if args == nil {
		args = []string{} // nil makes cobra read os.Args
	}
	cmd := newRootCmd(streams)
	cmd.SetArgs(args)
	ran, err := cmd.ExecuteContextC(ctx)
	var ue *cli.UsageError
	if errors.As(err, &ue) && ran != nil {
		ue.Where = ran.CommandPath()
	}
	cli.Tell(streams.ErrOut, err)
	return cli.ExitCode(err)
}

// formatTable lists the formats the converter reads, one per line: the
// --format value and what users call it.
func formatTable() string {
	var b strings.Builder
	for _, f := range registry.Readable() {
		fmt.Fprintf(&b, "  %-15s %s\n", f.Name, f.Title)
	}
	return b.String()
}

// convertLong is the help of a conversion: the root command's, and
// convert's, which is the root's other name.
func convertLong() string {
	return `sse-dialog-convert reads the JSON event stream of a coding agent, or the session
files it keeps, and writes the SSEBench dialog protocol: one JSON entry per
line, each written and flushed as soon as its input line is read, so the web
UI can show the run live. The formats it reads (--format, detected by default):

` + formatTable() + `
Input is the FILEs in order, as one stream, or standard input when there are
none (or for "-"); gzip and zstd data are read as such. A FILE that is a
session file, or a folder of them, is read the way its format says (a
session's subagents' files with it); a folder of several sessions needs
--out-dir (one dialog each). Output goes to -o PATH, else
$SSE_ARCHIVE/dialog.jsonl, else /tmp/sse-archive/dialog.jsonl; the folder is
created and the file overwritten, but never when it is one of the inputs.
Lines that are not JSON objects are skipped, counted and reported on stderr.

Exit status: 0 ok; 1 failure (I/O, --strict findings, an input in no format
it converts, invalid dialog); 2 usage, or a refusal to write over an input;
128+N when stopped by signal N (the dialog then ends with status timeout).
Every error is one line on stderr that says what to do.`
}

// convertExample is the examples of a conversion (root and convert).
const convertExample = `  # live, in a pipe in the task container: entries reach $SSE_ARCHIVE/dialog.jsonl as the agent works
  claude -p "$PROMPT" --output-format stream-json --verbose | sse-dialog-convert --prompt "$PROMPT"

  # the same mid-pipeline: the agent's output flows on, unchanged
  codex exec --json "$PROMPT" | sse-dialog-convert --tee | jq -c .

  # wrap the agent: live dialog, raw transcript, time limit, the agent's exit code
  sse-dialog-convert run --timeout 30m --prompt "$PROMPT" -- codex exec --json "$PROMPT"

  # offline: one saved transcript, or many at once (one dialog each, in parallel)
  sse-dialog-convert transcript.jsonl -o dialog.jsonl
  sse-dialog-convert --out-dir dialogs/ runs/*/transcript.jsonl

  # the session files an agent keeps: one session, or a whole folder of them
  sse-dialog-convert ~/.claude/projects/-work-app/0b9c….jsonl -o dialog.jsonl
  sse-dialog-convert --out-dir dialogs/ ~/.codex/sessions/2026/01/02

  # a file list too long for the command line (one name a line; -0: NUL-separated)
  find runs -name transcript.jsonl | sse-dialog-convert --out-dir dialogs/ --files-from -

  # a transcript another process is still writing, until its final event
  sse-dialog-convert --follow runs/live/transcript.jsonl -o runs/live/dialog.jsonl

  # CI fixtures: byte-identical on any machine, then checked against the protocol
  SOURCE_DATE_EPOCH=0 sse-dialog-convert --cwd /work transcript.jsonl -o dialog.jsonl
  sse-dialog-convert validate dialog.jsonl`

func newRootCmd(streams *cli.Streams) *cobra.Command {
	cmd := newConvertCmd(streams, name+" [flags] [FILE ...]", "Convert coding-agent JSON event streams into SSEBench dialog.jsonl")
	cmd.Version = buildVersion()
	cmd.SilenceUsage = true
	cmd.SilenceErrors = true
	cmd.SetIn(streams.In)
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	cmd.SetFlagErrorFunc(cli.FlagError) // the subcommands' too
	convert := newConvertCmd(streams, "convert [flags] [FILE ...]", "Convert transcripts into dialog.jsonl: what "+name+" does without a command")
	convert.Example = "  " + name + " convert transcript.jsonl -o dialog.jsonl"
	cmd.AddCommand(convert)
	cmd.AddCommand(newValidateCmd(streams))
	cmd.AddCommand(newRunCmd(streams))
	cmd.AddCommand(newViewCmd(streams))
	cmd.AddCommand(newExportCmd(streams))
	cmd.AddCommand(newStatsCmd(streams))
	cmd.SetHelpCommand(newHelpCmd())
	cmd.InitDefaultCompletionCmd()
	for _, c := range cmd.Commands() {
		if c.Name() == "completion" {
			strictCompletion(c)
		}
	}
	return cmd
}

// newConvertCmd is a conversion: the root command, and convert, its other
// name (so that "convert FILE" converts FILE, as people type it).
func newConvertCmd(streams *cli.Streams, use, short string) *cobra.Command {
	o := convertOptions{streams: streams}
	cmd := &cobra.Command{
		Use:                   use,
		Short:                 short,
		Long:                  convertLong(),
		Example:               convertExample,
		DisableFlagsInUseLine: true,
		Args:                  cobra.ArbitraryArgs,
		// FILEs: without this, completion offers only the subcommands.
		ValidArgsFunction: cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.HasParent() {
				if err := cli.NotACommand(cmd, args); err != nil {
					return err
				}
			}
			o.idleTimeoutSet = cmd.Flags().Changed("idle-timeout")
			o.jobsSet = cmd.Flags().Changed("jobs")
			return runConvert(cmd.Context(), o, args, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.register(cmd)
	o.registerOffline(cmd)
	o.registerFollow(cmd)
	o.registerStats(cmd)
	return cmd
}

// newHelpCmd is cobra's help command, except that a topic that is no
// command is an error (exit 2), not the root's help with exit 0.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Args:  cobra.ArbitraryArgs,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var names []cobra.Completion
			for _, sub := range c.Root().Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				// The root takes FILEs: Find leaves a name that is no
				// command in rest.
				topic := strings.Join(args, " ")
				if best := cli.ClosestCommand(root, cli.FirstOf(append(rest, topic)...)); best != "" {
					return cli.Refusef("unknown help topic %q; did you mean %q?", topic, best)
				}
				return cli.Refusef("unknown help topic %q (the commands: %s)", topic, strings.Join(cli.CommandNames(root), ", "))
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

// strictCompletion makes cobra's completion command refuse a shell it has
// no script for (it printed its help and exited 0).
func strictCompletion(c *cobra.Command) {
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return c.Help()
		}
		var shells []string
		for _, sub := range c.Commands() {
			shells = append(shells, sub.Name())
		}
		if best := cli.Closest(args[0], shells); best != "" {
			return cli.Refusef("no completion for %q; did you mean %q?", args[0], best)
		}
		return cli.Refusef("no completion for %q: the shells are %s (%s completion SHELL)", args[0], strings.Join(shells, ", "), name)
	}
}
