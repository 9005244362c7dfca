package main

import (
	"fmt"
	"io"
)

// warnTo reports the dialog writer's warnings (dialog.Options.Warn) about
// the dialog at path, one line each.
func warnTo(stderr io.Writer, path string) func(string) {
	return func(msg string) {
		fmt.Fprintf(stderr, "%s: %s: warning: %s\n", name, quoteName(path), terminalSafe(msg))
	}
}
