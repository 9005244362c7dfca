package codex

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dialogcheck"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
	"github.com/ssebench/sse-dialog-convert/internal/sessiongen"
)

// fixtureLines returns the lines of every testdata/codex fixture that is a
// JSON object on one line.
func fixtureLines(tb testing.TB) [][]byte {
	tb.Helper()
	files, err := filepath.Glob("../../testdata/codex/*.in.jsonl")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no fixtures: %v", err)
	}
	var lines [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		for l := range bytes.SplitSeq(b, []byte("\n")) {
			if len(l) > 0 && l[0] == '{' && gjson.ValidBytes(l) {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// benchSession is a generated 16 MiB session (see internal/sessiongen):
// several processes, many commands with outputs up to 100 KiB, reasoning,
// messages, todo lists. Built once per test binary.
var benchSession = adaptertest.Once(func() ([][]byte, error) {
	b, err := sessiongen.Codex(sessiongen.Options{Size: 16 << 20, Seed: 1})
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")), err
})

func session(b *testing.B) (events []adapter.Event, size int64) {
	b.Helper()
	return adaptertest.Events(benchSession(b))
}

// BenchmarkAdapter measures the adapter and the writer alone (no framing,
// no validation), per input byte, to io.Discard; "uncapped" leaves out the
// writer's cutting of long outputs (the default cap is 16 KiB, the default
// file budget 30 MiB).
func BenchmarkAdapter(b *testing.B) {
	lines, size := session(b)
	for _, c := range []struct {
		name     string
		maxText  int
		maxBytes int64
	}{{"cap-16KiB", 0, 0}, {"uncapped", -1, -1}} {
		b.Run("session-16MiB/"+c.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			opt := dialog.Options{Clock: dialog.FixedClock{}, MaxText: c.maxText, MaxBytes: c.maxBytes}
			for b.Loop() {
				adaptertest.ConvertEvents(b, Format(), opt, lines)
			}
		})
	}
}

// realLines repeats the current-dialect fixtures' streams (short lines,
// ~110-160 bytes, as real captures are) to about 16 MiB.
var realLines = adaptertest.Once(func() ([]adapter.Event, error) {
	files, err := filepath.Glob("../../testdata/codex/*.in.jsonl")
	if err != nil {
		return nil, err
	}
	var stream []adapter.Event
	var size int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if !bytes.Contains(b, []byte(`"type":"thread.started"`)) {
			continue
		}
		for l := range bytes.SplitSeq(bytes.TrimRight(b, "\n"), []byte("\n")) {
			if v, ok := jsonraw.Parse(l); ok {
				stream = append(stream, adapter.Event{Value: v})
				size += len(l) + 1
			}
		}
	}
	if size == 0 {
		return nil, errors.New("no current-dialect Codex fixtures")
	}
	var events []adapter.Event
	for n := 0; n < 16<<20; n += size {
		events = append(events, stream...)
	}
	return events, nil
})

// BenchmarkAdapterRealLines measures the adapter and the writer alone on
// lines of real size: the cost per line, which dominates real Codex input.
// The clock is pinned: the command reads its clock once per read of the
// input, not per line.
func BenchmarkAdapterRealLines(b *testing.B) {
	events := realLines(b)
	var size int64
	for _, ev := range events {
		size += int64(len(ev.Bytes())) + 1
	}
	b.SetBytes(size)
	b.ReportAllocs()
	opt := dialog.Options{Clock: dialog.FixedClock(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))}
	for b.Loop() {
		adaptertest.ConvertEvents(b, Format(), opt, events)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/line")
}

// BenchmarkValidFloor is the floor any validating converter pays on the
// same lines: one gjson.ValidBytes pass over each.
func BenchmarkValidFloor(b *testing.B) {
	events, size := session(b)
	b.Run("session-16MiB", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, ev := range events {
				if !gjson.ValidBytes(ev.Bytes()) {
					b.Fatal("invalid line")
				}
			}
		}
	})
}

// FuzzCodex feeds arbitrary JSON objects, one per line, to the adapter:
// it must not panic, and the dialog must satisfy the contract.
func FuzzCodex(f *testing.F) {
	for _, l := range fixtureLines(f) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		w := dialog.NewWriter(&out, dialog.Options{Clock: dialog.FixedClock{}})
		a := New(w)
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			l := bytes.TrimSpace(sc.Bytes())
			// The pipeline hands adapters valid JSON objects only.
			if len(l) == 0 || l[0] != '{' || !gjson.ValidBytes(l) {
				continue
			}
			v, ok := jsonraw.Parse(l)
			if !ok {
				continue
			}
			w.BeginLine()
			_ = a.Event(adapter.Event{Value: v})
		}
		if err := w.Close(a.Summary(), nil); err != nil {
			t.Fatal(err)
		}
		var findings []string
		if _, err := dialogcheck.Validate(bytes.NewReader(out.Bytes()), func(f dialogcheck.Finding) { findings = append(findings, f.String()) }); err != nil {
			t.Fatal(err)
		}
		if len(findings) > 0 {
			t.Fatalf("invalid dialog: %v\n%s", findings, out.Bytes())
		}
	})
}
