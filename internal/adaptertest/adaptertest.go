// Package adaptertest is the adapter kit's test harness: every format's
// golden cases are converted whole, one byte at a time, in random
// chunkings, through tiny read and sink buffers, with CRLF line endings,
// and with each record's buffer overwritten after the adapter has seen it;
// every way must give the same dialog, byte for byte, which must pass
// validation and match the golden.
package adaptertest

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dialogcheck"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/golden"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Options are the dialog options every golden is made with: what would
// otherwise depend on the machine is pinned (the command's golden flags:
// --clock 2026-01-02T03:04:05Z --cwd /work --task fixture, a saved file).
func Options() dialog.Options {
	return dialog.Options{
		Clock: dialog.FixedClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		CWD:   "/work",
		Task:  "fixture",
		Saved: true,
	}
}

// Cases returns the golden inputs of a format: dir/*.in.jsonl.
func Cases(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.in.jsonl"))
	require.NoError(t, err)
	return files
}

// Run checks every golden case of f in dir.
func Run(t *testing.T, f adapter.Format, dir string) {
	t.Helper()
	cases := Cases(t, dir)
	require.NotEmpty(t, cases, "no golden cases in %s", dir)
	for _, in := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(in), ".in.jsonl"), func(t *testing.T) {
			raw, err := os.ReadFile(in)
			require.NoError(t, err)
			whole := Convert(t, f, bytes.NewReader(raw))
			RequireValid(t, whole)
			golden.Check(t, strings.TrimSuffix(in, ".in.jsonl")+".out.jsonl", whole)

			same := func(how string, got []byte) {
				t.Helper()
				require.Equal(t, string(whole), string(got), "fed %s, the dialog differs", how)
			}
			same("one byte at a time", Convert(t, f, iotest.OneByteReader(bytes.NewReader(raw))))
			rng := rand.New(rand.NewPCG(uint64(len(raw)), 1))
			for i := range 5 {
				same("in random chunks (round "+string(rune('1'+i))+")", Convert(t, f, &chunked{data: raw, rng: rng}))
			}
			same("through a 1-byte read buffer and sink", ConvertBuffered(t, f, bytes.NewReader(raw), Tiny()))
			same("with CRLF line endings", Convert(t, f, bytes.NewReader(bytes.ReplaceAll(raw, []byte("\n"), []byte("\r\n")))))
			same("with each record overwritten after its event, and Summary asked after each", clobbered(t, f, raw))
		})
	}
}

// Convert converts r as the command does with --format f.
func Convert(t testing.TB, f adapter.Format, r io.Reader) []byte {
	t.Helper()
	return ConvertBuffered(t, f, r, Buffers{})
}

// clobbered converts raw feeding the adapter itself: each record is copied
// into a buffer of its own, handed over, and overwritten with 'Z's as soon
// as the adapter returns. An adapter that kept a view of an event past its
// call would show the 'Z's (test2json's writeAndKill). Summary is asked
// after every event, as `run` and --follow ask it while they wait: an
// adapter whose Summary wrote anything would show it.
func clobbered(t testing.TB, f adapter.Format, raw []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := dialog.NewWriter(&out, Options())
	a := f.Start(w)
	var chk jsonraw.Checker // the copy's, apart from the loop's
	for ev, err := range dispatch.Events(bytes.NewReader(raw)) {
		require.NoError(t, err)
		buf := append([]byte(nil), ev.Bytes()...)
		v, _ := chk.Value(buf, dispatch.MaxDepth)
		w.BeginLine()
		_ = a.Event(adapter.Event{Value: v})
		for i := range buf {
			buf[i] = 'Z'
		}
		_ = a.Summary()
	}
	w.BeginLine()
	if f, ok := a.(adapter.Finisher); ok {
		f.Finish()
	}
	require.NoError(t, w.Close(a.Summary(), nil))
	return out.Bytes()
}

// RequireValid fails when the dialog breaks the contract.
func RequireValid(t testing.TB, out []byte) {
	t.Helper()
	var findings []string
	_, err := dialogcheck.Validate(bytes.NewReader(out), func(f dialogcheck.Finding) { findings = append(findings, f.String()) })
	require.NoError(t, err)
	require.Empty(t, findings, "the dialog breaks the contract:\n%s", out)
}

// chunked reads data in pieces of random sizes, 1 to 64 bytes.
type chunked struct {
	data []byte
	rng  *rand.Rand
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), 1+c.rng.IntN(64))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}
