package inputs

import (
	"io"
	"os"
	"path/filepath"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
)

// NamedFile is a file a command reads or writes, as its messages name it.
type NamedFile struct {
	What string      // "the dialog", "the input", "--prompt-file", "standard input"
	Path string      // as given; empty for standard input
	Info os.FileInfo // nil when it does not exist (yet)
}

func (f NamedFile) String() string {
	if f.Path == "" {
		return f.What
	}
	return f.What + " " + cli.QuoteName(f.Path)
}

// StatFile names path and finds what it is, through symlinks.
func StatFile(what, path string) NamedFile {
	f := NamedFile{What: what, Path: path}
	if path != "" && path != "-" {
		f.Info, _ = os.Stat(path)
	}
	return f
}

// StdinFile names standard input when it is a file of its own (a
// redirection from a file can be the same file as an output).
func StdinFile(stdin io.Reader) NamedFile {
	f := NamedFile{What: "standard input"}
	if sf, ok := stdin.(*os.File); ok {
		f.Info, _ = sf.Stat()
	}
	return f
}

// SameAbsPath reports whether two paths name the same place, for files
// that may not exist yet.
func SameAbsPath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// StdoutFile names standard output as an output, when it is a file of its
// own (">> t.jsonl" appends to what may be an input).
func StdoutFile(what string, stdout io.Writer) NamedFile {
	f := NamedFile{What: what, Path: "standard output"}
	if sf, ok := stdout.(*os.File); ok {
		f.Info, _ = sf.Stat()
	}
	return f
}

// RefuseOverwrite returns a refusal when an output would be written over an
// input: the same file by device and inode, so also through symlinks, hard
// links and a symlinked folder. Only regular files count: writing to a
// device or a pipe destroys nothing, and an output that does not exist yet
// cannot be an input.
func RefuseOverwrite(outputs, inputs []NamedFile) error {
	in := newFileSet(inputs)
	for _, out := range outputs {
		if out.Info == nil || !out.Info.Mode().IsRegular() {
			continue
		}
		if f, ok := in.find(out.Info); ok {
			return cli.Refusef("refusing to write %s to %s: it is the same file as %s", out.What, out.Path, f)
		}
	}
	return nil
}

// fileSet finds files by identity. Files are grouped by size and time of
// change, which the same file shares, so a batch of thousands of inputs is
// not compared pairwise.
type fileSet map[fileShape][]NamedFile

type fileShape struct{ size, mod int64 }

func shapeOf(info os.FileInfo) fileShape { return fileShape{info.Size(), info.ModTime().UnixNano()} }

func newFileSet(files []NamedFile) fileSet {
	s := make(fileSet)
	for _, f := range files {
		if f.Info != nil {
			k := shapeOf(f.Info)
			s[k] = append(s[k], f)
		}
	}
	return s
}

func (s fileSet) find(info os.FileInfo) (NamedFile, bool) {
	for _, f := range s[shapeOf(info)] {
		if os.SameFile(f.Info, info) {
			return f, true
		}
	}
	return NamedFile{}, false
}

// RefuseBatchOverwrite refuses a batch any of whose dialogs (outs, one per
// source) would be written over one of its inputs or reads.
func RefuseBatchOverwrite(outs []string, srcs []Source, reads []NamedFile) error {
	inputs := append([]NamedFile{}, reads...)
	for _, s := range srcs {
		for _, in := range s.Inputs {
			f := in.File()
			if f.Info == nil && f.Path != "" {
				f = StatFile(f.What, f.Path)
			}
			inputs = append(inputs, f)
		}
	}
	outputs := make([]NamedFile, len(outs))
	for i, o := range outs {
		outputs[i] = StatFile("the dialog", o)
	}
	if err := RefuseOverwrite(outputs, inputs); err != nil {
		return err
	}
	for i, s := range srcs {
		if err := RefuseFormatFile(outputs[i], s.Format); err != nil {
			return err
		}
	}
	return nil
}

// RefuseFormatFile refuses an output that is itself a file of the format
// being read from its files (f, nil for none), say a subagent's file
// beside a session: its Inputs may read it, and no dialog is worth a
// session file.
func RefuseFormatFile(out NamedFile, f *adapter.Format) error {
	if f == nil || f.Inputs == nil || out.Info == nil || !out.Info.Mode().IsRegular() {
		return nil
	}
	if _, ok, _ := f.Inputs(out.Path); ok {
		return cli.Refusef("refusing to write %s to %s: it is %s, which this conversion may read", out.What, out.Path, f.Title)
	}
	return nil
}
