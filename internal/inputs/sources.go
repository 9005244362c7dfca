package inputs

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

// Source is what one dialog is made from: one or more inputs read in
// order, and the format that claimed them.
type Source struct {
	Name   string // names the dialog (--out-dir) and the input in messages
	File   string // the FILE it comes from
	Inputs []*Input
	// format is the format whose Inputs claimed the FILE: it is forced.
	// Nil: --format decides.
	Format *adapter.Format
	// err: the FILE could not be read (a batch counts it as failed).
	Err error
	// sniffed is the format whose events a stream FILE's first records
	// surely are (firstClaim), nil when unknown: FILEs of different
	// formats are not one stream (see OneDialog).
	Sniffed *adapter.Format
}

// Sources gives each FILE its dialogs. "-" is standard input. A FILE some
// format's Inputs claims (a session file, a folder of them) gives what
// they say, each its own dialog, in that format; any other FILE is read as
// a stream. formats are those --format allows (forced: only the first is
// asked). Only files and folders are asked: a FIFO or a device would lose
// what the asking read. The FILEs are asked jobs at a time (each is read
// for its first records): in one goroutine, before any conversion starts,
// that was a tenth of a batch of small files that --jobs could not share.
func Sources(files []string, formats []adapter.Format, forced bool, stdin io.Reader, jobs int) []Source {
	each := make([][]Source, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(jobs, len(files))) {
		wg.Go(func() {
			var sniff *bufio.Reader // firstClaim's read buffer, one for every file this goroutine asks
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				each[i] = fileSources(files[i], formats, forced, stdin, &sniff)
			}
		})
	}
	wg.Wait()
	var srcs []Source
	for _, s := range each {
		srcs = append(srcs, s...)
	}
	return srcs
}

// fileSources gives one FILE its dialogs, as Sources says.
func fileSources(file string, formats []adapter.Format, forced bool, stdin io.Reader, sniff **bufio.Reader) []Source {
	if file == "-" {
		return []Source{{Name: "standard input", Inputs: []*Input{StdinInput(stdin)}}}
	}
	a := new(asking)
	formats = askingFolder(formats, a)
	defer func() { a.done = true }()
	st, err := os.Stat(file)
	if err != nil || !st.IsDir() && !st.Mode().IsRegular() {
		return []Source{{Name: file, Inputs: []*Input{FileInput(file)}}} // opening tells what is wrong
	}
	f, ins, sniffed, err := Claim(file, st.IsDir(), formats, forced, sniff)
	switch {
	case err != nil && st.IsDir():
		var pe *os.PathError
		if !errors.As(err, &pe) {
			err = fmt.Errorf("reading %s: %w", file, err)
		}
		return []Source{{Name: file, Err: err}}
	case err != nil:
		// A file no format could read as its own (a cut gzip, say) is
		// read as a stream: reading it tells what is wrong, and any
		// other input still converts.
		return []Source{{Name: file, Inputs: []*Input{FileInput(file)}}}
	case len(ins) > 0:
		srcs := make([]Source, 0, len(ins))
		for _, in := range ins {
			srcs = append(srcs, Source{Name: in.Name, File: file, Inputs: []*Input{SessionInput(in)}, Format: f})
		}
		return srcs
	case st.IsDir():
		return []Source{{Name: file, Err: cmp.Or(a.failed, noSessions(file, formats))}}
	}
	return []Source{{Name: file, Inputs: []*Input{FileInput(file)}, Sniffed: sniffed}}
}

// asking holds what askingFolder's formats noted while a FILE was asked
// about: the first failure of their Inputs. The formats live on in the
// sources (the same-file check asks them again, from jobs running at
// once): once done, nothing more is noted.
type asking struct {
	failed error
	done   bool
}

// askingFolder returns formats whose Inputs say no rather than fail: a
// folder a format cannot read whole (only bad entries, as it sees them: a
// dangling symlink, a FIFO) may be another format's, which is asked next;
// the first failure is told when no format claims the folder. For a file,
// no changes nothing: it is then read as a stream, and reading it tells
// what is wrong, as when Inputs failed.
func askingFolder(formats []adapter.Format, a *asking) []adapter.Format {
	asked := slices.Clone(formats)
	for i := range asked {
		inputs := asked[i].Inputs
		if inputs == nil {
			continue
		}
		asked[i].Inputs = func(path string) ([]adapter.Input, bool, error) {
			ins, ok, err := inputs(path)
			if err != nil {
				if !a.done {
					a.failed = cmp.Or(a.failed, err)
				}
				return nil, false, nil
			}
			return ins, ok, nil
		}
	}
	return asked
}

// noSessions says that the folder path holds no session of the formats
// that read folders, and how to convert the transcripts it may hold.
func noSessions(path string, formats []adapter.Format) error {
	var names []string
	for _, f := range formats {
		if f.Inputs != nil && f.New != nil {
			names = append(names, f.Name)
		}
	}
	return fmt.Errorf("%s is a folder with no session of a format it reads (%s) in it; to convert the transcripts it holds, name them (%s)",
		path, strings.Join(names, ", "), filepath.Join(path, "*.jsonl"))
}

// Claim asks the formats' Inputs, in order, whether path is theirs; the
// first that says so gives the inputs. For a file, its first records
// decide first, as detection would: only the format that claims one of
// them as surely its own is asked (none, for a stream format's), so that
// a batch of transcripts is not read again by every format with Inputs.
//
// sniffed is the format of the file's first records, when one claimed
// them as surely its own (not asked when forced).
func Claim(path string, isDir bool, formats []adapter.Format, forced bool, sniff **bufio.Reader) (found *adapter.Format, ins []adapter.Input, sniffed *adapter.Format, err error) {
	switch {
	case forced:
		formats = formats[:1]
	case !isDir:
		sniffed, err = firstClaim(path, formats, sniff)
		if err != nil {
			return nil, nil, nil, err
		}
		if sniffed != nil {
			formats = []adapter.Format{*sniffed}
		}
	}
	if sniffed != nil && sniffed.ClaimedInputs != nil && sniffed.New != nil {
		// The sniffing saw what the format's Inputs would open the file
		// to see: it is not opened again.
		ins, err := sniffed.ClaimedInputs(path)
		if err != nil {
			return nil, nil, sniffed, err
		}
		return sniffed, ins, sniffed, nil
	}
	for i := range formats {
		f := &formats[i]
		if f.Inputs == nil || f.New == nil {
			continue
		}
		ins, ok, err := f.Inputs(path)
		if err != nil {
			return nil, nil, sniffed, err
		}
		if ok {
			return f, ins, sniffed, nil
		}
	}
	return nil, nil, sniffed, nil
}

// firstClaim returns the format that claims one of the file's first
// records (64, in its first MiB, decompressed) as surely its own
// (adapter.Yes), or nil when none does. *sniff is its read buffer, made on
// first use and kept for the next file: a batch of small files would
// otherwise allocate one per file, as large as the framing reads.
func firstClaim(path string, formats []adapter.Format, sniff **bufio.Reader) (*adapter.Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, release, err := sessionfile.Decompressed(f)
	if err != nil {
		return nil, err
	}
	defer release()
	if *sniff == nil {
		*sniff = bufio.NewReaderSize(nil, frame.DefaultReadSize)
	}
	br := *sniff
	br.Reset(io.LimitReader(r, 1<<20))
	var first *adapter.Format
	sessionfile.ClaimsReader(br, func(ev adapter.Event) adapter.Claim {
		for i := range formats {
			if formats[i].Detect(ev) == adapter.Yes {
				first = &formats[i]
				return adapter.Yes
			}
		}
		return adapter.No
	})
	br.Reset(nil)
	return first, nil
}

// OneDialog joins the sources of a conversion without --out-dir into one:
// streams are read in order as one (the legs of a resumed run); a
// session, which is a dialog of its own, must be alone.
func OneDialog(srcs []Source) (Source, error) {
	if len(srcs) == 1 {
		return srcs[0], srcs[0].Err
	}
	joined := Source{Name: fmt.Sprintf("%s and %d more inputs", srcs[0].Name, len(srcs)-1)}
	var first *Source // the first of a known format
	for i, s := range srcs {
		switch {
		case s.Err != nil:
			return s, s.Err
		case s.Format != nil && s.File == srcs[0].File && s.File == srcs[len(srcs)-1].File:
			return s, cli.Refusef("%s holds %d sessions, each a dialog of its own: convert them with --out-dir DIR", s.File, len(srcs))
		case s.Format != nil:
			return s, cli.Refusef("%s is %s, a dialog of its own: it cannot be joined with other inputs (convert each with --out-dir DIR)", s.Name, s.Format.Title)
		case s.Sniffed == nil:
		case first == nil:
			first = &srcs[i]
		case s.Sniffed.Name != first.Sniffed.Name:
			// Read as one stream, the second would be dropped without a
			// word, or read as events of the first's format.
			return s, cli.Refusef("%s is %s and %s is %s: FILEs of different formats are not one stream; convert each to a dialog of its own with --out-dir DIR",
				first.Name, first.Sniffed.Title, s.Name, s.Sniffed.Title)
		}
		joined.Inputs = append(joined.Inputs, s.Inputs...)
	}
	return joined, nil
}

// ReadFileList reads --files-from: one name a line (blank lines skipped),
// or NUL-separated (-0, as find -print0 writes them).
func ReadFileList(path string, nul bool, stdin io.Reader) ([]string, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("cannot read --files-from: %w", err)
		}
		defer f.Close()
		r = f
	}
	sep := byte('\n')
	if nul {
		sep = 0
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, sep); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	var files []string
	for sc.Scan() {
		if name := sc.Text(); name != "" {
			if name == "-" {
				return nil, cli.Usagef("--files-from: %q is no file name (standard input has no name to give its dialog)", name)
			}
			files = append(files, name)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, cli.Usagef("--files-from: a name longer than 1 MiB (a NUL-separated list without -0?)")
		}
		return nil, fmt.Errorf("reading --files-from: %w", cli.UnwrapPath(err))
	}
	if !nul && len(files) == 1 && strings.ContainsRune(files[0], 0) {
		return nil, cli.Usagef("--files-from: the list is NUL-separated: add -0")
	}
	return files, nil
}

// ReadsStdin reports whether standard input is one of the source's inputs.
func (s Source) ReadsStdin() bool {
	for _, in := range s.Inputs {
		if in.Stdin {
			return true
		}
	}
	return false
}

// Saved reports whether every input of the source is a saved file: a
// transcript nobody watches being converted, so init may wait for the
// first entry's time (dialog.Options.Saved). A session a format found
// is; standard input, pipes and FIFOs are live.
func (s Source) Saved() bool {
	if s.Format != nil {
		return true
	}
	if s.ReadsStdin() {
		return false
	}
	for _, in := range s.Inputs {
		if st, err := os.Stat(in.Name); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return len(s.Inputs) > 0
}
