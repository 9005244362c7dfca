// Command gensession writes a generated session (see internal/sessiongen)
// to a file, for measuring the built binary by hand or from peakmem.sh.
//
// Usage: gensession -format claude|codex|claude-huge|codex-huge -mib N [-fill plain|log] [-seed S] -o FILE
//
// Run it from the repository (the sessions are built from testdata/).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ssebench/sse-dialog-convert/internal/sessiongen"
)

func main() {
	format := flag.String("format", "claude", "claude, codex (long sessions), claude-huge or codex-huge (one tool result of -mib MiB)")
	mib := flag.Float64("mib", 100, "target size in MiB")
	fill := flag.String("fill", "plain", "content of a huge result: plain (x repeated, as compare.py) or log (escapes, ANSI codes, multi-byte characters)")
	seed := flag.Uint64("seed", 1, "seed of the generator")
	out := flag.String("o", "", "output file")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*format, int(*mib*(1<<20)), *fill, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gensession:", err)
		os.Exit(1)
	}
}

func run(format string, size int, fill string, seed uint64, out string) error {
	f := sessiongen.FillPlain
	switch fill {
	case "plain":
	case "log":
		f = sessiongen.FillLog
	default:
		return fmt.Errorf("unknown -fill %q", fill)
	}
	var b []byte
	var err error
	switch format {
	case "claude":
		b, err = sessiongen.Claude(sessiongen.Options{Size: size, Seed: seed})
	case "codex":
		b, err = sessiongen.Codex(sessiongen.Options{Size: size, Seed: seed})
	case "claude-huge":
		b = sessiongen.ClaudeHuge(size, f)
	case "codex-huge":
		b = sessiongen.CodexHuge(size, f)
	default:
		return fmt.Errorf("unknown -format %q", format)
	}
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}
