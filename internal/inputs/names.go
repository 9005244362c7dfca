package inputs

import (
	"path/filepath"
	"strconv"
	"strings"
)

// DialogNamesUnder names each input's dialog from its path below base
// (--base): its folders below base and its stem, joined by "_", plus
// .dialog.jsonl (base/a1/transcript.jsonl → a1_transcript.dialog.jsonl).
// A name depends on its own path alone, not on the other inputs (as
// DialogNames' do), so that shards of one file list, each a batch of its
// own, name an input the same whichever shard holds it. Only inputs whose
// names still clash (one file given twice; t.jsonl beside t.jsonl.gz) get
// "-2", "-3", … in argument order. It returns the first input not below
// base, if any, and no names then.
func DialogNamesUnder(base string, files []string) (names []string, outside string) {
	absBase, err := filepath.Abs(base)
	if err != nil {
		absBase = filepath.Clean(base)
	}
	names = make([]string, len(files))
	taken := make(map[string]bool, len(files))
	for i, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			abs = filepath.Clean(f)
		}
		rel, err := filepath.Rel(absBase, abs)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, f
		}
		parts := strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/")
		if parts[0] == "." {
			parts = nil
		}
		n := strings.Join(append(parts, Stem(rel)), "_")
		cand := n
		for k := 2; taken[strings.ToLower(cand)]; k++ {
			cand = n + "-" + strconv.Itoa(k)
		}
		taken[strings.ToLower(cand)] = true
		names[i] = cand + DialogSuffix
	}
	return names, ""
}

// DialogSuffix ends every dialog name --out-dir gives.
const DialogSuffix = ".dialog.jsonl"

// Stem is a file's base name without .gz or .zst and then one of .jsonl,
// .ndjson or .json.
func Stem(file string) string {
	s := filepath.Base(file)
	if t, ok := strings.CutSuffix(s, ".gz"); ok {
		s = t
	} else {
		s = strings.TrimSuffix(s, ".zst")
	}
	for _, ext := range []string{".jsonl", ".ndjson", ".json"} {
		if t, ok := strings.CutSuffix(s, ext); ok {
			s = t
			break
		}
	}
	if s == "" || s == "." || s == string(filepath.Separator) {
		s = "input"
	}
	return s
}

// DialogNames gives each input its output name: stem + ".dialog.jsonl".
// When names clash, each clashing input is told apart from the others:
// from inputs in other folders by prefixing as many of its parent folders
// as it takes, joined by "_" (runs/a1/transcript.jsonl →
// a1_transcript.dialog.jsonl); from inputs in the same folder by keeping
// its whole file name (t.jsonl.gz → t.jsonl.gz.dialog.jsonl). Names that
// still clash (one file given twice) get "-2", "-3", … in argument order.
// Names compare case-insensitively, for file systems that do. The result
// depends only on the arguments (and, for relative ones, the working
// directory), never on --jobs or scheduling.
func DialogNames(files []string) []string {
	type input struct {
		dir      string   // the absolute parent folder
		dirs     []string // its parts, nearest last
		stem     string
		base     string
		depth    int  // how many parent folders the name carries
		wholeExt bool // the name keeps the file's extensions
	}
	ins := make([]input, len(files))
	for i, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			abs = filepath.Clean(f)
		}
		in := input{dir: filepath.Dir(abs), stem: Stem(f), base: filepath.Base(abs)}
		for _, d := range strings.Split(filepath.ToSlash(in.dir), "/") {
			if d != "" && d != "." && !strings.HasSuffix(d, ":") { // skip the root and a Windows volume
				in.dirs = append(in.dirs, d)
			}
		}
		ins[i] = in
	}
	name := func(in input) string {
		parts := append([]string{}, in.dirs[len(in.dirs)-in.depth:]...)
		if in.wholeExt {
			return strings.Join(append(parts, in.base), "_")
		}
		return strings.Join(append(parts, in.stem), "_")
	}
	names := make([]string, len(ins))
	for {
		groups := make(map[string][]int)
		for i, in := range ins {
			names[i] = name(in)
			k := strings.ToLower(names[i])
			groups[k] = append(groups[k], i)
		}
		changed := false
		for _, g := range groups {
			for _, i := range g {
				for _, j := range g {
					a, b := &ins[i], ins[j]
					switch {
					case a.dir != b.dir && a.depth < len(a.dirs):
						a.depth++
					case a.dir == b.dir && a.base != b.base && !a.wholeExt:
						a.wholeExt = true
					default:
						continue
					}
					changed = true
					break
				}
			}
		}
		if !changed {
			break
		}
	}
	taken := make(map[string]bool, len(names))
	for i, n := range names {
		cand := n
		for k := 2; taken[strings.ToLower(cand)]; k++ {
			cand = n + "-" + strconv.Itoa(k)
		}
		taken[strings.ToLower(cand)] = true
		names[i] = cand + DialogSuffix
	}
	return names
}
