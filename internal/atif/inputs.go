package atif

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

// The names Harbor gives the files of a trial: <trial>/agent/trajectory.json
// and <trial>/result.json; a multi-step trial's steps are in
// <trial>/steps/<name>/.
const (
	trajectoryName = "trajectory.json"
	agentDir       = "agent"
	resultName     = "result.json"
	stepsDir       = "steps"
)

// maxDocument bounds one file read whole: a trajectory, a subagent's, a
// continuation, a result.json (real trajectories are up to a few MB).
const maxDocument = 256 << 20

// maxContinuations bounds a chain of continued_trajectory_ref files.
const maxContinuations = 1000

// sniffSize is how much of a file is read to tell whether it is a
// trajectory: its schema_version comes first in every writer seen.
const sniffSize = 4 << 10

// Inputs reads a path given as FILE: a trajectory file, a trial folder
// (<trial>/agent/trajectory.json), or a folder of trials at any depth (a
// Harbor job, a jobs folder): one dialog per trajectory, named after its
// trial, with the trial's continuations, subagent files and result.json.
// A bad entry of a folder is an input that fails when opened.
func Inputs(path string) (inputs []adapter.Input, ok bool, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, false, err
	}
	if !st.IsDir() {
		if !st.Mode().IsRegular() || !isTrajectory(path) {
			return nil, false, nil
		}
		return []adapter.Input{input(path)}, true, nil
	}
	for _, p := range []string{filepath.Join(path, agentDir, trajectoryName), filepath.Join(path, trajectoryName)} {
		if isTrajectory(p) {
			return []adapter.Input{input(p)}, true, nil
		}
	}
	// A bad entry (a dangling symlink, an unreadable folder) is one failed
	// input: the other trials still convert.
	entries, err := sessionfile.FindNamed(filepath.Clean(path), nil, func(name string) bool { return name == trajectoryName },
		func(p string) (bool, error) {
			if filepath.Base(filepath.Dir(p)) != agentDir || stepOfAggregate(p) {
				return false, nil
			}
			return sniff(p)
		})
	if err != nil {
		return nil, false, err
	}
	return sessionfile.Inputs(entries, input)
}

// stepOfAggregate reports whether the trajectory at path is a step of a
// Harbor multi-step trial (<trial>/steps/<name>/agent/trajectory.json)
// whose aggregate, <trial>/agent/trajectory.json, holds its steps again:
// the trial's dialog is the aggregate's, and the step is not converted a
// second time (its turns and tokens would be counted twice).
func stepOfAggregate(path string) bool {
	steps := filepath.Dir(filepath.Dir(filepath.Dir(path)))
	if filepath.Base(steps) != stepsDir {
		return false
	}
	return isTrajectory(filepath.Join(filepath.Dir(steps), agentDir, trajectoryName))
}

// isTrajectory reports whether the file at path starts as an ATIF
// document does.
func isTrajectory(path string) bool {
	ok, _ := sniff(path)
	return ok
}

// sniff reports whether the file at path starts as an ATIF document does,
// or why it could not be read.
func sniff(path string) (bool, error) {
	f, err := openRegular(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, sniffSize)
	n, _ := io.ReadFull(f, head)
	head = bytes.TrimLeft(head[:n], "\ufeff \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return false, nil
	}
	i := bytes.Index(head, []byte(`"schema_version"`))
	return i >= 0 && bytes.Contains(head[i:], []byte(`"ATIF-`)), nil
}

// input is the dialog of the trajectory at path, named after its trial
// folder when it lies where Harbor puts it.
func input(path string) adapter.Input {
	name := path
	if filepath.Base(path) == trajectoryName && filepath.Base(filepath.Dir(path)) == agentDir {
		name = filepath.Dir(filepath.Dir(path))
	}
	return adapter.Input{Name: name, Open: func() (io.ReadCloser, error) { return open(path) }}
}

// open gives the stream the adapter reads for the trajectory at path: the
// trial's result.json and the subagent files the trajectory refers to
// (attachments, first, so the adapter has them when a step refers to
// them), then the trajectory, then its continuations in order.
func open(path string) (io.ReadCloser, error) {
	dir := filepath.Dir(path)
	doc, err := readDocument(path)
	if err != nil {
		return nil, err
	}
	docs := [][]byte{doc}
	seen := map[string]bool{filepath.Base(path): true}
	var out bytes.Buffer
	for cur := doc; len(docs) <= maxContinuations; {
		next := continuation(cur)
		if next == "" || seen[next] {
			break
		}
		seen[next] = true
		p, ok := beside(dir, next)
		if !ok {
			attach(&out, "missing", next, nil)
			break
		}
		raw, err := readDocument(p)
		if errors.Is(err, fs.ErrNotExist) {
			attach(&out, "missing", next, nil)
			break
		}
		if err != nil {
			attachError(&out, next, err)
			break
		}
		docs = append(docs, raw)
		cur = raw
	}
	if filepath.Base(dir) == agentDir {
		if raw, err := readDocument(filepath.Join(filepath.Dir(dir), resultName)); err == nil {
			attach(&out, "result", resultName, raw)
		} else if !errors.Is(err, fs.ErrNotExist) {
			attachError(&out, resultName, err)
		}
	}
	for _, ref := range subagentPaths(docs) {
		p, ok := beside(dir, ref)
		if !ok {
			attach(&out, "missing", ref, nil)
			continue
		}
		raw, err := readDocument(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			attach(&out, "missing", ref, nil)
		case err != nil:
			attachError(&out, ref, err)
		default:
			attach(&out, "subagent", ref, raw)
		}
	}
	for _, d := range docs {
		writeLine(&out, d)
	}
	// Not an adapter.ReadCounter: a trajectory is one line of the stream,
	// read whole before its first step is converted, so the bytes read say
	// nothing of how far the conversion is (a progress near 1 from the
	// start would let the budget's pace spend the file on the first steps).
	return io.NopCloser(&out), nil
}

// beside resolves a file name a trajectory gives, relative to its folder;
// a name that leaves the folder is not followed.
func beside(dir, name string) (string, bool) {
	if name == "" || filepath.IsAbs(name) || !filepath.IsLocal(name) {
		return "", false
	}
	return filepath.Join(dir, name), true
}

// openRegular opens the file at path if it is a regular one. It is
// checked before it is opened (opening a FIFO would wait for a writer) and
// again once open (the path may have been replaced in between).
func openRegular(path string) (*os.File, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s is not a regular file", path)
		}
		return nil, err
	}
	return f, nil
}

// readDocument reads a regular file of at most maxDocument bytes.
func readDocument(path string) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxDocument+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxDocument {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxDocument>>20)
	}
	return raw, nil
}

// continuation is the file a trajectory's run goes on in, if any.
func continuation(doc []byte) string {
	v, ok := jsonraw.Parse(bytes.TrimSpace(doc))
	if !ok {
		return ""
	}
	return v.Get("continued_trajectory_ref").Str()
}

// subagentPaths lists, once each and in order, the files the documents'
// subagent refs name.
func subagentPaths(docs [][]byte) []string {
	var paths []string
	seen := map[string]bool{}
	for _, d := range docs {
		v, ok := jsonraw.Parse(bytes.TrimSpace(d))
		if !ok {
			continue
		}
		for s := v.Get("steps").Elements(); s.Next(); {
			for r := s.Value.Get("observation").Get("results").Elements(); r.Next(); {
				refs := r.Value.Get("subagent_trajectory_ref")
				one := func(ref jsonraw.Value) {
					if p := ref.Get("trajectory_path").Str(); p != "" && !seen[p] {
						seen[p] = true
						paths = append(paths, p)
					}
				}
				if refs.IsObject() {
					one(refs)
				}
				for e := refs.Elements(); e.Next(); {
					one(e.Value)
				}
			}
		}
	}
	return paths
}

// attach writes an attachment record: kind, the path it is about, and the
// document read there (compacted onto one line).
func attach(out *bytes.Buffer, kind, path string, doc []byte) {
	rec := map[string]any{attachmentKey: kind, "path": path}
	key := map[string]string{"result": "result", "subagent": "trajectory"}[kind]
	var compact bytes.Buffer
	if key != "" {
		if err := json.Compact(&compact, doc); err != nil {
			attachError(out, path, fmt.Errorf("not valid JSON"))
			return
		}
		rec[key] = json.RawMessage(compact.Bytes())
	}
	line, _ := json.Marshal(rec)
	out.Write(line)
	out.WriteByte('\n')
}

// attachError says that a file beside the trajectory could not be read.
func attachError(out *bytes.Buffer, path string, err error) {
	line, _ := json.Marshal(map[string]string{attachmentKey: "unreadable", "path": path, "error": err.Error()})
	out.Write(line)
	out.WriteByte('\n')
}

// writeLine writes a document on one line when it is valid JSON; as it
// stands otherwise, for the pipeline to report.
func writeLine(out *bytes.Buffer, doc []byte) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc); err != nil {
		out.Write(doc)
	} else {
		out.Write(compact.Bytes())
	}
	out.WriteByte('\n')
}
