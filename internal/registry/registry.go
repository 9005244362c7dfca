// Package registry lists every input format the converter knows: one line
// per format. The command's --format values, help and completion, its
// messages about what an input looks like, the generic fuzz target and the
// adapter kit's tests all come from this list.
package registry

import (
	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/atif"
	"github.com/ssebench/sse-dialog-convert/internal/claude"
	"github.com/ssebench/sse-dialog-convert/internal/claudesession"
	"github.com/ssebench/sse-dialog-convert/internal/codex"
	"github.com/ssebench/sse-dialog-convert/internal/codexrollout"
	"github.com/ssebench/sse-dialog-convert/internal/cursor"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/gemini"
	"github.com/ssebench/sse-dialog-convert/internal/geminisession"
	"github.com/ssebench/sse-dialog-convert/internal/opencode"
)

// All returns every format, in the order detection prefers them when two
// claim an input alike. The dialog protocol itself comes first: it is
// recognised (and not converted) before any agent's format reads a
// dialog's entries as its own.
func All() []adapter.Format {
	return []adapter.Format{
		dialogread.Format(),
		claude.Format(),
		codex.Format(),
		opencode.Format(),
		gemini.Format(),
		cursor.Format(),
		claudesession.Format(),
		codexrollout.Format(),
		geminisession.Format(),
		atif.Format(),
	}
}

// Readable returns the formats the converter reads (those with an adapter).
func Readable() []adapter.Format {
	var fs []adapter.Format
	for _, f := range All() {
		if f.New != nil {
			fs = append(fs, f)
		}
	}
	return fs
}

// Lookup returns the format named name.
func Lookup(name string) (adapter.Format, bool) {
	for _, f := range All() {
		if f.Name == name {
			return f, true
		}
	}
	return adapter.Format{}, false
}
