package dialog

import (
	"strconv"
	"strings"
)

// idSet hands out tool ids that no other call of the dialog has: a call
// keeps its source id src if no call has used it, else it is renamed
// src#k, with the least k ≥ 2 that no call has used. An empty id is
// "tool". The set is exact.
//
// Each id in used is in use, and so is id#k for 2 ≤ k ≤ used[id]: every
// suffix up to the highest handed out is in use, as a rename or as a
// source id kept, so a rename counts on from there, and renames need not
// be kept one by one (Codex restarts item_0 in every process: most calls
// of a long Codex file are renamed).
type idSet struct {
	used map[string]int // id in use: the highest suffix handed out for it, 1 for none
	next []byte         // the renamed id being tried, src#k
}

// unique returns the id of a new call that its source calls src, as src
// and the suffix the writer writes after it (none if src is kept).
func (s *idSet) unique(src string) (base string, suffix idSuffix) {
	if src == "" {
		src = "tool"
	}
	if s.used == nil {
		s.used = make(map[string]int)
	}
	high, inUse := s.used[src]
	if !inUse && !s.renamed(src) {
		s.used[src] = 1
		return src, idSuffix{}
	}
	// Past the highest suffix of src, src#k is in use only as a source id
	// kept as it is.
	k := max(high, 1)
	for {
		k++
		s.next = appendSuffix(append(s.next[:0], src...), k)
		if _, inUse := s.used[string(s.next)]; !inUse {
			break
		}
	}
	s.used[src] = k
	suffix.n = uint8(copy(suffix.text[:], s.next[len(src):]))
	return src, suffix
}

// renamed reports whether id is a rename handed out: base#k, with k no
// higher than the highest suffix of base.
func (s *idSet) renamed(id string) bool {
	i := strings.LastIndexByte(id, '#')
	if i < 0 {
		return false
	}
	k, ok := suffixNumber(id[i+1:])
	return ok && k <= s.used[id[:i]]
}

// suffixNumber is the k of a rename's suffix #k as appendSuffix writes
// it: 2 or more, in decimal digits with no leading zero. Eighteen digits
// are more than any count of calls.
func suffixNumber(digits string) (int, bool) {
	if digits == "" || len(digits) > 18 || digits[0] == '0' || digits == "1" {
		return 0, false
	}
	k := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		k = k*10 + int(c-'0')
	}
	return k, true
}

// appendSuffix appends the suffix k of a renamed id.
func appendSuffix(b []byte, k int) []byte {
	return strconv.AppendInt(append(b, '#'), int64(k), 10)
}

// idSuffix is the suffix of a renamed id as written, "#k", held in place:
// a call keeps its own, and the entries that start and end it copy it
// rather than formatting k again. The zero idSuffix is none.
type idSuffix struct {
	text [20]byte // '#' and up to 19 digits
	n    uint8
}

func (x *idSuffix) bytes() []byte { return x.text[:x.n] }

// idString is the id unique gave, as a string.
func idString(base string, suffix idSuffix) string {
	if suffix.n == 0 {
		return base
	}
	return base + string(suffix.bytes())
}
