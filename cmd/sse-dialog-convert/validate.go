package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

func newValidateCmd() *cobra.Command {
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
			return runValidate(args, asJSON, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per file: {file, valid, findings:[{line, message}]}")
	return cmd
}

type fileReport struct {
	File     string           `json:"file"`
	Valid    bool             `json:"valid"`
	Findings []dialog.Finding `json:"findings"`
}

func runValidate(files []string, asJSON bool, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(files) == 0 {
		files = []string{"-"}
	}
	failed := false
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	for _, file := range files {
		rep, err := validateOne(file, stdin, func(rep *fileReport, f dialog.Finding) {
			if asJSON {
				return
			}
			if f.Line == 0 {
				fmt.Fprintf(stdout, "%s: %s\n", quoteName(rep.File), f.Msg)
			} else {
				fmt.Fprintf(stdout, "%s:%d: %s\n", quoteName(rep.File), f.Line, f.Msg)
			}
		})
		if err != nil {
			// A file that cannot be read is a failure, on stderr; for --json
			// it is also a report, so that every FILE gets one.
			tell(stderr, err)
			rep.Findings = append(rep.Findings, dialog.Finding{Msg: err.Error()})
		}
		rep.Valid = len(rep.Findings) == 0
		failed = failed || !rep.Valid
		if asJSON {
			if err := enc.Encode(rep); err != nil {
				return err
			}
		}
	}
	if failed {
		return &exitError{code: 1} // the findings were told
	}
	return nil
}

// validateOne checks one dialog ("-" for stdin), passing each finding on as
// it is found; the error is one that kept the file from being read.
func validateOne(file string, stdin io.Reader, found func(*fileReport, dialog.Finding)) (*fileReport, error) {
	rep := &fileReport{File: file, Findings: []dialog.Finding{}}
	r := stdin
	if file == "-" {
		rep.File = "<stdin>"
	} else {
		f, err := os.Open(file)
		if err != nil {
			return rep, err
		}
		defer f.Close() // now, not after every FILE: validate dialogs/* may name thousands
		r = f
	}
	_, err := dialog.Validate(r, func(f dialog.Finding) {
		rep.Findings = append(rep.Findings, f)
		found(rep, f)
	})
	if err != nil {
		return rep, fmt.Errorf("reading %s: %w", quoteName(rep.File), unwrapPath(err))
	}
	return rep, nil
}
