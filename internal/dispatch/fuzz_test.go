package dispatch_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dialogcheck"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
	"github.com/ssebench/sse-dialog-convert/internal/testskip"
)

// pipeline converts r with every format auto-detected, as the command
// does, and returns the dialog, the diagnostics and the --tee copy.
func pipeline(t testing.TB, r io.Reader, maxText int) (out, diag, tee []byte) {
	var o, d, c bytes.Buffer
	conv := dispatch.New(&o, dialog.Options{Clock: dialog.FixedClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)), MaxText: maxText, DefaultCWD: "/w"},
		dispatch.Options{Formats: registry.All(), Stderr: &d, Tee: &c})
	if err := conv.Feed(r, "in"); err != nil {
		t.Fatalf("Feed: %v", err)
	}
	if err := conv.Close(nil); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return o.Bytes(), d.Bytes(), c.Bytes()
}

// hostileSeeds are inputs from the list of bad input, small enough
// to fuzz from.
var hostileSeeds = []string{
	"",
	"\xef\xbb\xbf" + `{"type":"system","subtype":"init","model":"m"}` + "\r\n",
	"Error: something\n\x1b[31mred\x1b[0m\n" + `{"type":"result","is_error":false}`,
	"42\n\"s\"\nnull\ntrue\n[1,2]\n[]\n{}\n",
	strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n",
	`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"a\ud800b\udc00` + "\xff\xfe" + `"}]}}` + "\n",
	"\x00\x00\n{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"\\u0000\"}}\n",
	`{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"item.started","item":{"id":"i","type":"command_execution","command":"ls"`,
	"{\n  \"type\": \"result\",\n  \"is_error\": true\n}\n",
	"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00",
	`[{"type":"system","subtype":"init"},{"type":"result","is_error":false}]`,
	`{"id":"0","msg":{"type":"exec_command_begin","call_id":"c","command":["ls"]}}` + "\n",
}

// FuzzPipeline feeds arbitrary bytes through the whole pipeline, every
// format auto-detected. Whatever the input: no panic (an adapter's is caught
// and reported as an internal error, which fails here), a dialog that passes
// validation, the --tee copy equal to the input, a short stderr, and the
// same dialog however the input is chunked. Its seeds are every format's
// fixtures.
func FuzzPipeline(f *testing.F) {
	for _, format := range registry.All() {
		files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", format.Name, "*.in.jsonl"))
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, int16(0))
			if lines := bytes.SplitAfter(b, []byte("\n")); len(lines) > 2 {
				// The first lines alone: a run cut short, its tools left open.
				f.Add(bytes.Join(lines[:len(lines)/2], nil), int16(8))
			}
		}
	}
	for _, s := range hostileSeeds {
		f.Add([]byte(s), int16(-1))
	}
	f.Fuzz(func(t *testing.T, data []byte, maxText int16) {
		limit := int(maxText)
		if limit < 0 {
			limit = -1
		}
		out, diag, tee := pipeline(t, bytes.NewReader(data), limit)
		if !bytes.Equal(tee, data) {
			t.Fatalf("--tee copy differs from the input:\n in: %q\nout: %q", data, tee)
		}
		if bytes.Contains(diag, []byte("internal error")) {
			t.Fatalf("an adapter panicked: %s", diag)
		}
		if n := bytes.Count(diag, []byte("\n")); n > 11 {
			t.Fatalf("%d lines of diagnostics", n)
		}
		var findings []string
		if _, err := dialogcheck.Validate(bytes.NewReader(out), func(f dialogcheck.Finding) { findings = append(findings, f.String()) }); err != nil {
			t.Fatal(err)
		}
		if len(findings) > 0 {
			t.Fatalf("invalid dialog: %v\n%s", findings, out)
		}
		again, _, _ := pipeline(t, iotest.OneByteReader(bytes.NewReader(data)), limit)
		if !bytes.Equal(out, again) {
			t.Fatalf("read a byte at a time, the dialog differs:\n%s\n---\n%s", out, again)
		}
	})
}

// corpusDir holds real captures by other people, never copied into the repo.
const corpusDir = "../../../shared/corpus"

// TestCorpusDamaged converts every real capture cut off at many points, with
// lines dropped, and with lines duplicated: however a real stream is
// damaged, the dialog is valid and stderr short.
func TestCorpusDamaged(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*.*json*"))
	if len(files) == 0 {
		testskip.Missingf(t, "no captures in %s (the shared corpus is not checked out)", corpusDir)
	}
	check := func(t *testing.T, what string, in []byte) {
		t.Helper()
		out, diag, _ := pipeline(t, bytes.NewReader(in), 0)
		var findings []string
		if _, err := dialogcheck.Validate(bytes.NewReader(out), func(f dialogcheck.Finding) { findings = append(findings, f.String()) }); err != nil {
			t.Fatal(err)
		}
		if len(findings) > 0 {
			t.Fatalf("%s: invalid dialog: %v", what, findings)
		}
		if n := bytes.Count(diag, []byte("\n")); n > 11 {
			t.Fatalf("%s: %d lines of diagnostics", what, n)
		}
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			const cuts = 40
			for i := 1; i < cuts; i++ {
				n := len(b) * i / cuts
				check(t, "cut at "+strconv.Itoa(n), b[:n])
			}
			lines := bytes.SplitAfter(b, []byte("\n"))
			var odd, twice []byte
			for i, l := range lines {
				if i%2 == 1 {
					odd = append(odd, l...)
				}
				twice = append(append(twice, l...), l...)
			}
			check(t, "every other line", odd)
			check(t, "every line twice", twice)
		})
	}
}
