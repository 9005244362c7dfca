package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/agentrun"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
)

// reasonNotStarted is complete.reason when the agent could not be started.
const reasonNotStarted = "not_started"

// drainAfterExit is how long the agent's output may stay open once the
// agent has exited and its process group is gone (a process that left the
// group holding the pipe): the run then stops reading.
const drainAfterExit = time.Second

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

func newRunCmd() *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run [flags] -- COMMAND [ARG ...]",
		Short: "Run an agent and convert its output live",
		Long: `run starts COMMAND, converts its standard output into the dialog as each line
arrives, and saves the output unchanged as the transcript — the job of the
benchmark's agent wrappers. Every conversion flag works as without run. When
the stream names no model, init has the one COMMAND's arguments ask for (as
codex -m o3), read the way the agent reads them, for these commands:
` + modelCommands() + `. --model and $SSE_MODEL_NAME still come first.

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
				d, err := envTimeout(os.Getenv("TIMEOUT"))
				if err != nil {
					return err
				}
				o.timeout = d
			}
			return runRun(cmd.Context(), o, args, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
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

// envTimeout reads $TIMEOUT: seconds, as the benchmark sets it (a Go
// duration such as 30m is accepted too). Empty or 0: no limit.
func envTimeout(s string) (time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	if d, err := cli.ParseSeconds(s); err == nil && d >= 0 {
		return d, nil
	}
	return 0, fmt.Errorf("TIMEOUT=%q is not a number of seconds; set it to seconds (TIMEOUT=1800), or give --timeout, which overrides it", s)
}

func (o *runOptions) transcriptPath() string {
	return cli.FirstOf(o.transcript, archivePath("transcript.jsonl"))
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
	case !o.noTranscript && o.outputPath() != "-" && sameAbsPath(o.transcriptPath(), o.outputPath()):
		return cli.Usagef("the transcript and the dialog would be the same file: %s", o.outputPath())
	case !o.noTranscript && o.transcriptPath() == "-":
		return cli.Usagef("--transcript - is not supported (use --tee to copy the output to stdout)")
	}
	return nil
}

// refuseOverwrite refuses a dialog or transcript that would be written
// over a file the run reads, or over each other.
func (o *runOptions) refuseOverwrite(agentIn *os.File, stdin io.Reader, stdout io.Writer) error {
	inputs := o.reads(nil) // --prompt-file
	switch {
	case agentIn != nil:
		f := namedFile{What: "--stdin-file", Path: o.stdinFile}
		f.Info, _ = agentIn.Stat()
		inputs = append(inputs, f)
	case !o.promptStdin:
		inputs = append(inputs, stdinFile(stdin)) // the agent reads it
	}
	dialogFile := statFile("the dialog", o.outputPath())
	if o.outputPath() == "-" {
		dialogFile = stdoutFile("the dialog", stdout)
	}
	outputs := []namedFile{dialogFile}
	if o.tee {
		outputs = append(outputs, stdoutFile("the --tee copy", stdout))
	}
	if !o.noTranscript {
		t := statFile("the transcript", o.transcriptPath())
		outputs = append(outputs, t)
		if err := refuseOverwrite([]namedFile{t}, []namedFile{dialogFile}); err != nil {
			return err
		}
	}
	return refuseOverwrite(outputs, inputs)
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
	wopt.FallbackModel = modelFromCommand(argv)
	if _, ok := stderr.(*os.File); !ok {
		// The agent's stderr is then copied by a goroutine of its own, while
		// the converter and we report: one write at a time.
		stderr = &lockedWriter{w: stderr}
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
	// later ones go to the agent too (a second sends SIGKILL).
	agentSigs := make(chan os.Signal, 2)
	ctx, release := catchStops(ctx, agentSigs)
	defer release()

	s := o.jobSpec(source{Name: "the agent's output"}, copt, wopt, stderr)
	s.Out = fileOutput(o.outputPath(), stdout)
	s.Lines = "output line"
	s.WaitOnStop = true
	a := &agent{o: &o, argv: argv, stdin: agentIn, stdout: stdout, stderr: stderr, sigs: agentSigs, dialog: s.Out}
	s.Feed = a.feed
	_, err = convert.New(s).Run(ctx)
	return err
}

// agent is run's feed: it starts the agent and converts its output.
type agent struct {
	o      *runOptions
	argv   []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	sigs   chan os.Signal // what agentrun passes on to the agent's group
	dialog *output        // the dialog, open once the feed starts
}

func (a *agent) feed(ctx context.Context, conv *dispatch.Converter) fed {
	o := a.o
	if ctx.Err() != nil { // stopped before the agent started: do not start it
		s := cli.StopOf(ctx)
		return fed{Code: s.ExitCode(), Ending: s.Ending()}
	}
	var transcript *os.File
	tpath := o.transcriptPath()
	if !o.noTranscript {
		var err error
		if transcript, err = openTranscript(tpath, a.writes()); err != nil {
			code := 1
			var ue *cli.UsageError
			if errors.As(err, &ue) {
				code = 2
			} else {
				err = fmt.Errorf("cannot write the transcript: %w", err)
			}
			return fed{Code: code, Errs: []error{err}, Ending: &dialog.Ending{Status: dialog.StatusError, Reason: reasonNotStarted, Message: err.Error()}}
		}
		defer transcript.Close() // for the early returns; closed and checked below
	}

	// The stop the context brings is passed on to the agent's group.
	ran := make(chan struct{})
	defer close(ran)
	go func() {
		select {
		case <-ctx.Done():
			if s, ok := context.Cause(ctx).(*cli.Stopped); ok {
				select {
				case a.sigs <- s.Signal:
				default:
				}
			}
		case <-ran:
		}
	}()
	cfg := agentrun.Config{
		Argv:     a.argv,
		Stdin:    a.stdin,
		Stderr:   a.stderr,
		Timeout:  o.timeout,
		Grace:    o.grace,
		Linger:   o.linger,
		Drain:    drainAfterExit,
		Finished: conv.Finished,
		Signals:  a.sigs,
		OnStop: func(c agentrun.Cause, sig os.Signal) {
			// Close now: whoever sent the signal may not wait for the agent.
			switch c {
			case agentrun.TimedOut:
				fmt.Fprintf(a.stderr, "%s: the agent ran for %v, its time limit: stopping it\n", name, o.timeout)
				_ = conv.Close(&dialog.Ending{Status: dialog.StatusTimeout, Reason: dialog.ReasonTimeout,
					Message: fmt.Sprintf("stopped at the time limit of %v", o.timeout)})
			case agentrun.Signaled:
				_ = conv.Close((&cli.Stopped{Signal: sig}).Ending())
			case agentrun.Lingered:
				fmt.Fprintf(a.stderr, "%s: the agent printed nothing for %v after its final event: stopping it\n", name, o.linger)
				_ = conv.Close(nil) // the final event decides
			}
		},
	}
	if transcript != nil {
		cfg.Transcript = transcript
	}
	if o.tee {
		cfg.Tee = a.stdout
	}
	var feedErr error
	res, err := agentrun.Run(cfg, func(r io.Reader) { feedErr = conv.Feed(r, "<agent stdout>") })
	var se *agentrun.StartError
	if errors.As(err, &se) {
		return fed{Code: se.ExitCode(), Errs: []error{se}, Ending: &dialog.Ending{Status: dialog.StatusError, Reason: reasonNotStarted, Message: se.Error()}}
	}
	if err != nil {
		return fed{Code: 1, Errs: []error{err}}
	}

	if transcript != nil {
		if cerr := transcript.Close(); cerr != nil && res.TranscriptErr == nil {
			res.TranscriptErr = cerr
		}
	}
	f := fed{Whole: res.Cause == agentrun.Exited}
	f.Code, f.Ending = judge(res, conv)
	if res.TranscriptErr != nil {
		f.Errs = append(f.Errs, fmt.Errorf("writing the transcript to %s: %w", tpath, cli.UnwrapPath(res.TranscriptErr)))
		f.Code = failCode(f.Code, 1)
	}
	var oe *dispatch.OutputError
	switch {
	case errors.As(feedErr, &oe):
		f.OutErr = feedErr
	case feedErr != nil:
		// Reading a pipe fails only if something is badly wrong; say so.
		f.Errs = append(f.Errs, fmt.Errorf("reading the agent's output: %w", feedErr))
		f.Code = failCode(f.Code, 1)
	}
	return f
}

// judge gives our exit code and the dialog's ending, from how the run ended.
func judge(res agentrun.Result, conv *dispatch.Converter) (int, *dialog.Ending) {
	switch res.Cause {
	case agentrun.TimedOut:
		return res.Code, nil // the ending was written when the stop began
	case agentrun.Signaled:
		return (&cli.Stopped{Signal: res.Signal}).ExitCode(), nil
	case agentrun.Lingered:
		if conv.Summary().Status == dialog.StatusSuccess {
			return 0, nil
		}
		return 1, nil
	}
	if conv.Finished() {
		return res.Code, nil // the final event decides the dialog
	}
	msg := fmt.Sprintf("the agent exited with code %d before its final event", res.Code)
	if res.KilledBy != 0 {
		msg = fmt.Sprintf("the agent was killed by %s before its final event", cli.SignalName(res.KilledBy))
	}
	return res.Code, &dialog.Ending{Status: dialog.StatusError, Reason: dialog.ReasonIncomplete, Message: msg}
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// writes are the files the run writes besides the transcript, as they are
// open: the dialog, and standard output (the dialog with -o -, --tee).
func (a *agent) writes() []namedFile {
	var out []namedFile
	if f, ok := a.dialog.Opened(); ok {
		out = append(out, f)
	}
	if a.o.tee || a.o.outputPath() == "-" {
		out = append(out, stdoutFile("standard output", a.stdout))
	}
	return out
}

// openTranscript opens the transcript, creating it and its folder, and
// refuses it when it is one of the files the run writes (writes): through a
// dangling symlink or a symlinked folder, the usual first run, the check
// before the start sees no file yet, and the dialog and the transcript went
// into one file, both corrupt, exit 0. The open files are compared, before
// a byte is written; the transcript is emptied only after.
func openTranscript(path string, writes []namedFile) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && info.Mode().IsRegular() {
		for _, w := range writes {
			if w.Info != nil && os.SameFile(info, w.Info) {
				f.Close()
				return nil, cli.Refusef("refusing to write the transcript to %s: it is the same file as %s", cli.QuoteName(path), w)
			}
		}
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
