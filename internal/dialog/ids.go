package dialog

import (
	"strconv"
	"strings"
)

// idSet hands out tool ids that no other call of the dialog has, in memory
// that does not grow with the number of calls: the first exactIDs ids are
// kept exactly; past them, a Bloom filter of fixed size holds them all. A
// Bloom filter never forgets an id, so ids stay unique; it may take a new
// id for a used one (a false positive), which only renames that call —
// about one call in 10,000 after 300,000 calls.
type idSet struct {
	exact map[string]struct{}
	bloom []uint64 // nil until exact is full
	// renamed counts the renames of each source id, so that the next
	// rename starts past them (Codex restarts item_0 in every process: a
	// file of many processes would otherwise try every earlier suffix).
	// It holds only ids that were renamed, and is forgotten when it grows
	// past exactIDs. A count is counted up where it stands: storing it
	// again was a second map operation for every call Codex renames.
	renamed map[string]*int
	// recorded is set once the renames are in exact or bloom too. Until
	// then renamed is their only record: while no source id holds '#' and
	// renamed was never forgotten, src#k is in use exactly when renamed
	// counts it, and a rename needs neither a lookup nor an entry in the
	// filter (each was a cache miss: 3% of converting a long Codex file,
	// where most calls are renamed).
	recorded bool
	next     []byte // the renamed id being tried, src#k
}

const (
	exactIDs    = 4096
	bloomWords  = 1 << 17 // 1 MiB of bits
	bloomHashes = 5
	blockWords  = 8 // a cache line: 512 bits, 9 bits to place one
)

// unique returns the id of a new call that its source calls src: src
// itself (no suffix) if no call has used it, else src#k with a suffix k =
// 2, 3, … that none has, counting on from the last rename of src; an empty
// id is "tool". The renamed id is not made a string: the filter needs none,
// and the writer writes it from src and the suffix.
func (s *idSet) unique(src string) (base string, suffix idSuffix) {
	if src == "" {
		src = "tool"
	}
	if !s.recorded && strings.IndexByte(src, '#') >= 0 {
		s.record() // src may be a rename counted only in renamed
	}
	// A source id renamed before is in use: the set never forgets. Codex
	// reuses item_N in every process, so this spares most calls a lookup
	// of the filter.
	count := s.renamed[src]
	taken := count != nil
	if !taken {
		taken = has(s, src)
	}
	if !taken {
		add(s, src)
		return src, idSuffix{}
	}
	for taken {
		if s.renamed == nil || len(s.renamed) > exactIDs {
			if s.renamed != nil && !s.recorded {
				s.record() // renamed is forgotten: its renames go in the set
			}
			s.renamed = make(map[string]*int)
			count = nil
		}
		if count == nil {
			count = new(int)
			s.renamed[src] = count
		}
		*count++
		s.next = appendSuffix(append(s.next[:0], src...), *count+1)
		taken = s.recorded && has(s, s.next)
	}
	if s.recorded {
		add(s, s.next)
	}
	suffix.n = uint8(copy(suffix.text[:], s.next[len(src):]))
	return src, suffix
}

// record adds the renames counted in renamed to the set, and every rename
// from now on: they can no longer be told from renamed alone.
func (s *idSet) record() {
	s.recorded = true
	var id []byte
	for src, n := range s.renamed {
		for k := 2; k <= *n+1; k++ {
			id = appendSuffix(append(id[:0], src...), k)
			add(s, id)
		}
	}
}

// appendSuffix appends the suffix k of a renamed id.
func appendSuffix(b []byte, k int) []byte {
	return strconv.AppendInt(append(b, '#'), int64(k), 10)
}

// idSuffix is the suffix of a renamed id as written, "#k", held in place:
// a call keeps its own, and the entries that start and end it copy it
// (formatting k for each was 1% of converting short Codex lines). The zero
// idSuffix is none.
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

// has reports whether some call has used id, held as a string or as bytes
// (a candidate built in idSet.next).
func has[ID string | []byte](s *idSet, id ID) bool {
	if s.bloom == nil {
		_, ok := s.exact[string(id)]
		return ok
	}
	block, bits := bloomBits(id)
	for i := range bloomHashes {
		bit := bits >> (9 * i) & (blockWords*64 - 1)
		if s.bloom[block+bit/64]&(1<<(bit%64)) == 0 {
			return false
		}
	}
	return true
}

// add records id as used.
func add[ID string | []byte](s *idSet, id ID) {
	if s.bloom == nil {
		if s.exact == nil {
			s.exact = make(map[string]struct{})
		}
		if len(s.exact) < exactIDs {
			s.exact[string(id)] = struct{}{}
			return
		}
		s.bloom = make([]uint64, bloomWords)
		for old := range s.exact {
			setBits(s, old)
		}
		s.exact = nil
	}
	setBits(s, id)
}

func setBits[ID string | []byte](s *idSet, id ID) {
	block, bits := bloomBits(id)
	for i := range bloomHashes {
		bit := bits >> (9 * i) & (blockWords*64 - 1)
		s.bloom[block+bit/64] |= 1 << (bit % 64)
	}
}

// bloomBits picks an id's block of the filter, and in the rest of the hash
// the bloomHashes 9-bit positions of its bits in that block. All of an id's
// bits sit in one cache line, so a lookup costs one cache miss, not five:
// ids were 8% of converting a long Codex file. The false positive rate is
// that of a plain filter of this size to within a few per cent.
//
// The hash is FNV-1a (64 bits), fixed, not seeded: the same input must
// give the same dialog on every run.
func bloomBits[ID string | []byte](id ID) (block, bits uint64) {
	const (
		offset64 = 14695981039346656037
		prime64  = 1099511628211
	)
	x := uint64(offset64)
	for i := 0; i < len(id); i++ {
		x ^= uint64(id[i])
		x *= prime64
	}
	return (x % (bloomWords / blockWords)) * blockWords, x / (bloomWords / blockWords)
}
