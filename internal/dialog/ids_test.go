package dialog

import (
	"hash/fnv"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// idOf is the id unique gives src, as written.
func idOf(s *idSet, src string) string { return idString(s.unique(src)) }

func TestIDSetRenamesReuse(t *testing.T) {
	var s idSet
	assert.Equal(t, "item_0", idOf(&s, "item_0"))
	assert.Equal(t, "item_0#2", idOf(&s, "item_0"))
	assert.Equal(t, "item_0#3", idOf(&s, "item_0"))
	assert.Equal(t, "x#2", idOf(&s, "x#2"), "a source id that looks renamed is kept")
	assert.Equal(t, "x", idOf(&s, "x"))
	assert.Equal(t, "x#3", idOf(&s, "x"), "the suffix skips ids in use")
	assert.Equal(t, "tool", idOf(&s, ""))
	assert.Equal(t, "tool#2", idOf(&s, ""))
}

// Past the exact ids the set stays exact about uniqueness: every id handed
// out is new, and ids never seen keep their name but for rare false
// positives.
func TestIDSetManyIDs(t *testing.T) {
	var s idSet
	seen := make(map[string]bool)
	renamed := 0
	const n = 300000
	for i := range n {
		src := "toolu_" + strconv.Itoa(i)
		if i%1000 == 0 {
			src = "item_0" // reused over and over, across the switch to the filter
		}
		id := idOf(&s, src)
		require.False(t, seen[id], "id %s handed out twice", id)
		seen[id] = true
		if src != "item_0" && id != src {
			renamed++
		}
	}
	require.NotNil(t, s.bloom, "the exact set gave way to the filter")
	assert.Less(t, renamed, n/1000, "false positives rename few calls")
	assert.Len(t, s.bloom, bloomWords, "the filter does not grow")
}

// plainUnique is unique as a plain loop: try src, then src#2, src#3, …
// from the last rename of src. unique skips the first try for an id it
// renamed before; the ids must come out the same.
func plainUnique(s *idSet, src string) string {
	if src == "" {
		src = "tool"
	}
	id := src
	for has(s, id) {
		if s.renamed == nil || len(s.renamed) > exactIDs {
			s.renamed = make(map[string]*int)
		}
		if s.renamed[src] == nil {
			s.renamed[src] = new(int)
		}
		*s.renamed[src]++
		id = src + "#" + strconv.Itoa(*s.renamed[src]+1)
	}
	add(s, id)
	return id
}

// Codex's reuse of item_N in every process, many distinct renamed ids
// (the renames are forgotten past exactIDs of them) and the switch to the
// filter, all in one run.
func TestIDSetSameAsPlainLoop(t *testing.T) {
	var got, want idSet
	check := func(src string) {
		t.Helper()
		require.Equal(t, plainUnique(&want, src), idOf(&got, src), "source id %q", src)
	}
	for proc := range 3000 {
		for i := range 12 {
			check("item_" + strconv.Itoa(i))
		}
		check("call_" + strconv.Itoa(proc%5000))
		check("toolu_" + strconv.Itoa(proc))
		check("")
	}
	require.NotNil(t, got.bloom)
	for i := range 6000 { // past exactIDs renamed sources: the renames are forgotten
		check("call_" + strconv.Itoa(i))
		check("call_" + strconv.Itoa(i))
		check("item_3") // renamed before, when the renames are forgotten
	}
}

func TestBloomBitsIsFNV1a(t *testing.T) {
	for _, id := range []string{"", "item_0", "toolu_01ABCdef#17", "ünï"} {
		h := fnv.New64a()
		h.Write([]byte(id))
		x := h.Sum64()
		block, bits := bloomBits(id)
		assert.Equal(t, (x%(bloomWords/blockWords))*blockWords, block, id)
		assert.Equal(t, x/(bloomWords/blockWords), bits, id)
		bb, bbits := bloomBits([]byte(id))
		assert.Equal(t, block, bb, id)
		assert.Equal(t, bits, bbits, id)
	}
}

// TestIDSetRenamesCountedOnly: renames are counted, not recorded in the
// set, until a source id with '#' comes; then that id is told from the
// renames handed out before it all the same.
func TestIDSetRenamesCountedOnly(t *testing.T) {
	var s idSet
	for range 400 {
		for i := range 12 {
			idOf(&s, "item_"+strconv.Itoa(i))
		}
	}
	assert.False(t, s.recorded)
	assert.Len(t, s.exact, 12, "the renames are counted, not recorded")
	assert.Equal(t, "item_3#5#2", idOf(&s, "item_3#5"), "a source id that is a rename handed out")
	assert.True(t, s.recorded)
	assert.Equal(t, "item_3#401", idOf(&s, "item_3"))
	assert.Equal(t, "item_3#402", idOf(&s, "item_3#402"), "not handed out yet: kept")
	assert.Equal(t, "item_3#403", idOf(&s, "item_3"), "and skipped by the next rename")
}

// FuzzIDSet: for any run of source ids (a small alphabet, with '#' and
// empty ids), the ids handed out are all different, and the same as the
// plain loop's over a set that records every id.
func FuzzIDSet(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 5, 0, 2, 2, 6, 0})
	f.Add([]byte{3, 3, 3, 7, 3, 4, 4, 8})
	f.Fuzz(func(t *testing.T, picks []byte) {
		sources := []string{"a", "b", "", "item_0", "a#2", "a#3", "tool#2", "item_0#2", "a#2#2"}
		var got, want idSet
		seen := make(map[string]bool)
		for _, p := range picks {
			src := sources[int(p)%len(sources)]
			id := idOf(&got, src)
			require.Equal(t, plainUnique(&want, src), id, "source id %q", src)
			require.False(t, seen[id], "id %q handed out twice", id)
			seen[id] = true
		}
	})
}
