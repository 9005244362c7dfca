package jsonraw

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// benchLines is the real Claude captures when the shared corpus is there,
// and always our own fixtures of both formats, plus one command output of
// realistic size: the text the adapters walk.
func benchLines(b *testing.B) [][]byte {
	b.Helper()
	lines := objectLines(b, "../../../shared/corpus/claude/*.jsonl", "../../testdata/claude/*.in.jsonl", "../../testdata/codex/*.in.jsonl")
	big := strings.Repeat(`line of build output with a \"quote\" and a tab\t\n`, 200)
	return append(lines, []byte(`{"type":"item.completed","item":{"id":"item_9","type":"command_execution","command":"bash -lc 'make'","aggregated_output":"`+big+`","exit_code":0,"status":"completed"}}`))
}

// objectLines is every line of the files globs match that holds a JSON
// object, trimmed.
func objectLines(b *testing.B, globs ...string) [][]byte {
	b.Helper()
	var lines [][]byte
	for _, g := range globs {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			d, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			for l := range bytes.SplitSeq(d, []byte("\n")) {
				if l = bytes.TrimSpace(l); len(l) > 0 && l[0] == '{' {
					lines = append(lines, l)
				}
			}
		}
	}
	return lines
}

// BenchmarkWalk walks every line: "all" visits every member and element
// below it, as the adapters do with the parts they read; "top" reads the
// top-level members only, skipping each value whole, the first step of every
// Event call.
func BenchmarkWalk(b *testing.B) {
	lines := benchLines(b)
	var checker Checker
	for _, c := range []struct {
		name string
		walk func([]byte)
	}{
		{"all", func(l []byte) { visit(textOf(l, true)) }},
		{"top", func(l []byte) {
			for m := textOf(l, true).Members(); m.Next(); {
			}
		}},
		{"check", func(l []byte) { _ = checker.Check(l, 10000) }},
		{"gjson-floor", func(l []byte) { _ = gjson.ValidBytes(l) }},
	} {
		benchEachLine(b, c.name, lines, c.walk)
	}
}

// benchEachLine runs f over every line as the benchmark name, counting
// the lines' bytes.
func benchEachLine(b *testing.B, name string, lines [][]byte, f func([]byte)) {
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	b.Run(name, func(b *testing.B) {
		b.SetBytes(int64(n))
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				f(l)
			}
		}
	})
}

func visit(v Value) {
	for m := v.Members(); m.Next(); {
		visit(m.Value)
	}
	for e := v.Elements(); e.Next(); {
		visit(e.Value)
	}
}

// BenchmarkCheck compares the Checker with gjson's validation (the speed
// floor of bench/floor) on the real captures of one format: Codex's lines
// are short (~150 bytes), Claude's long; each line is checked, then its
// members walked as an adapter's first step does.
func BenchmarkCheck(b *testing.B) {
	for _, format := range []string{"codex", "claude"} {
		lines := objectLines(b, "../../../shared/corpus/"+format+"/*.jsonl")
		if len(lines) == 0 {
			b.Skip("no ../shared/corpus: the real captures are not here")
		}
		var c Checker
		for _, k := range []struct {
			name string
			run  func([]byte)
		}{
			{"check", func(l []byte) { _ = c.Check(l, 100) }},
			{"check+members", func(l []byte) {
				v, _ := c.Value(l, 100)
				for m := v.Members(); m.Next(); {
				}
			}},
			{"gjson", func(l []byte) { _ = gjson.ValidBytes(l) }},
		} {
			benchEachLine(b, format+"/"+k.name, lines, k.run)
		}
	}
}
