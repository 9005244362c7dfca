// Command sse-dialog-convert turns the JSON event streams of coding agents
// (Claude Code stream-json, Codex exec --json) into the SSEBench dialog
// protocol: a dialog.jsonl written entry by entry while the agent works.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
