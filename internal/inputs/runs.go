package inputs

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/registry"
)

// Run is one run stats sums up: a FILE read as it is (a dialog, or a
// transcript converted), or a session a folder holds.
type Run struct {
	File   string
	Source *Source // a session a folder holds; nil: File
}

// RunsOf lists the runs a FILE holds (stats): itself, or for a folder the
// sessions its format reads, else every transcript or dialog in it.
func RunsOf(file string, stdin io.Reader) ([]Run, error) {
	st, err := os.Stat(file)
	if file == "-" || err != nil || !st.IsDir() {
		return []Run{{File: file}}, nil
	}
	srcs := Sources([]string{file}, registry.All(), false, stdin, 1)
	if len(srcs) > 0 && srcs[0].Format != nil {
		var runs []Run
		for i := range srcs {
			runs = append(runs, Run{Source: &srcs[i]})
		}
		return runs, nil
	}
	var runs []Run
	err = filepath.WalkDir(file, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == file {
				return err
			}
			runs = append(runs, Run{File: p}) // its row says why it could not be read
			return nil
		}
		if !d.IsDir() && isRunFile(d.Name()) {
			runs = append(runs, Run{File: p})
		}
		return nil
	})
	if err == nil && len(runs) == 0 {
		err = fmt.Errorf("%s holds no dialog, transcript or session", file)
	}
	return runs, err
}

// isRunFile reports whether a file in a folder is read as a run: JSON
// lines, plain or compressed.
func isRunFile(name string) bool {
	for _, z := range []string{"", ".gz", ".zst"} {
		for _, ext := range []string{".jsonl", ".ndjson"} {
			if strings.HasSuffix(name, ext+z) {
				return true
			}
		}
	}
	return false
}
