package opencode

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// benchStreams are the fixtures' events, run lines and bus events apart,
// repeated with their ids renamed until each is some MiB: many runs of a
// session one after the other.
var benchStreams = adaptertest.Once(func() (map[string][][]byte, error) {
	files, err := filepath.Glob("../../testdata/opencode/*.in.jsonl")
	if err != nil {
		return nil, err
	}
	one := map[string][][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		kind := "run"
		if strings.HasPrefix(filepath.Base(f), "bus-") {
			kind = "bus"
		}
		for l := range bytes.SplitSeq(b, []byte("\n")) {
			l = bytes.TrimPrefix(bytes.TrimSpace(l), []byte("data: "))
			if len(l) > 0 && l[0] == '{' && gjson.ValidBytes(l) {
				one[kind] = append(one[kind], l)
			}
		}
	}
	out := map[string][][]byte{}
	for kind, lines := range one {
		size := 0
		for i := 0; size < 8<<20; i++ {
			suffix := []byte("_" + strconv.Itoa(i))
			for _, l := range lines {
				for _, p := range []string{"ses_", "msg_", "prt_", "call_"} {
					l = bytes.ReplaceAll(l, []byte(`"`+p), append([]byte(`"`+p), suffix...))
				}
				out[kind] = append(out[kind], l)
				size += len(l) + 1
			}
		}
	}
	return out, nil
})

// BenchmarkAdapter measures the adapter and the writer alone (no framing,
// no validation), per input byte, to io.Discard.
func BenchmarkAdapter(b *testing.B) {
	streams := benchStreams(b)
	for _, kind := range []string{"run", "bus"} {
		events, size := adaptertest.Events(streams[kind])
		if len(events) != len(streams[kind]) {
			b.Fatal("not JSON")
		}
		b.Run(kind, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				adaptertest.ConvertEvents(b, Format(), dialog.Options{Clock: dialog.FixedClock{}}, events)
			}
		})
		b.Run(kind+"/floor-gjson-valid", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				for _, ev := range events {
					if !gjson.ValidBytes(ev.Bytes()) {
						b.Fatal("invalid")
					}
				}
			}
		})
	}
}
