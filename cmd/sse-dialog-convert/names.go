package main

import (
	"path/filepath"
	"strconv"
	"strings"
)

// dialogNamesUnder names each input's dialog from its path below base
// (--base): its folders below base and its stem, joined by "_", plus
// .dialog.jsonl (base/a1/transcript.jsonl → a1_transcript.dialog.jsonl).
// A name depends on its own path alone, not on the other inputs (as
// dialogNames' do), so that shards of one file list, each a batch of its
// own, name an input the same whichever shard holds it. Only inputs whose
// names still clash (one file given twice; t.jsonl beside t.jsonl.gz) get
// "-2", "-3", … in argument order. It returns the first input not below
// base, if any, and no names then.
func dialogNamesUnder(base string, files []string) (names []string, outside string) {
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
		n := strings.Join(append(parts, stem(rel)), "_")
		cand := n
		for k := 2; taken[strings.ToLower(cand)]; k++ {
			cand = n + "-" + strconv.Itoa(k)
		}
		taken[strings.ToLower(cand)] = true
		names[i] = cand + dialogSuffix
	}
	return names, ""
}
