// Command sse-dialog-convert turns the JSON event streams of coding agents,
// and the session files they keep, into the SSEBench dialog protocol: a
// dialog.jsonl written entry by entry while the agent works. The formats
// it reads are listed in internal/registry.
package main

import (
	"context"
	"os"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
)

func main() { os.Exit(runProgram(context.Background(), os.Args[1:], cli.System())) }
