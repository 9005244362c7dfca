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
