package command

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/dialogcheck"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

// Claimed names the format that claims path as an input it reads whole (a
// session file; with dir, a folder of sessions), and how many sessions that
// makes: "" when no format claims it. Input discovery answers it; main
// passes it in.
type Claimed func(path string, dir bool) (title string, sessions int)

// FileReport is validate's verdict on one file, as --json prints it.
type FileReport struct {
	File     string                `json:"file"`
	Valid    bool                  `json:"valid"`
	Findings []dialogcheck.Finding `json:"findings"`
}

// Validate checks each dialog of files (standard input when none) against
// the protocol, and prints its findings, or with asJSON one FileReport a
// file. claimed names the input format that claims a FILE the converter
// reads as its own whole (a session file, a folder of them), and how many
// sessions it holds: "" when none does.
func Validate(files []string, asJSON bool, streams *cli.Streams, claimed Claimed) error {
	stdin, stdout, stderr := streams.In, streams.Out, streams.ErrOut
	if len(files) == 0 {
		files = []string{"-"}
	}
	if slices.Contains(files, "-") && streams.InTerminal {
		fmt.Fprintf(stderr, "%s: reading a dialog from standard input (a terminal); Ctrl-D ends it\n", cli.Program)
	}
	failed := false
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	for _, file := range files {
		rep, err := validateOne(file, stdin, claimed, func(rep *FileReport, f dialogcheck.Finding) {
			if asJSON {
				return
			}
			if f.Line == 0 {
				fmt.Fprintf(stdout, "%s: %s\n", cli.QuoteName(rep.File), f.Msg)
			} else {
				fmt.Fprintf(stdout, "%s:%d: %s\n", cli.QuoteName(rep.File), f.Line, f.Msg)
			}
		})
		if err != nil {
			// A file that cannot be read is a failure, on stderr; for --json
			// it is also a report, so that every FILE gets one.
			cli.Tell(stderr, err)
			rep.Findings = append(rep.Findings, dialogcheck.Finding{Msg: err.Error()})
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
		return &cli.ExitError{Code: 1} // the findings were told
	}
	return nil
}

// validateOne checks one dialog ("-" for stdin), passing each finding on as
// it is found; the error is one that kept the file from being read.
func validateOne(file string, stdin io.Reader, claimed Claimed, found func(*FileReport, dialogcheck.Finding)) (*FileReport, error) {
	rep := &FileReport{File: file, Findings: []dialogcheck.Finding{}}
	r := stdin
	if file == "-" {
		rep.File = "<stdin>"
	} else {
		if st, err := os.Stat(file); err == nil && st.IsDir() {
			return rep, notADialogFile(file, claimed)
		}
		f, err := os.Open(file)
		if err != nil {
			return rep, err
		}
		defer f.Close() // now, not after every FILE: validate dialogs/* may name thousands
		r = f
	}
	// A transcript is not judged line by line against the protocol (every
	// line would be a finding): it is named, with what to do. Only a file
	// whose first line is no dialog entry is asked.
	br := bufio.NewReaderSize(r, validateSniff)
	head, err := br.Peek(validateSniff)
	var rest io.Reader = br
	switch {
	case errors.Is(err, io.EOF):
		// All of it is in head. Not read again: a terminal gives its
		// end (Ctrl-D) once.
		rest = bytes.NewReader(head)
	case err != nil:
		return rep, fmt.Errorf("reading %s: %w", rep.File, cli.UnwrapPath(err))
	}
	if first, _, _ := bytes.Cut(head, []byte("\n")); !dialogread.IsDialog(first) {
		if f, ok := inputFormat(head); ok {
			convert := cli.Program + " " + file + " -o dialog.jsonl"
			if file == "-" {
				convert = cli.Program + " -o dialog.jsonl < FILE"
			}
			return rep, fmt.Errorf("%s is %s, an input, not a dialog: convert it first (%s), then validate the dialog", displayInput(file), f.Title, convert)
		}
		if file != "-" {
			if err := notADialogFile(file, claimed); err != nil {
				return rep, err
			}
		}
	}
	_, err = dialogcheck.Validate(rest, func(f dialogcheck.Finding) {
		rep.Findings = append(rep.Findings, f)
		found(rep, f)
	})
	if err != nil {
		return rep, fmt.Errorf("reading %s: %w", cli.QuoteName(rep.File), cli.UnwrapPath(err))
	}
	return rep, nil
}

// validateSniff is how much of a file validate reads ahead to tell a
// transcript from a dialog.
const validateSniff = 256 << 10

// inputFormat names the input format the start of a file is in, when one
// of its first records is surely (adapter.Yes) an event of a format the
// converter reads.
func inputFormat(head []byte) (adapter.Format, bool) {
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1] // whole lines only: a cut one would be a broken record
	}
	var found adapter.Format
	ok := false
	formats := registry.All()
	sessionfile.ClaimsReader(bytes.NewReader(head), func(ev adapter.Event) adapter.Claim {
		for _, f := range formats {
			if f.Detect(ev) == adapter.Yes {
				found, ok = f, f.New != nil
				return adapter.Yes
			}
		}
		return adapter.No
	})
	return found, ok
}

// displayInput names a FILE argument in a message: "-" is standard input.
func displayInput(file string) string {
	if file == "-" {
		return "standard input"
	}
	return file
}

// notADialogFile says what to do with a FILE that a format reads as its
// own whole (a session file, a folder of them) or that is a folder: those
// are converted, then validated.
func notADialogFile(file string, claimed Claimed) error {
	st, err := os.Stat(file)
	if err != nil {
		return nil // opening it says what is wrong
	}
	title, sessions := claimed(file, st.IsDir())
	switch {
	case title != "" && st.IsDir():
		return fmt.Errorf("%s is a folder of %s, an input: convert it first (%s --out-dir dialogs %s), then validate the dialogs (dialogs/*.dialog.jsonl)", file, cli.Plural(sessions, "session"), cli.Program, file)
	case title != "":
		return fmt.Errorf("%s is %s, an input, not a dialog: convert it first (%s %s -o dialog.jsonl), then validate the dialog", file, title, cli.Program, file)
	case st.IsDir():
		return fmt.Errorf("%s is a folder: validate takes dialog files (%s)", file, filepath.Join(file, "*.jsonl"))
	}
	return nil
}
