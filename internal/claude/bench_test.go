package claude

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// benchInput is the largest real capture when the corpus is there, else
// every fixture of ours, as lines.
func benchInput(b *testing.B) [][]byte {
	b.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, "cc2.1.72-subagent-thinking-rate-limit-api-connection-error.jsonl"))
	if err != nil {
		files, _ := filepath.Glob("../../testdata/claude/*.in.jsonl")
		for _, f := range files {
			d, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			data = append(data, d...)
		}
	}
	return bytes.Split(bytes.TrimSpace(data), []byte("\n"))
}

// BenchmarkEvent measures the adapter and the writer alone (no framing, no
// validation), per input byte; "uncapped" leaves out the writer's cutting of
// long results, which dominates the default run.
func BenchmarkEvent(b *testing.B) {
	lines := benchInput(b)
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	for _, c := range []struct {
		name    string
		maxText int
	}{{"default-cap", 0}, {"uncapped", -1}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				w := dialog.NewWriter(io.Discard, dialog.Options{Clock: pinned, MaxText: c.maxText})
				a := New(w)
				for _, l := range lines {
					w.BeginLine()
					if err := a.Event(l); err != nil {
						b.Fatal(err)
					}
				}
				_ = w.Close(a.Summary(), nil)
			}
		})
	}
}

// BenchmarkValidFloor is the floor any validating converter pays: one
// gjson.ValidBytes pass over every line.
func BenchmarkValidFloor(b *testing.B) {
	lines := benchInput(b)
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if !validBytes(l) {
				b.Fatal("invalid line")
			}
		}
	}
}

func validBytes(l []byte) bool { return gjson.ValidBytes(l) }
