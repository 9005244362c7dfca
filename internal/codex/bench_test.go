package codex

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
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

// BenchmarkAdapter converts a session built from the current-format
// fixtures, with a command output of realistic size, to io.Discard.
func BenchmarkAdapter(b *testing.B) {
	var lines [][]byte
	big := strings.Repeat(`line of build output with a \"quote\" and a tab\t\n`, 200)
	for _, l := range fixtureLines(b) {
		if bytes.Contains(l, []byte(`"type":"thread.started"`)) {
			continue // one process, so item ids keep restarting as in one long run
		}
		lines = append(lines, l)
	}
	lines = append(lines, []byte(`{"type":"item.completed","item":{"id":"item_9","type":"command_execution","command":"bash -lc 'make'","aggregated_output":"`+big+`","exit_code":0,"status":"completed"}}`))
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		w := dialog.NewWriter(io.Discard, dialog.Options{Clock: dialog.FixedClock{}})
		a := New(w)
		for _, l := range lines {
			w.BeginLine()
			_ = a.Event(l)
		}
		_ = w.Close(a.Summary(), nil)
	}
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
			w.BeginLine()
			_ = a.Event(l)
		}
		if err := w.Close(a.Summary(), nil); err != nil {
			t.Fatal(err)
		}
		var findings []string
		if _, err := dialog.Validate(bytes.NewReader(out.Bytes()), func(f dialog.Finding) { findings = append(findings, f.String()) }); err != nil {
			t.Fatal(err)
		}
		if len(findings) > 0 {
			t.Fatalf("invalid dialog: %v\n%s", findings, out.Bytes())
		}
	})
}
