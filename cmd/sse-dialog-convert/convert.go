package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
)

// convertOptions are the flags of a conversion (shared by run).
type convertOptions struct {
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

func (o *convertOptions) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "write the dialog to `PATH` (- for stdout; default $SSE_ARCHIVE/dialog.jsonl, else /tmp/sse-archive/dialog.jsonl)")
	f.StringVarP(&o.format, "format", "f", "auto", "input `FORMAT`: "+formatNames())
	f.StringVar(&o.task, "task", "", "task id for init (default $SSE_TASK_ID)")
	f.StringVar(&o.model, "model", "", "model name for init (default $SSE_MODEL_NAME, else the stream's)")
	f.StringVar(&o.cwd, "cwd", "", "working directory for init (default the stream's, else this process's)")
	f.StringVar(&o.agent, "agent", "", "agent name for init (default the format's: "+agentNames()+")")
	f.StringVar(&o.prompt, "prompt", "", "the prompt, written right after init")
	f.StringVar(&o.promptFile, "prompt-file", "", "read the prompt from `FILE`")
	f.BoolVar(&o.tee, "tee", false, "copy the input to stdout unchanged, as it is read")
	f.BoolVar(&o.strict, "strict", false, "exit 1 when any input line was skipped as broken")
	o.maxText, o.maxBytes, o.maxLine = dialog.DefaultMaxText, dialog.DefaultMaxBytes, frame.DefaultMaxLine
	f.Var(sizeValue[int]{&o.maxText}, "max-text", "cut tool results, errors and args strings to `BYTES` (16k, 2M: KiB, MiB) with a marker (0 or -1: no cap)")
	f.Var(sizeValue[int64]{&o.maxBytes}, "max-bytes", "keep the whole dialog under `BYTES` (16k, 2M: KiB, MiB): texts are cut more as it fills (0: no limit)")
	o.maxImage = dialog.DefaultMaxImage
	f.Var(sizeValue[int]{&o.maxImage}, "max-image", "carry each image the input holds as base64 up to `BYTES` of base64 (16k, 2M: KiB, MiB) in the dialog, as a Markdown data-URL image; a larger one is a placeholder (0: placeholders only)")
	f.Var(sizeValue[int64]{&o.maxLine}, "max-line", "skip input lines longer than `BYTES` (16k, 2M: KiB, MiB), reading on without holding them (0: no limit; the default is 256 MiB)")
	f.StringVar(&o.clock, "clock", "", "pin the converter's clock to `TIME` (RFC 3339 or Unix seconds; default $SOURCE_DATE_EPOCH)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formatValues(), cobra.ShellCompDirectiveNoFileComp))
}

// writerOptions resolves flags and environment into the dialog's options.
func (o *convertOptions) writerOptions() (dialog.Options, error) {
	opt := dialog.Options{
		Task:    firstOf(o.task, os.Getenv("SSE_TASK_ID")),
		Model:   firstOf(o.model, os.Getenv("SSE_MODEL_NAME")),
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
		return opt, usagef("--max-bytes cannot be negative (0 turns the budget off)")
	case o.maxBytes == 0:
		opt.MaxBytes = -1
	default:
		opt.MaxBytes = o.maxBytes
	}
	if wd, err := os.Getwd(); err == nil {
		opt.DefaultCWD = wd
	}
	switch {
	case o.prompt != "" && o.promptFile != "":
		return opt, usagef("--prompt and --prompt-file cannot both be given")
	case o.prompt != "":
		opt.Prompt, opt.HasPrompt = o.prompt, true
	case o.promptFile != "":
		prompt, err := readPromptFile(o.promptFile)
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
		clock, err := parseClock(o.clock)
		if err != nil {
			return nil, refusef("--clock %q: %v", o.clock, err)
		}
		return clock, nil
	}
	return envClock()
}

// envClock is the clock SOURCE_DATE_EPOCH pins, else the wall clock. A
// value it cannot read is a failure (exit 1), not a usage error: the
// command line is right, its environment is not.
func envClock() (dialog.Clock, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	clock, err := parseClock(s)
	if err != nil {
		return nil, fmt.Errorf("SOURCE_DATE_EPOCH=%q: %v; set it to Unix seconds (SOURCE_DATE_EPOCH=0), or unset it", s, err)
	}
	return clock, nil
}

// parseClock reads a pinned time: Unix seconds (as SOURCE_DATE_EPOCH) or
// RFC 3339. Empty means the wall clock.
func parseClock(s string) (dialog.Clock, error) {
	if s == "" {
		return dialog.SystemClock{}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		t := time.Unix(n, 0).UTC()
		if t.Year() < 1970 || t.Year() > 9999 {
			return nil, errors.New("out of range (years 1970 to 9999)")
		}
		return dialog.FixedClock(t), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Year() > 9999 {
		return nil, errors.New("want Unix seconds or an RFC 3339 time (2026-01-02T03:04:05Z)")
	}
	return dialog.FixedClock(t.UTC()), nil
}

// check rejects what no conversion (run's included) can do, and returns
// the converter's options: the formats --format allows, the line limit.
func (o *convertOptions) check() (dispatch.Options, error) {
	switch {
	case o.tee && o.output == "-":
		return dispatch.Options{}, usagef("--tee and -o - would both write to stdout")
	case o.maxText < -1:
		return dispatch.Options{}, usagef("--max-text %d: want a size in bytes, or 0 or -1 for no cap", o.maxText)
	case o.maxImage < 0:
		return dispatch.Options{}, usagef("--max-image %d: want a size in bytes, or 0 for placeholders only", o.maxImage)
	case o.maxLine < 0:
		return dispatch.Options{}, usagef("--max-line %d: want a size in bytes, or 0 for no limit", o.maxLine)
	}
	fmts, forced, ok := pickFormats(o.format)
	if !ok {
		return dispatch.Options{}, usagef("unknown --format %q (want %s)", o.format, formatNames())
	}
	maxLine := o.maxLine
	if maxLine == 0 {
		maxLine = -1 // no limit
	}
	return dispatch.Options{Formats: fmts, Forced: forced, MaxLine: maxLine, CountKinds: o.stats != ""}, nil
}

// archivePath is where a file of the run goes by default: in $SSE_ARCHIVE,
// else in the protocol's default folder.
func archivePath(file string) string {
	return filepath.Join(firstOf(os.Getenv("SSE_ARCHIVE"), "/tmp/sse-archive"), file)
}

// outputPath is where the dialog goes: -o, else the archive.
func (o *convertOptions) outputPath() string {
	return firstOf(o.output, archivePath("dialog.jsonl"))
}

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
		list, err := readFileList(o.filesFrom, o.nul, stdin)
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
	srcs := sources(files, copt.Formats, copt.Forced, stdin, o.sourceJobs())
	if o.outDir != "" {
		return runBatch(ctx, o, copt, wopt, srcs, stdin, stderr)
	}
	src, err := oneDialog(srcs)
	if err != nil {
		return err
	}
	if o.tee && src.format != nil {
		return usagef("--tee copies a stream as it is read; %s is read as %s (its files merged)", src.name, src.format.Title)
	}
	j := o.job(src, copt, wopt, stderr)
	j.out = fileOutput(o.outputPath(), stdout)
	j.wopt.Saved = savedFiles(src)
	if o.tee {
		j.tee = stdout
	}
	j.reads = o.reads(stdin)

	// Signals are caught before the output exists: from then on the dialog
	// always gets its complete entry.
	ctx, release := catchStops(ctx, nil)
	defer release()
	if readsStdin(src) && isTerminal(stdin) {
		fmt.Fprintf(stderr, "%s: reading agent events from standard input (a terminal); Ctrl-D ends them\n", name)
	}
	err = j.run(ctx)
	if o.stats == "" || j.conv == nil {
		return err
	}
	// The stats come last on stderr: what went wrong is told before them.
	tell(stderr, err)
	tellStats(stderr, o.stats, []*fileStats{{input: src.name, format: formatOf(j.conv), acc: j.conv.Accounting(), entries: j.conv.Entries()}}, false)
	return failed(exitCode(err))
}

// job is the conversion of src with the options: in the format that
// claimed it, else as --format says.
func (o *convertOptions) job(src source, copt dispatch.Options, wopt dialog.Options, stderr io.Writer) *job {
	j := &job{name: src.name, inputs: src.inputs, wopt: wopt, copt: copt, format: o.format, strict: o.strict, lines: "input line", stderr: stderr}
	if src.format != nil {
		j.copt.Formats, j.copt.Forced, _ = pickFormats(src.format.Name)
		j.format = src.format.Name
	}
	return j
}

// reads are the files a conversion reads besides its inputs: no output
// may be one of them.
func (o *convertOptions) reads(stdin io.Reader) []namedFile {
	var fs []namedFile
	if o.promptFile != "" {
		fs = append(fs, statFile("--prompt-file", o.promptFile))
	}
	switch o.filesFrom {
	case "":
	case "-":
		fs = append(fs, stdinFile(stdin))
	default:
		fs = append(fs, statFile("--files-from", o.filesFrom))
	}
	return fs
}

// readsStdin reports whether standard input is one of src's inputs.
func readsStdin(src source) bool {
	for _, in := range src.inputs {
		if in.stdin {
			return true
		}
	}
	return false
}

// savedFiles reports whether every input of src is a saved file: a
// transcript nobody watches being converted, so init may wait for the
// first entry's time (dialog.Options.Saved). A session a format found
// is; standard input, pipes and FIFOs are live.
func savedFiles(src source) bool {
	if src.format != nil {
		return true
	}
	if readsStdin(src) {
		return false
	}
	for _, in := range src.inputs {
		if st, err := os.Stat(in.name); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return len(src.inputs) > 0
}
