package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
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
	f.BoolVar(&o.follow, "follow", false, "convert FILE while another process writes it, until its final event, --idle-timeout or a signal")
	o.idleTimeout = 5 * time.Minute
	f.Var((*cli.DurationValue)(&o.idleTimeout), "idle-timeout", "with --follow, stop after `DURATION` without new data: seconds or a duration (0: never)")
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

// dialogSuffix ends every dialog name --out-dir gives.
const dialogSuffix = ".dialog.jsonl"

// stem is a file's base name without .gz or .zst and then one of .jsonl,
// .ndjson or .json.
func stem(file string) string {
	s := filepath.Base(file)
	if t, ok := strings.CutSuffix(s, ".gz"); ok {
		s = t
	} else {
		s = strings.TrimSuffix(s, ".zst")
	}
	for _, ext := range []string{".jsonl", ".ndjson", ".json"} {
		if t, ok := strings.CutSuffix(s, ext); ok {
			s = t
			break
		}
	}
	if s == "" || s == "." || s == string(filepath.Separator) {
		s = "input"
	}
	return s
}

// dialogNames gives each input its output name: stem + ".dialog.jsonl".
// When names clash, each clashing input is told apart from the others:
// from inputs in other folders by prefixing as many of its parent folders
// as it takes, joined by "_" (runs/a1/transcript.jsonl →
// a1_transcript.dialog.jsonl); from inputs in the same folder by keeping
// its whole file name (t.jsonl.gz → t.jsonl.gz.dialog.jsonl). Names that
// still clash (one file given twice) get "-2", "-3", … in argument order.
// Names compare case-insensitively, for file systems that do. The result
// depends only on the arguments (and, for relative ones, the working
// directory), never on --jobs or scheduling.
func dialogNames(files []string) []string {
	type input struct {
		dir      string   // the absolute parent folder
		dirs     []string // its parts, nearest last
		stem     string
		base     string
		depth    int  // how many parent folders the name carries
		wholeExt bool // the name keeps the file's extensions
	}
	ins := make([]input, len(files))
	for i, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			abs = filepath.Clean(f)
		}
		in := input{dir: filepath.Dir(abs), stem: stem(f), base: filepath.Base(abs)}
		for _, d := range strings.Split(filepath.ToSlash(in.dir), "/") {
			if d != "" && d != "." && !strings.HasSuffix(d, ":") { // skip the root and a Windows volume
				in.dirs = append(in.dirs, d)
			}
		}
		ins[i] = in
	}
	name := func(in input) string {
		parts := append([]string{}, in.dirs[len(in.dirs)-in.depth:]...)
		if in.wholeExt {
			return strings.Join(append(parts, in.base), "_")
		}
		return strings.Join(append(parts, in.stem), "_")
	}
	names := make([]string, len(ins))
	for {
		groups := make(map[string][]int)
		for i, in := range ins {
			names[i] = name(in)
			k := strings.ToLower(names[i])
			groups[k] = append(groups[k], i)
		}
		changed := false
		for _, g := range groups {
			for _, i := range g {
				for _, j := range g {
					a, b := &ins[i], ins[j]
					switch {
					case a.dir != b.dir && a.depth < len(a.dirs):
						a.depth++
					case a.dir == b.dir && a.base != b.base && !a.wholeExt:
						a.wholeExt = true
					default:
						continue
					}
					changed = true
					break
				}
			}
		}
		if !changed {
			break
		}
	}
	taken := make(map[string]bool, len(names))
	for i, n := range names {
		cand := n
		for k := 2; taken[strings.ToLower(cand)]; k++ {
			cand = n + "-" + strconv.Itoa(k)
		}
		taken[strings.ToLower(cand)] = true
		names[i] = cand + dialogSuffix
	}
	return names
}

// fileResult is what converting one input gave.
type fileResult struct {
	entries, skipped int
	failed           bool
	stats            *fileStats   // its records' accounting, once read (--stats)
	diag             bytes.Buffer // the file's diagnostics, printed as one block
}

// batchSinkSize is how much of a dialog is gathered before it is written:
// nobody reads a batch dialog while it is written (it is renamed into place
// when complete), so fewer, larger writes.
const batchSinkSize = 256 << 10

// jobCount is how many files --out-dir converts at a time.
func (o *convertOptions) jobCount() int {
	if o.jobs == 0 {
		return runtime.NumCPU()
	}
	return o.jobs
}

// sourceJobs is how many FILEs sources asks at a time: --jobs for a batch,
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
// at a time, and goes on past those that fail. A stop starts no new one;
// the dialogs it cuts short are not put in place.
func runBatch(ctx context.Context, o convertOptions, copt dispatch.Options, wopt dialog.Options, srcs []source, stdin io.Reader, stderr io.Writer) error {
	wopt.Saved = true // saved transcripts: init takes the first entry's time
	names := make([]string, len(srcs))
	for i, s := range srcs {
		names[i] = s.name
	}
	if o.base == "" {
		names = dialogNames(names)
	} else {
		var outside string
		if names, outside = dialogNamesUnder(o.base, names); outside != "" {
			return cli.Refusef("%s is not below --base %s: give a --base that holds every FILE", outside, o.base)
		}
	}
	outs := make([]string, len(srcs))
	for i := range srcs {
		outs[i] = filepath.Join(o.outDir, names[i])
	}
	// No dialog may land on an input (through a symlinked --out-dir, say):
	// the whole batch is refused before anything is written.
	if err := refuseBatchOverwrite(outs, srcs, o.reads(stdin)); err != nil {
		return err
	}
	if err := os.MkdirAll(o.outDir, 0o755); err != nil {
		return fmt.Errorf("cannot create the output folder: %w", err)
	}
	if n := removeStaleTemps(o.outDir); n > 0 {
		fmt.Fprintf(stderr, "%s: removed %s left in %s by a batch that was killed\n", name, cli.Plural(n, "temporary file"), cli.QuoteName(o.outDir))
	}
	jobs := min(o.jobCount(), len(srcs))
	copt.SinkSize = batchSinkSize

	ctx, release := cli.CatchStops(ctx)
	defer release()
	rep := newReporter(stderr, len(srcs))
	var stats *batchStats
	if o.stats != "" {
		stats = &batchStats{files: make([]*fileStats, len(srcs))}
	}
	var started, cut atomic.Int64
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range srcs {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			// The worker's files are converted one after another with the
			// same memory. A file cut short by a stop may still be read
			// into it: no file starts after a stop.
			copt := copt
			copt.Scratch = new(dispatch.Scratch)
			for i := range next {
				if ctx.Err() != nil {
					return // stopped: it never started
				}
				started.Add(1)
				res := &fileResult{}
				if !o.convertOne(ctx, srcs[i], outs[i], copt, wopt, res) {
					cut.Add(1)
					continue
				}
				if stats != nil {
					stats.add(i, res.stats)
				}
				rep.done(i, res)
			}
		})
	}
	wg.Wait()

	stop := ctx.Err() != nil
	anyFailed := rep.finish(func(c counts) string {
		msg := fmt.Sprintf("%s: %s: %d converted, %d failed", name, cli.Plural(len(srcs), "file"), c.converted, c.failed)
		if stop {
			// Files cut short leave no dialog: they are not counted as converted.
			msg += fmt.Sprintf(", %d interrupted, %d not started", cut.Load(), int64(len(srcs))-started.Load())
		}
		msg += fmt.Sprintf("; %s, %s skipped", cli.Plural(c.entries, "entry"), cli.Plural(c.skipped, "input line"))
		if stop {
			msg += "; " + cli.StopOf(ctx).Error()
		}
		return msg
	})
	if stats != nil {
		tellStats(stderr, o.stats, stats.files, true)
	}
	switch {
	case stop:
		return cli.StopOf(ctx)
	case anyFailed:
		return cli.Failed(1) // the summary and the files' blocks say it
	}
	return nil
}

// convertOne converts one source into the dialog out, and reports whether
// it finished (converted or failed: res says which) rather than being cut
// short by a stop.
func (o *convertOptions) convertOne(ctx context.Context, src source, out string, copt dispatch.Options, wopt dialog.Options, res *fileResult) bool {
	if src.err != nil {
		res.failed = true
		cli.Tell(&res.diag, src.err)
		return true
	}
	j := o.job(src, copt, wopt, &res.diag)
	j.out = &output{path: out, temp: true}
	j.each = true
	err := j.run(ctx)
	if j.stopped {
		return false
	}
	if j.written {
		res.entries = j.conv.Entries()
		res.skipped = j.conv.Stats().Bad
	}
	if o.stats != "" && j.conv != nil {
		res.stats = &fileStats{input: src.name, dialog: cli.DisplayPath(out), format: formatOf(j.conv), acc: j.conv.Accounting(), entries: j.conv.Entries()}
	}
	res.failed = err != nil
	cli.Tell(&res.diag, err)
	return true
}

// counts sum up a batch.
type counts struct{ converted, failed, entries, skipped int }

// reporter prints each file's diagnostics as one block, in argument order
// whatever order the files finish in, so the log of a batch is the same
// for any --jobs; and, on a terminal, a progress line. It keeps the counts.
type reporter struct {
	mu     sync.Mutex
	w      io.Writer
	blocks []*fileResult
	ready  []bool
	next   int
	total  int
	counts counts
	closed bool // the summary is out: late results are ignored
	tty    bool
	shown  int // width of the progress line on screen
	drawn  time.Time
}

func newReporter(w io.Writer, total int) *reporter {
	return &reporter{w: w, blocks: make([]*fileResult, total), ready: make([]bool, total), total: total, tty: cli.IsTerminal(w)}
}

// done records a finished file and prints what is due.
func (r *reporter) done(i int, res *fileResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.blocks[i], r.ready[i] = res, true
	if res.failed {
		r.counts.failed++
	} else {
		r.counts.converted++
	}
	r.counts.entries += res.entries
	r.counts.skipped += res.skipped
	printed := false
	for ; r.next < r.total && r.ready[r.next]; r.next++ {
		if b := r.blocks[r.next]; b != nil && b.diag.Len() > 0 {
			r.clear()
			_, _ = r.w.Write(b.diag.Bytes())
			printed = true
		}
		r.blocks[r.next] = nil // its diagnostics are out; free them
	}
	if r.tty && (printed || time.Since(r.drawn) >= 100*time.Millisecond) {
		r.draw()
	}
}

// finish prints what is left and the summary line, and reports whether
// any file failed.
func (r *reporter) finish(summary func(counts) string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	r.clear()
	for ; r.next < r.total; r.next++ {
		if b := r.blocks[r.next]; b != nil {
			_, _ = r.w.Write(b.diag.Bytes())
		}
	}
	fmt.Fprintln(r.w, summary(r.counts))
	return r.counts.failed > 0
}

func (r *reporter) draw() {
	if !r.tty {
		return
	}
	line := fmt.Sprintf("%s: %d/%d files", name, r.counts.converted+r.counts.failed, r.total)
	if r.counts.failed > 0 {
		line += fmt.Sprintf(", %d failed", r.counts.failed)
	}
	pad := max(r.shown-len(line), 0)
	fmt.Fprintf(r.w, "\r%s%s", line, strings.Repeat(" ", pad))
	r.shown = len(line)
	r.drawn = time.Now()
}

// clear removes the progress line, before other output.
func (r *reporter) clear() {
	if r.tty && r.shown > 0 {
		fmt.Fprintf(r.w, "\r%s\r", strings.Repeat(" ", r.shown))
		r.shown = 0
	}
}

// batchTempPrefix starts the name of every temporary dialog of a batch:
// then the process id, a random part, and ".tmp". Short and fixed, so that
// an input whose own name is near the system's limit (255 bytes) still
// gets a temporary file, and so that one left by a killed batch is known
// for what it is.
const batchTempPrefix = ".sse-dialog-convert-"

// createBatchTemp creates a temporary dialog in dir, mode 0666 less the
// umask, as a dialog written in place has (os.CreateTemp gives 0600).
func createBatchTemp(dir string) (*os.File, error) {
	prefix := filepath.Join(dir, batchTempPrefix+strconv.Itoa(os.Getpid())+"-")
	for {
		f, err := os.OpenFile(prefix+strconv.FormatUint(uint64(rand.Uint32()), 36)+".tmp", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

// removeStaleTemps removes the temporary dialogs in dir that a batch left
// when it was killed (SIGKILL leaves no time to remove them): those of a
// process that no longer runs. It returns how many it removed.
func removeStaleTemps(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), batchTempPrefix)
		if !ok || !e.Type().IsRegular() || !strings.HasSuffix(rest, ".tmp") {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || processRuns(pid) {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			removed++
		}
	}
	return removed
}
