package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
)

// name is the program's, the prefix of every message.
const name = cli.Program

// convertOptions are the flags of a conversion (shared by run), and the
// process's streams: whether each is a terminal, and the environment the
// flags' defaults come from.
type convertOptions struct {
	streams    *cli.Streams
	output     string
	format     string
	task       string
	model      string
	cwd        string
	agent      string
	prompt     string
	promptFile string
	tee        bool
	strict     bool
	maxText    int
	maxLine    int64
	maxBytes   int64
	maxImage   int
	clock      string
	// --out-dir, --jobs, --files-from, -0, --follow, --idle-timeout
	// (batch.go, follow.go)
	outDir         string
	jobs           int
	filesFrom      string
	nul            bool
	follow         bool
	idleTimeout    time.Duration
	idleTimeoutSet bool
	jobsSet        bool
	base           string // --base: dialogs named from the path below it
	stats          string // --stats (stats.go): "", text or json
}

// minMaxBytes is the smallest --max-bytes but 0 (no budget).
const minMaxBytes = 16 << 10

func (o *convertOptions) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "write the dialog to `PATH` (- for stdout; default $SSE_ARCHIVE/dialog.jsonl, else /tmp/sse-archive/dialog.jsonl)")
	f.StringVarP(&o.format, "format", "f", "auto", "input `FORMAT`: "+inputs.FormatNames())
	f.StringVar(&o.task, "task", "", "task id for init (default $SSE_TASK_ID)")
	f.StringVar(&o.model, "model", "", "model name for init (default $SSE_MODEL_NAME, else the stream's)")
	f.StringVar(&o.cwd, "cwd", "", "working directory for init (default the stream's, else this process's)")
	f.StringVar(&o.agent, "agent", "", "agent name for init (default the format's: "+inputs.AgentNames()+")")
	f.StringVar(&o.prompt, "prompt", "", "the prompt, written right after init")
	f.StringVar(&o.promptFile, "prompt-file", "", "read the prompt from `FILE`")
	f.BoolVar(&o.tee, "tee", false, "copy the input to stdout unchanged, as it is read")
	f.BoolVar(&o.strict, "strict", false, "exit 1 when any input line was skipped as broken")
	o.maxText, o.maxBytes, o.maxLine = dialog.DefaultMaxText, dialog.DefaultMaxBytes, frame.DefaultMaxLine
	f.Var(cli.SizeValue[int]{P: &o.maxText}, "max-text", "cut tool results, errors and args strings to `BYTES` (16k, 2M: KiB, MiB) with a marker (0 or -1: no cap)")
	f.Var(cli.SizeValue[int64]{P: &o.maxBytes}, "max-bytes", "keep the whole dialog under `BYTES` (16k, 2M: KiB, MiB): texts are cut more as it fills (0: no limit)")
	f.Var(cli.SizeValue[int]{P: &o.maxImage}, "max-image", "carry each image the input holds as base64, up to `BYTES` of base64 (16k, 2M: KiB, MiB), in the dialog as a Markdown data-URL image, which export --html draws (SSEBench's panel does not); 0: a placeholder for every image")
	f.Var(cli.SizeValue[int64]{P: &o.maxLine}, "max-line", "skip input lines longer than `BYTES` (16k, 2M: KiB, MiB), reading on without holding them (0: no limit; the default is 256 MiB)")
	f.StringVar(&o.clock, "clock", "", "pin the converter's clock to `TIME` (RFC 3339 or Unix seconds; default $SOURCE_DATE_EPOCH)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(inputs.FormatValues(), cobra.ShellCompDirectiveNoFileComp))
}

// writerOptions resolves flags and environment into the dialog's options.
func (o *convertOptions) writerOptions() (dialog.Options, error) {
	opt := dialog.Options{
		Task:    cli.FirstOf(o.task, o.streams.Getenv("SSE_TASK_ID")),
		Model:   cli.FirstOf(o.model, o.streams.Getenv("SSE_MODEL_NAME")),
		CWD:     o.cwd,
		Agent:   o.agent,
		MaxText: o.maxText,
	}
	if opt.MaxText == 0 {
		opt.MaxText = -1 // 0 would mean the default inside dialog; here it means "nothing", which helps no one
	}
	opt.MaxImage = o.maxImage
	if opt.MaxImage <= 0 {
		opt.MaxImage = -1 // 0: no image carried (inside dialog, 0 is the default)
	}
	switch {
	case o.maxBytes < 0:
		return opt, cli.Usagef("--max-bytes cannot be negative (0 turns the budget off)")
	case o.maxBytes == 0:
		opt.MaxBytes = -1
	case o.maxBytes < minMaxBytes:
		// Under it the closing entries alone may not fit, and the writer
		// would then blame the entries' ids and names for the overrun.
		return opt, cli.Usagef("--max-bytes is at least 16k (the dialog's closing entries need a few KiB); 0 turns the budget off")
	default:
		opt.MaxBytes = o.maxBytes
	}
	if wd, err := os.Getwd(); err == nil {
		opt.DefaultCWD = wd
	}
	switch {
	case o.prompt != "" && o.promptFile != "":
		return opt, cli.Usagef("--prompt and --prompt-file cannot both be given")
	case o.prompt != "":
		opt.Prompt, opt.HasPrompt = o.prompt, true
	case o.promptFile != "":
		prompt, err := inputs.ReadPromptFile(o.promptFile)
		if err != nil {
			return opt, fmt.Errorf("cannot read --prompt-file: %w", err)
		}
		opt.Prompt, opt.HasPrompt = prompt, true
	}
	clock, err := o.pinnedClock()
	if err != nil {
		return opt, err
	}
	opt.Clock = clock
	_, opt.PinnedClock = clock.(dialog.FixedClock)
	return opt, nil
}

// pinnedClock is the converter's clock: --clock, else $SOURCE_DATE_EPOCH,
// else the wall clock.
func (o *convertOptions) pinnedClock() (dialog.Clock, error) {
	if o.clock != "" {
		clock, err := convert.ParseClock(o.clock)
		if err != nil {
			return nil, cli.Refusef("--clock %q: %v", o.clock, err)
		}
		return clock, nil
	}
	return convert.EnvClock(o.streams.Getenv("SOURCE_DATE_EPOCH"))
}

// check rejects what no conversion (run's included) can do, and returns
// the converter's options: the formats --format allows, the line limit.
func (o *convertOptions) check() (dispatch.Options, error) {
	switch {
	case o.tee && o.output == "-":
		return dispatch.Options{}, cli.Usagef("--tee and -o - would both write to stdout")
	case o.maxText < -1:
		return dispatch.Options{}, cli.Usagef("--max-text %d: want a size in bytes, or 0 or -1 for no cap", o.maxText)
	case o.maxImage < 0:
		return dispatch.Options{}, cli.Usagef("--max-image %d: want a size in bytes, or 0 for placeholders only", o.maxImage)
	case o.maxLine < 0:
		return dispatch.Options{}, cli.Usagef("--max-line %d: want a size in bytes, or 0 for no limit", o.maxLine)
	}
	fmts, forced, ok := inputs.PickFormats(o.format)
	if !ok {
		return dispatch.Options{}, cli.Usagef("unknown --format %q (want %s)", o.format, inputs.FormatNames())
	}
	maxLine := o.maxLine
	if maxLine == 0 {
		maxLine = -1 // no limit
	}
	return dispatch.Options{Formats: fmts, Forced: forced, MaxLine: maxLine, CountKinds: o.stats != ""}, nil
}

// archivePath is where a file of the run goes by default: in $SSE_ARCHIVE,
// else in the protocol's default folder.
func (o *convertOptions) archivePath(file string) string {
	return filepath.Join(cli.FirstOf(o.streams.Getenv("SSE_ARCHIVE"), "/tmp/sse-archive"), file)
}

// jobSpec is the conversion of src with the options: in the format that
// claimed it, else as --format says.
func (o *convertOptions) jobSpec(src inputs.Source, copt dispatch.Options, wopt dialog.Options, stderr io.Writer) convert.Spec {
	s := convert.SourceSpec(src, copt, wopt, o.format, stderr)
	s.Strict = o.strict
	s.StderrTerminal = o.streams.ErrTerminal
	return s
}

// reads are the files a conversion reads besides its inputs: no output
// may be one of them.
func (o *convertOptions) reads(stdin io.Reader) []inputs.NamedFile {
	var fs []inputs.NamedFile
	if o.promptFile != "" {
		fs = append(fs, inputs.StatFile("--prompt-file", o.promptFile))
	}
	switch o.filesFrom {
	case "":
	case "-":
		fs = append(fs, inputs.StdinFile(stdin))
	default:
		fs = append(fs, inputs.StatFile("--files-from", o.filesFrom))
	}
	return fs
}
func (o *convertOptions) registerStats(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.stats, "stats", "", "at the end, tell on stderr how many input records were read, converted and skipped, by kind and reason (`FORMAT`: text, or json: one object on the last line)")
	f.Lookup("stats").NoOptDefVal = convert.StatsText
	_ = cmd.RegisterFlagCompletionFunc("stats", cobra.FixedCompletions([]string{convert.StatsText, convert.StatsJSON}, cobra.ShellCompDirectiveNoFileComp))
}

func (o *convertOptions) checkStats() error {
	switch o.stats {
	case "", convert.StatsText, convert.StatsJSON:
		return nil
	}
	return cli.Usagef("--stats=%s: want text or json", o.stats)
}

// outputPath is where the dialog goes: -o, else the archive.
func (o *convertOptions) outputPath() string {
	return cli.FirstOf(o.output, o.archivePath("dialog.jsonl"))
}
