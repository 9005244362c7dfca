package main

import (
	"bufio"
	"io"
	"os"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
)

// The names view.go, export.go, validate.go and run.go call, forwarded to
// where input discovery and the job now live (internal/inputs,
// internal/convert). Only those files use them: once they call the
// packages themselves, this file goes.

type (
	source    = inputs.Source
	input     = inputs.Input
	namedFile = inputs.NamedFile
	fed       = convert.Fed
	output    = convert.Output
)

const followGrace = convert.FollowGrace

func sources(files []string, formats []adapter.Format, forced bool, stdin io.Reader, jobs int) []source {
	return inputs.Sources(files, formats, forced, stdin, jobs)
}

func oneDialog(srcs []source) (source, error) { return inputs.OneDialog(srcs) }

func claim(path string, isDir bool, formats []adapter.Format, forced bool, sniff **bufio.Reader) (*adapter.Format, []adapter.Input, *adapter.Format, error) {
	return inputs.Claim(path, isDir, formats, forced, sniff)
}

func stdinInput(stdin io.Reader) *input             { return inputs.StdinInput(stdin) }
func readerInput(r io.Reader, name string) *input   { return inputs.ReaderInput(r, name) }
func openInput(file string) (*os.File, error)       { return inputs.OpenFile(file) }
func statFile(what, path string) namedFile          { return inputs.StatFile(what, path) }
func stdinFile(stdin io.Reader) namedFile           { return inputs.StdinFile(stdin) }
func stdoutFile(what string, w io.Writer) namedFile { return inputs.StdoutFile(what, w) }
func refuseOverwrite(outputs, ins []namedFile) error {
	return inputs.RefuseOverwrite(outputs, ins)
}
func dialogNames(files []string) []string              { return inputs.DialogNames(files) }
func refuseCompressed(f *os.File, file string) error   { return convert.RefuseCompressed(f, file) }
func fileOutput(path string, stdout io.Writer) *output { return convert.FileOutput(path, stdout) }
func failCode(code, ours int) int                      { return convert.FailCode(code, ours) }
func modelFromCommand(argv []string) string            { return inputs.ModelFromCommand(argv) }
func modelCommands() string                            { return inputs.ModelCommands() }

const (
	batchTempPrefix = convert.BatchTempPrefix
	dialogSuffix    = inputs.DialogSuffix
)

func sameAbsPath(a, b string) bool { return inputs.SameAbsPath(a, b) }
