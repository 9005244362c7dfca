package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/command"
	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
)

type runOptions struct {
	convertOptions
	stdinFile    string
	promptStdin  bool
	transcript   string
	noTranscript bool
	timeout      time.Duration
	grace        time.Duration
	linger       time.Duration
}

func newRunCmd(streams *cli.Streams) *cobra.Command {
	o := runOptions{convertOptions: convertOptions{streams: streams}}
	cmd := &cobra.Command{
		Use:   "run [flags] -- COMMAND [ARG ...]",
		Short: "Run an agent and convert its output live",
		Long: `run starts COMMAND, converts its standard output into the dialog as each line
arrives, and saves the output unchanged as the transcript — the job of the
benchmark's agent wrappers. Every conversion flag works as without run. When
the stream names no model, init has the one COMMAND's arguments ask for (as
codex -m o3), read the way the agent reads them, for these commands:
` + inputs.ModelCommands() + `. --model and $SSE_MODEL_NAME still come first.

COMMAND gets our environment and standard input (or --stdin-file; or, with
--prompt-stdin, the prompt, then end of input). Its standard error goes to
ours unchanged. The transcript is $SSE_ARCHIVE/transcript.jsonl, else
/tmp/sse-archive/transcript.jsonl, or --transcript PATH.

COMMAND runs in a process group of its own, and the group is stopped
(SIGTERM, SIGKILL after --grace):
  - when --timeout expires (default $TIMEOUT seconds when set): the dialog
    ends with status timeout, reason timeout; exit status COMMAND's (143
    when SIGTERM ended it, 137 when it took SIGKILL);
  - when we get SIGINT, SIGTERM or SIGHUP (that signal is passed on, a second
    one sends SIGKILL): status timeout, reason signal; exit status 128+N;
  - when COMMAND printed its final event and then nothing for --linger (an
    agent that hangs at the end): the final event decides the dialog; exit
    status 0 if it was a success, else 1;
  - when COMMAND exits: whatever it left running in its group is stopped too.
Otherwise the exit status is COMMAND's (128+N when signal N killed it); if it
ended without its final event, the dialog ends with status error, reason
incomplete, and a message with the code. A COMMAND that cannot be started
gives one line on stderr, a dialog with status error (reason not_started)
and exit status 127 (not found) or 126 (not executable).`,
		Example: `  # wrap Codex, with the benchmark's limit
  sse-dialog-convert run --timeout 30m --prompt "$PROMPT" -- codex exec --json "$PROMPT"

  # Claude Code, reading the prompt from its standard input
  sse-dialog-convert run --prompt-file task.md --prompt-stdin -- \
    claude -p --output-format stream-json --verbose`,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("timeout") {
				d, err := command.EnvTimeout(streams.Getenv("TIMEOUT"))
				if err != nil {
					return err
				}
				o.timeout = d
			}
			return runRun(cmd.Context(), o, args, streams.In, streams.Out, streams.ErrOut)
		},
	}
	// Flags after COMMAND are COMMAND's, with or without "--".
	cmd.Flags().SetInterspersed(false)
	o.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.stdinFile, "stdin-file", "", "give COMMAND `FILE` as its standard input")
	f.BoolVar(&o.promptStdin, "prompt-stdin", false, "write the prompt (--prompt, --prompt-file) to COMMAND's standard input, then close it")
	f.StringVar(&o.transcript, "transcript", "", "save COMMAND's output to `PATH` (default $SSE_ARCHIVE/transcript.jsonl, else /tmp/sse-archive/transcript.jsonl)")
	f.BoolVar(&o.noTranscript, "no-transcript", false, "do not save COMMAND's output")
	o.grace, o.linger = 10*time.Second, 30*time.Second
	f.Var((*cli.DurationValue)(&o.timeout), "timeout", "stop COMMAND after `DURATION`: seconds (1800) or a duration (30m) (default $TIMEOUT seconds when set; 0: no limit)")
	f.Var((*cli.DurationValue)(&o.grace), "grace", "`DURATION` between SIGTERM and SIGKILL when stopping COMMAND")
	f.Var((*cli.DurationValue)(&o.linger), "linger", "stop COMMAND when it prints nothing for `DURATION` after its final event (0: wait for it)")
	return cmd
}

func (o *runOptions) transcriptPath() string {
	return cli.FirstOf(o.transcript, o.archivePath("transcript.jsonl"))
}

// checkRun rejects flag combinations that cannot work, before anything starts.
func (o *runOptions) checkRun(argv []string) error {
	switch {
	case len(argv) == 0:
		return cli.Usagef("run needs a COMMAND (run [flags] -- COMMAND [ARG ...])")
	case o.promptStdin && o.prompt == "" && o.promptFile == "":
		return cli.Usagef("--prompt-stdin needs --prompt or --prompt-file")
	case o.promptStdin && o.stdinFile != "":
		return cli.Usagef("--prompt-stdin and --stdin-file both give COMMAND's input")
	case o.transcript != "" && o.noTranscript:
		return cli.Usagef("--transcript and --no-transcript cannot both be given")
	case o.timeout < 0 || o.grace < 0 || o.linger < 0:
		return cli.Usagef("--timeout, --grace and --linger cannot be negative")
	case !o.noTranscript && o.outputPath() != "-" && inputs.SameAbsPath(o.transcriptPath(), o.outputPath()):
		return cli.Usagef("the transcript and the dialog would be the same file: %s", o.outputPath())
	case !o.noTranscript && o.transcriptPath() == "-":
		return cli.Usagef("--transcript - is not supported (use --tee to copy the output to stdout)")
	}
	return nil
}

// refuseOverwrite refuses a dialog or transcript that would be written
// over a file the run reads, or over each other.
func (o *runOptions) refuseOverwrite(agentIn *os.File, stdin io.Reader, stdout io.Writer) error {
	ins := o.reads(nil) // --prompt-file
	switch {
	case agentIn != nil:
		f := inputs.NamedFile{What: "--stdin-file", Path: o.stdinFile}
		f.Info, _ = agentIn.Stat()
		ins = append(ins, f)
	case !o.promptStdin:
		ins = append(ins, inputs.StdinFile(stdin)) // the agent reads it
	}
	dialogFile := inputs.StatFile("the dialog", o.outputPath())
	if o.outputPath() == "-" {
		dialogFile = inputs.StdoutFile("the dialog", stdout)
	}
	outputs := []inputs.NamedFile{dialogFile}
	if o.tee {
		outputs = append(outputs, inputs.StdoutFile("the --tee copy", stdout))
	}
	if !o.noTranscript {
		t := inputs.StatFile("the transcript", o.transcriptPath())
		outputs = append(outputs, t)
		if err := inputs.RefuseOverwrite([]inputs.NamedFile{t}, []inputs.NamedFile{dialogFile}); err != nil {
			return err
		}
	}
	return inputs.RefuseOverwrite(outputs, ins)
}

func runRun(ctx context.Context, o runOptions, argv []string, stdin io.Reader, stdout, stderr io.Writer) error {
	copt, err := o.check()
	if err != nil {
		return err
	}
	if err := o.checkRun(argv); err != nil {
		return err
	}
	wopt, err := o.writerOptions()
	if err != nil {
		return err
	}
	// The stream's own model wins, else the command line's (codex -m o3).
	wopt.FallbackModel = inputs.ModelFromCommand(argv)
	if _, ok := stderr.(*os.File); !ok {
		// The agent's stderr is then copied by a goroutine of its own, while
		// the converter and we report: one write at a time.
		stderr = &cli.LockedWriter{W: stderr}
	}
	agentIn := stdin
	var inFile *os.File // --stdin-file
	if o.promptStdin {
		agentIn = strings.NewReader(wopt.Prompt)
	} else if o.stdinFile != "" {
		if inFile, err = os.Open(o.stdinFile); err != nil {
			return fmt.Errorf("cannot read --stdin-file: %w", err)
		}
		defer inFile.Close()
		agentIn = inFile
	}
	if err := o.refuseOverwrite(inFile, stdin, stdout); err != nil {
		return err
	}

	// From here on a signal must not cost the dialog its complete entry:
	// the first stops the run (it is passed on to the agent once it runs),
	// a second sends the agent SIGKILL.
	ctx, kill, release := cli.CatchStopsAndKills(ctx)
	defer release()

	s := o.jobSpec(inputs.Source{Name: "the agent's output"}, copt, wopt, stderr)
	s.Out = convert.FileOutput(o.outputPath(), stdout)
	s.Lines = "output line"
	s.WaitOnStop = true
	a := &command.Agent{Argv: argv, Stdin: agentIn, Stdout: stdout, Stderr: stderr, Kill: kill,
		Timeout: o.timeout, Grace: o.grace, Linger: o.linger, Tee: o.tee}
	if !o.noTranscript {
		a.Transcript = o.transcriptPath()
	}
	a.Writes = func() []command.OpenFile { return o.writes(s.Out, stdout) }
	s.Feed = a.Feed
	_, err = convert.New(s).Run(ctx)
	return err
}

// writes are the files the run writes besides the transcript, as they are
// open: the dialog, and standard output (the dialog with -o -, --tee).
func (o *runOptions) writes(dialogOut *convert.Output, stdout io.Writer) []command.OpenFile {
	var out []command.OpenFile
	if f, ok := dialogOut.Opened(); ok {
		out = append(out, command.OpenFile{Name: f.String(), Info: f.Info})
	}
	if o.tee || o.outputPath() == "-" {
		f := inputs.StdoutFile("standard output", stdout)
		out = append(out, command.OpenFile{Name: f.String(), Info: f.Info})
	}
	return out
}
