package cli

import (
	"fmt"
	"io"
)

// WarnTo reports the dialog writer's warnings (dialog.Options.Warn) about
// the dialog at path, one line each.
func WarnTo(stderr io.Writer, path string) func(string) {
	return func(msg string) {
		fmt.Fprintf(stderr, "%s: %s: warning: %s\n", Program, QuoteName(path), TerminalSafe(msg))
	}
}
