package dispatch_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
	"github.com/ssebench/sse-dialog-convert/internal/sessiongen"
)

// benchSize is the size of the generated sessions: large enough that the
// adapters' per-session maps and the writer's id sets grow as in a long run.
const benchSize = 16 << 20

// hugeSize is one tool result as large as compare.py's --huge 64.
const hugeSize = 64 << 20

type benchInput struct {
	name string
	data []byte
}

// benchInputs are built once per test binary: generating them costs more
// than a round of conversion.
var inputs = adaptertest.Once(func() ([]benchInput, error) {
	cl, err := sessiongen.Claude(sessiongen.Options{Size: benchSize, Seed: 1})
	if err != nil {
		return nil, err
	}
	cx, err := sessiongen.Codex(sessiongen.Options{Size: benchSize, Seed: 1})
	if err != nil {
		return nil, err
	}
	lines, err := codexLines(benchSize)
	if err != nil {
		return nil, err
	}
	return []benchInput{
		{"claude-16MiB", cl},
		// sessiongen's Codex records are long (command outputs up to 100
		// KiB): per byte, they flatter a converter whose cost is per line.
		{"codex-16MiB", cx},
		// Real Codex lines are short (~110-160 bytes): our fixtures' lines,
		// whole streams one after another, as compare.py --codex does with
		// the real captures.
		{"codex-real-lines-16MiB", lines},
		// compare.py's shape: one line of "x", no escapes.
		{"huge-64MiB-plain", sessiongen.ClaudeHuge(hugeSize, sessiongen.FillPlain)},
		// The costlier line: escapes, ANSI codes, multi-byte characters.
		{"huge-64MiB-log", sessiongen.ClaudeHuge(hugeSize, sessiongen.FillLog)},
	}, nil
})

// codexLines repeats the Codex fixtures' streams (the current dialect's)
// to size bytes.
func codexLines(size int) ([]byte, error) {
	files, err := filepath.Glob("../../testdata/codex/*.in.jsonl")
	if err != nil {
		return nil, err
	}
	var blob []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if bytes.Contains(b, []byte(`"type":"thread.started"`)) {
			blob = append(blob, bytes.TrimRight(b, "\n")...)
			blob = append(blob, '\n')
		}
	}
	if len(blob) == 0 {
		return nil, errors.New("no current-dialect Codex fixtures")
	}
	return bytes.Repeat(blob, size/len(blob)+1), nil
}

// convertOnce runs the whole pipeline as the command does for one input
// file: records → validation → detection → adapter → writer, with the
// command's defaults (system clock, 16 KiB cap), to out.
func convertOnce(b *testing.B, data []byte, out io.Writer) {
	conv := dispatch.New(out, dialog.Options{DefaultCWD: "/w"}, dispatch.Options{Formats: registry.All(), Stderr: io.Discard})
	if err := conv.Feed(bytes.NewReader(data), "in"); err != nil {
		b.Fatal(err)
	}
	if err := conv.Close(nil); err != nil {
		b.Fatal(err)
	}
	if s := conv.Stats(); s.Bad > 0 || s.Unknown > 0 {
		b.Fatalf("%d bad and %d unknown records: the benchmark would not measure a conversion", s.Bad, s.Unknown)
	}
}

// BenchmarkPipeline converts generated sessions and huge single-line inputs
// through the whole pipeline, to io.Discard (the converter alone) and to a
// file (as the command writes).
// Compare with BenchmarkFloor on the same inputs.
func BenchmarkPipeline(b *testing.B) {
	for _, in := range inputs(b) {
		b.Run(in.name+"/discard", func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				convertOnce(b, in.data, io.Discard)
			}
		})
		b.Run(in.name+"/file", func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "dialog.jsonl")
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				f, err := os.Create(path)
				if err != nil {
					b.Fatal(err)
				}
				convertOnce(b, in.data, f)
				if err := f.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFloor is ../shared/bench/floor on the same inputs: read every
// line and run gjson.ValidBytes on it, nothing else. The least any
// validating converter must do; Pipeline/…/discard over Floor is the
// ratio compare.py reports as floor_ratio (there, with process start and
// real I/O on both sides).
func BenchmarkFloor(b *testing.B) {
	for _, in := range inputs(b) {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				if n, bad := floor(bytes.NewReader(in.data)); n == 0 || bad > 0 {
					b.Fatalf("%d lines, %d invalid", n, bad)
				}
			}
		})
	}
}

// floor mirrors floor/main.go, but for one bug: for a line over its 1 MiB
// buffer, floor/main.go copies the first part after ReadBytes has
// overwritten it, and reports the line invalid. Here the part is copied
// first.
func floor(r io.Reader) (n, bad int) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			line = append([]byte{}, line...)
			rest, _ := br.ReadBytes('\n')
			line = append(line, rest...)
			err = nil
		}
		if len(line) > 0 {
			n++
			if !gjson.ValidBytes(line) {
				bad++
			}
		}
		if err != nil {
			return n, bad
		}
	}
}
