//go:build unix

// Command peakmem runs a command and prints its peak resident memory, as
// the kernel accounts it (the rusage of the waited-for child), and its wall
// time.
//
// Usage: peakmem [-label L] [-of MiB] [-limit MiB] -- COMMAND [ARG ...]
//
// It exists because a child's peak RSS starts at its parent's: at exec the
// kernel keeps the larger of the two, so a parent that built a large input
// in memory (as ../shared/bench/compare.py does for --huge) makes every
// child it starts look as large. This parent stays small; run it with
// `peakmem -- /bin/true` to see its floor. GNU time would do, but it is not
// installed on a fresh Debian.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

func main() {
	label := flag.String("label", "", "what to call the run in the output (default: the command)")
	of := flag.Float64("of", 0, "print the peak as a multiple of this many MiB too (a line's size)")
	limit := flag.Float64("limit", 0, "say whether the peak is within this many MiB (a target; the exit status does not change)")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: peakmem [-label L] [-of MiB] [-limit MiB] -- COMMAND [ARG ...]")
		os.Exit(2)
	}
	if *label == "" {
		*label = args[0]
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "peakmem:", err)
		os.Exit(1)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "peakmem: no rusage on", runtime.GOOS)
		os.Exit(1)
	}
	peak := float64(ru.Maxrss) / 1024 // KiB on Linux and the BSDs
	if runtime.GOOS == "darwin" {
		peak /= 1024 // bytes there
	}
	line := fmt.Sprintf("%-44s peak %7.1f MiB", *label, peak)
	if *of > 0 {
		line += fmt.Sprintf(" (%.2f× %g MiB)", peak / *of, *of)
	}
	line += fmt.Sprintf("  %6.2f s  exit %d", wall.Seconds(), cmd.ProcessState.ExitCode())
	switch {
	case *limit <= 0:
	case peak <= *limit:
		line += fmt.Sprintf("  within %g MiB", *limit)
	default:
		line += fmt.Sprintf("  OVER %g MiB", *limit)
	}
	fmt.Println(line)
	if !cmd.ProcessState.Success() {
		os.Exit(1)
	}
}
