package convert

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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
)

// fileResult is what converting one input gave.
type fileResult struct {
	entries, skipped int
	failed           bool
	stats            *FileStats   // its records' accounting, once read (--stats)
	diag             bytes.Buffer // the file's diagnostics, printed as one block
}

// batchSinkSize is how much of a dialog is gathered before it is written:
// nobody reads a batch dialog while it is written (it is renamed into place
// when complete), so fewer, larger writes.
const batchSinkSize = 256 << 10

// Batch is a conversion of many sources, each into its own dialog in
// OutDir (--out-dir).
type Batch struct {
	OutDir string
	Base   string // --base: dialogs named from the path below it; "": from their names
	Jobs   int    // how many files are converted at a time (at least 1)
	Stats  string // --stats: "", StatsText or StatsJSON
	Format string // --format as given
	Strict bool
	// Reads are the files read besides the inputs (--prompt-file,
	// --files-from): no dialog may be one.
	Reads     []inputs.NamedFile
	Converter dispatch.Options
	Writer    dialog.Options
	Stderr    io.Writer
	// StderrTerminal: a person watches Stderr: a progress line is drawn.
	StderrTerminal bool
	// CatchStops, when set, is called once the output folder is ready and
	// before the first file starts: the context it returns is the batch's
	// (signals turned into a stop), release is called at the end.
	CatchStops func(context.Context) (ctx context.Context, release func())
}

// Run converts every source into its own dialog in b.OutDir, b.Jobs at a
// time, and goes on past those that fail. A stop starts no new one; the
// dialogs it cuts short are not put in place.
func (b Batch) Run(ctx context.Context, srcs []inputs.Source) error {
	copt, wopt, stderr := b.Converter, b.Writer, b.Stderr
	wopt.Saved = true // saved transcripts: init takes the first entry's time
	names := make([]string, len(srcs))
	for i, s := range srcs {
		names[i] = s.Name
	}
	if b.Base == "" {
		names = inputs.DialogNames(names)
	} else {
		var outside string
		if names, outside = inputs.DialogNamesUnder(b.Base, names); outside != "" {
			return cli.Refusef("%s is not below --base %s: give a --base that holds every FILE", outside, b.Base)
		}
	}
	outs := make([]string, len(srcs))
	for i := range srcs {
		outs[i] = filepath.Join(b.OutDir, names[i])
	}
	// No dialog may land on an input (through a symlinked --out-dir, say):
	// the whole batch is refused before anything is written.
	if err := inputs.RefuseBatchOverwrite(outs, srcs, b.Reads); err != nil {
		return err
	}
	if err := os.MkdirAll(b.OutDir, 0o755); err != nil {
		return fmt.Errorf("cannot create the output folder: %w", err)
	}
	if n := removeStaleTemps(b.OutDir); n > 0 {
		fmt.Fprintf(stderr, "%s: removed %s left in %s by a batch that was killed\n", cli.Program, cli.Plural(n, "temporary file"), cli.QuoteName(b.OutDir))
	}
	jobs := min(b.Jobs, len(srcs))
	copt.SinkSize = batchSinkSize

	if b.CatchStops != nil {
		var release func()
		ctx, release = b.CatchStops(ctx)
		defer release()
	}
	rep := newReporter(stderr, b.StderrTerminal, len(srcs))
	var stats *batchStats
	if b.Stats != "" {
		stats = &batchStats{files: make([]*FileStats, len(srcs))}
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
				if !b.convertOne(ctx, srcs[i], outs[i], copt, wopt, res) {
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
		msg := fmt.Sprintf("%s: %s: %d converted, %d failed", cli.Program, cli.Plural(len(srcs), "file"), c.converted, c.failed)
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
		TellStats(stderr, b.Stats, stats.files, true)
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
func (b Batch) convertOne(ctx context.Context, src inputs.Source, out string, copt dispatch.Options, wopt dialog.Options, res *fileResult) bool {
	if src.Err != nil {
		res.failed = true
		cli.Tell(&res.diag, src.Err)
		return true
	}
	s := SourceSpec(src, copt, wopt, b.Format, &res.diag)
	s.Strict, s.Out, s.Each = b.Strict, batchOutput(out), true
	r, err := New(s).Run(ctx)
	if r.Stopped {
		return false
	}
	if r.Written {
		res.entries = r.Entries
		res.skipped = r.Skipped
	}
	if b.Stats != "" && r.Converted {
		res.stats = StatsOf(src.Name, cli.DisplayPath(out), r)
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

func newReporter(w io.Writer, tty bool, total int) *reporter {
	return &reporter{w: w, blocks: make([]*fileResult, total), ready: make([]bool, total), total: total, tty: tty}
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
	line := fmt.Sprintf("%s: %d/%d files", cli.Program, r.counts.converted+r.counts.failed, r.total)
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

// BatchTempPrefix starts the name of every temporary dialog of a batch:
// then the process id, a random part, and ".tmp". Short and fixed, so that
// an input whose own name is near the system's limit (255 bytes) still
// gets a temporary file, and so that one left by a killed batch is known
// for what it is.
const BatchTempPrefix = ".sse-dialog-convert-"

// createBatchTemp creates a temporary dialog in dir, mode 0666 less the
// umask, as a dialog written in place has (os.CreateTemp gives 0600).
func createBatchTemp(dir string) (*os.File, error) {
	prefix := filepath.Join(dir, BatchTempPrefix+strconv.Itoa(os.Getpid())+"-")
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
		rest, ok := strings.CutPrefix(e.Name(), BatchTempPrefix)
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
