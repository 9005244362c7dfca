package dialog

import (
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

// plainIDs is the rule unique keeps, as a plain loop over every id handed
// out: src if free, else src#2, src#3, … the first that is free.
type plainIDs map[string]bool

func (p plainIDs) unique(src string) string {
	if src == "" {
		src = "tool"
	}
	id := src
	for k := 2; p[id]; k++ {
		id = src + "#" + strconv.Itoa(k)
	}
	p[id] = true
	return id
}

// Many distinct ids are all kept as they are: the set is exact, so no new
// id is ever taken for a used one.
func TestIDSetManyIDsKeepTheirNames(t *testing.T) {
	var s idSet
	for i := range 300_000 {
		src := "toolu_" + strconv.Itoa(i)
		require.Equal(t, src, idOf(&s, src))
	}
	assert.Equal(t, "toolu_7#2", idOf(&s, "toolu_7"))
}

// Codex's reuse of item_N in every process, source ids that look like
// renames handed out or yet to come, and ids renamed in turn.
func TestIDSetSameAsPlainLoop(t *testing.T) {
	var got idSet
	want := plainIDs{}
	check := func(src string) {
		t.Helper()
		require.Equal(t, want.unique(src), idOf(&got, src), "source id %q", src)
	}
	for proc := range 300 {
		for i := range 12 {
			check("item_" + strconv.Itoa(i))
		}
		check("call_" + strconv.Itoa(proc%50))
		check("toolu_" + strconv.Itoa(proc))
		check("")
		check("item_3#" + strconv.Itoa(proc+2)) // handed out already, then yet to come
		check("item_4#" + strconv.Itoa(400-proc))
	}
	for _, src := range []string{"item_3#2", "item_3#2#2", "item_3#2", "item_5#02", "item_5#+3", "item_5#1",
		"item_5#", "#", "#2", "", "tool#2", "tool#3", "item_5#99999999999999999999", "item_5"} {
		check(src)
	}
}

// A source id that is a rename handed out is renamed in turn; one that is
// a rename not handed out yet is kept, and the renames skip it; a suffix
// that is not a number as a rename writes it (leading zero, sign, 1) is no
// rename.
func TestIDSetSourceIDsThatLookRenamed(t *testing.T) {
	var s idSet
	for range 400 {
		idOf(&s, "item_3")
	}
	assert.Equal(t, "item_3#5#2", idOf(&s, "item_3#5"), "a rename handed out")
	assert.Equal(t, "item_3#402", idOf(&s, "item_3#402"), "not handed out yet: kept")
	assert.Equal(t, "item_3#401", idOf(&s, "item_3"))
	assert.Equal(t, "item_3#403", idOf(&s, "item_3"), "the renames skip a kept source id")
	for _, src := range []string{"item_3#02", "item_3#+4", "item_3#1", "item_3#", "item_3#4x"} {
		assert.Equal(t, src, idOf(&s, src))
	}
}

// FuzzIDSet: for any run of source ids (a small alphabet, with '#' and
// empty ids), the ids handed out are all different, and the plain loop's.
func FuzzIDSet(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 5, 0, 2, 2, 6, 0})
	f.Add([]byte{3, 3, 3, 7, 3, 4, 4, 8})
	f.Add([]byte{0, 0, 0, 9, 0, 10, 0, 11, 0, 4, 0, 5})
	f.Fuzz(func(t *testing.T, picks []byte) {
		sources := []string{"a", "b", "", "item_0", "a#2", "a#3", "tool#2", "item_0#2", "a#2#2", "a#4", "a#04", "a#1"}
		var got idSet
		want := plainIDs{}
		seen := make(map[string]bool)
		for _, p := range picks {
			src := sources[int(p)%len(sources)]
			id := idOf(&got, src)
			require.Equal(t, want.unique(src), id, "source id %q", src)
			require.False(t, seen[id], "id %q handed out twice", id)
			seen[id] = true
		}
	})
}
