package main

import (
	"github.com/ssebench/sse-dialog-convert/internal/claude"
	"github.com/ssebench/sse-dialog-convert/internal/codex"
	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// formats lists every input format, in the order auto-detection tries them.
func formats() []convert.Format {
	return []convert.Format{
		{Name: "claude", Detect: claude.Detect, New: func(w *dialog.Writer) convert.Adapter { return claude.New(w) }},
		{Name: "codex", Detect: codex.Detect, New: func(w *dialog.Writer) convert.Adapter { return codex.New(w) }},
	}
}

// pickFormats returns the formats --format allows, or false for an unknown name.
func pickFormats(name string) ([]convert.Format, bool) {
	all := formats()
	if name == "auto" || name == "" {
		return all, true
	}
	for _, f := range all {
		if f.Name == name {
			return []convert.Format{f}, true
		}
	}
	return nil, false
}
