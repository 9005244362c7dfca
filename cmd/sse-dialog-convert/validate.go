package main

import (
	"bufio"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/command"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
)

func newValidateCmd(streams *cli.Streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate [FILE ...]",
		Short: "Check dialog.jsonl files against the dialog protocol",
		Long: `validate checks each dialog (standard input when no FILE is given) against the
whole contract: valid UTF-8 and one JSON object per line, seq from 0 by 1, ts in
ISO 8601 UTC and never going back, init first, prompt right after it, complete
exactly once and last, every tool start ended once with the same id and name,
unique tool ids, closed enumerations, and the required fields with their types.

Each finding is printed as FILE:LINE: message. Exit status 1 on any finding.`,
		Example: `  sse-dialog-convert validate "$SSE_ARCHIVE/dialog.jsonl"
  sse-dialog-convert validate --json dialogs/*.jsonl | jq .`,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return command.Validate(args, asJSON, streams, claimedBy)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per file: {file, valid, findings:[{line, message}]}")
	return cmd
}

// fileReport is validate's report on one file (its tests read --json).
type fileReport = command.FileReport

// claimedBy is command.Claimed: the format that claims path (input
// discovery's claim), and its sessions.
func claimedBy(path string, dir bool) (string, int) {
	var sniff *bufio.Reader
	f, ins, _, err := inputs.Claim(path, dir, registry.All(), false, &sniff)
	if err != nil || f == nil {
		return "", 0
	}
	return f.Title, len(ins)
}
