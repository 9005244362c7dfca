package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
)

// namedFile is a file a command reads or writes, as its messages name it.
type namedFile struct {
	what string      // "the dialog", "the input", "--prompt-file", "standard input"
	path string      // as given; empty for standard input
	info os.FileInfo // nil when it does not exist (yet)
}

func (f namedFile) String() string {
	if f.path == "" {
		return f.what
	}
	return f.what + " " + cli.QuoteName(f.path)
}

// statFile names path and finds what it is, through symlinks.
func statFile(what, path string) namedFile {
	f := namedFile{what: what, path: path}
	if path != "" && path != "-" {
		f.info, _ = os.Stat(path)
	}
	return f
}

// stdinFile names standard input when it is a file of its own (a
// redirection from a file can be the same file as an output).
func stdinFile(stdin io.Reader) namedFile {
	f := namedFile{what: "standard input"}
	if sf, ok := stdin.(*os.File); ok {
		f.info, _ = sf.Stat()
	}
	return f
}

// sameAbsPath reports whether two paths name the same place, for files
// that may not exist yet.
func sameAbsPath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// stdoutFile names standard output as an output, when it is a file of its
// own (">> t.jsonl" appends to what may be an input).
func stdoutFile(what string, stdout io.Writer) namedFile {
	f := namedFile{what: what, path: "standard output"}
	if sf, ok := stdout.(*os.File); ok {
		f.info, _ = sf.Stat()
	}
	return f
}

// refuseOverwrite returns a refusal when an output would be written over an
// input: the same file by device and inode, so also through symlinks, hard
// links and a symlinked folder. Only regular files count: writing to a
// device or a pipe destroys nothing, and an output that does not exist yet
// cannot be an input.
func refuseOverwrite(outputs, inputs []namedFile) error {
	in := newFileSet(inputs)
	for _, out := range outputs {
		if out.info == nil || !out.info.Mode().IsRegular() {
			continue
		}
		if f, ok := in.find(out.info); ok {
			return cli.Refusef("refusing to write %s to %s: it is the same file as %s", out.what, out.path, f)
		}
	}
	return nil
}

// fileSet finds files by identity. Files are grouped by size and time of
// change, which the same file shares, so a batch of thousands of inputs is
// not compared pairwise.
type fileSet map[fileShape][]namedFile

type fileShape struct{ size, mod int64 }

func shapeOf(info os.FileInfo) fileShape { return fileShape{info.Size(), info.ModTime().UnixNano()} }

func newFileSet(files []namedFile) fileSet {
	s := make(fileSet)
	for _, f := range files {
		if f.info != nil {
			k := shapeOf(f.info)
			s[k] = append(s[k], f)
		}
	}
	return s
}

func (s fileSet) find(info os.FileInfo) (namedFile, bool) {
	for _, f := range s[shapeOf(info)] {
		if os.SameFile(f.info, info) {
			return f, true
		}
	}
	return namedFile{}, false
}

// refuseBatchOverwrite refuses a batch any of whose dialogs (outs, one per
// source) would be written over one of its inputs or reads.
func refuseBatchOverwrite(outs []string, srcs []source, reads []namedFile) error {
	inputs := append([]namedFile{}, reads...)
	for _, s := range srcs {
		for _, in := range s.inputs {
			f := in.file()
			if f.info == nil && f.path != "" {
				f = statFile(f.what, f.path)
			}
			inputs = append(inputs, f)
		}
	}
	outputs := make([]namedFile, len(outs))
	for i, o := range outs {
		outputs[i] = statFile("the dialog", o)
	}
	if err := refuseOverwrite(outputs, inputs); err != nil {
		return err
	}
	for i, s := range srcs {
		if err := refuseFormatFile(outputs[i], s.format); err != nil {
			return err
		}
	}
	return nil
}

// refuseFormatFile refuses an output that is itself a file of the format
// being read from its files (f, nil for none), say a subagent's file
// beside a session: its Inputs may read it, and no dialog is worth a
// session file.
func refuseFormatFile(out namedFile, f *adapter.Format) error {
	if f == nil || f.Inputs == nil || out.info == nil || !out.info.Mode().IsRegular() {
		return nil
	}
	if _, ok, _ := f.Inputs(out.path); ok {
		return cli.Refusef("refusing to write %s to %s: it is %s, which this conversion may read", out.what, out.path, f.Title)
	}
	return nil
}
