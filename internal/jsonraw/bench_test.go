package jsonraw

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchLines is the real Claude captures when the shared corpus is there,
// and always our own fixtures of both formats, plus one command output of
// realistic size: the text the adapters walk.
func benchLines(b *testing.B) []string {
	b.Helper()
	var files []string
	for _, g := range []string{"../../../shared/corpus/claude/*.jsonl", "../../testdata/claude/*.in.jsonl", "../../testdata/codex/*.in.jsonl"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	var lines []string
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for l := range bytes.SplitSeq(d, []byte("\n")) {
			if l = bytes.TrimSpace(l); len(l) > 0 && l[0] == '{' {
				lines = append(lines, string(l))
			}
		}
	}
	big := strings.Repeat(`line of build output with a \"quote\" and a tab\t\n`, 200)
	return append(lines, `{"type":"item.completed","item":{"id":"item_9","type":"command_execution","command":"bash -lc 'make'","aggregated_output":"`+big+`","exit_code":0,"status":"completed"}}`)
}

// BenchmarkWalk visits every member and element of every line, as the
// adapters do with the parts they read.
func BenchmarkWalk(b *testing.B) {
	lines := benchLines(b)
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			visit(l)
		}
	}
}

func visit(raw string) int {
	n := 0
	for m := Members(raw); m.Next(); {
		n += visit(m.Value)
	}
	for e := Elements(raw); e.Next(); {
		n += visit(e.Value)
	}
	return n + 1
}

// BenchmarkTop reads the top-level members of every line only, skipping
// each value whole: the first step of every Event call.
func BenchmarkTop(b *testing.B) {
	lines := benchLines(b)
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			for m := Members(l); m.Next(); {
			}
		}
	}
}
