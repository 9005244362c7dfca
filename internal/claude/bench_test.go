package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/sessiongen"
)

type benchInput struct {
	name   string
	lines  [][]byte
	events []adapter.Event // the lines, checked
	size   int64           // bytes, newlines included
}

func newBenchInput(name string, data []byte) benchInput {
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	events, size := adaptertest.Events(lines)
	return benchInput{name, lines, events, size}
}

// benchInputs are a generated 16 MiB session (see internal/sessiongen)
// and, when the shared corpus is there, its largest real capture. Built
// once per test binary.
var inputs = adaptertest.Once(func() ([]benchInput, error) {
	gen, err := sessiongen.Claude(sessiongen.Options{Size: 16 << 20, Seed: 1})
	if err != nil {
		return nil, err
	}
	in := []benchInput{newBenchInput("session-16MiB", gen)}
	if c, err := os.ReadFile(filepath.Join(corpusDir, "cc2.1.72-subagent-thinking-rate-limit-api-connection-error.jsonl")); err == nil {
		in = append(in, newBenchInput("capture", c))
	}
	return in, nil
})

// BenchmarkAdapter measures the adapter and the writer alone (no framing,
// no validation), per input byte, to io.Discard; "uncapped" leaves out the
// writer's cutting of long results (the default cap is 16 KiB, the default
// file budget 30 MiB).
func BenchmarkAdapter(b *testing.B) {
	for _, in := range inputs(b) {
		for _, c := range []struct {
			name     string
			maxText  int
			maxBytes int64
		}{{"cap-16KiB", 0, 0}, {"uncapped", -1, -1}} {
			b.Run(in.name+"/"+c.name, func(b *testing.B) {
				b.SetBytes(in.size)
				b.ReportAllocs()
				opt := dialog.Options{Clock: adaptertest.Pinned(), MaxText: c.maxText, MaxBytes: c.maxBytes}
				for b.Loop() {
					adaptertest.ConvertEvents(b, Format(), opt, in.events)
				}
			})
		}
	}
}

// BenchmarkValidFloor is the floor any validating converter pays on the
// same lines: one gjson.ValidBytes pass over each.
func BenchmarkValidFloor(b *testing.B) {
	for _, in := range inputs(b) {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(in.size)
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range in.lines {
					if !gjson.ValidBytes(l) {
						b.Fatal("invalid line")
					}
				}
			}
		})
	}
}
