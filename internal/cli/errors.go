// Package cli holds what every command of sse-dialog-convert shares: its
// errors and the exit codes they carry, how it words counts and names in
// messages, the stop a signal causes, and the flag values it reads sizes
// and durations with. It knows no format and no protocol.
package cli

import (
	"errors"
	"fmt"
	"io"
)

// Program is the command's name, the prefix of every message.
const Program = "sse-dialog-convert"

// Every error a command returns carries the exit status it ends the
// program with (ExitCode; a plain error is 1), and the program prints it,
// once, with Tell.

// UsageError is a mistake in the command line: exit 2.
type UsageError struct {
	Err    error
	NoHelp bool   // the message says all there is: no pointer to --help
	Where  string // the command whose --help to point to; "" for the root
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }
func (e *UsageError) ExitCode() int { return 2 }

// Usagef is a usage error: exit 2, with a pointer to --help.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// Refusef is a usage error told in one line: a command refused because
// doing it would destroy or mislead (an output over an input, a typo taken
// for a FILE).
func Refusef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...), NoHelp: true}
}

// ExitError ends the program with Code, after Err's message; a nil Err
// says nothing more (its cause was told already, as --strict findings and
// a batch's summary are, or needs no words, as a closed stdout).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}
func (e *ExitError) Unwrap() error { return e.Err }
func (e *ExitError) ExitCode() int { return e.Code }

// Failed returns the error that ends the program with code and says errs
// (nil for code 0 and nothing to say).
func Failed(code int, errs ...error) error {
	err := errors.Join(errs...)
	if code == 0 && err == nil {
		return nil
	}
	return &ExitError{Code: code, Err: err}
}

// ExitCode is the status err ends the program with: 0 for none, its
// ExitCode, else 1.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var c interface{ ExitCode() int }
	if errors.As(err, &c) {
		return c.ExitCode()
	}
	return 1
}

// Tell prints err for a person: one line each for joined errors, with a
// pointer to --help at the end of a usage error's, nothing for a stop
// (the dialog says it) or an ExitError with nothing to say. It is the one
// place errors are printed: the program's, and each file's block in a
// batch.
func Tell(w io.Writer, err error) {
	var ue *UsageError
	switch e := err.(type) {
	case nil, *Stopped:
		return
	case interface{ Unwrap() []error }:
		for _, e := range e.Unwrap() {
			Tell(w, e)
		}
		return
	case *ExitError:
		Tell(w, e.Err)
		return
	}
	if errors.As(err, &ue) && !ue.NoHelp {
		fmt.Fprintf(w, "%s: %s (usage: %s --help)\n", Program, TerminalSafe(err.Error()), FirstOf(ue.Where, Program))
		return
	}
	fmt.Fprintf(w, "%s: %s\n", Program, TerminalSafe(err.Error()))
}
