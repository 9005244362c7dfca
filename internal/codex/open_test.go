package codex

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

// openCalls keeps the newest call out of its map: whatever the order of
// starts and ends, with ids reused while open, it answers as a plain map
// does.
func FuzzOpenCalls(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0x80, 0x81, 0x82})
	f.Add([]byte{0, 0, 1, 0x40, 0x80, 0x41, 0xc0, 0x81})
	f.Fuzz(func(t *testing.T, script []byte) { checkOpenCalls(t, script) })
}

func TestOpenCallsAsAMap(t *testing.T) {
	for seed := range 2000 {
		script := make([]byte, 40)
		x := uint32(seed*2654435761 + 1)
		for i := range script {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			script[i] = byte(x)
		}
		checkOpenCalls(t, script)
	}
}

// checkOpenCalls runs script on an openCalls and on a map: each byte is
// an operation (its top two bits: add, find, remove, all) on one of four
// ids (its low bits).
func checkOpenCalls(t *testing.T, script []byte) {
	t.Helper()
	var o openCalls
	m := map[string]*openCall{}
	for i, op := range script {
		id := fmt.Sprint("item_", op&3)
		switch op >> 6 {
		case 0:
			c := &openCall{id: id, order: i}
			o.add(c)
			m[id] = c
		case 1:
			if got, want := find(&o, id), m[id]; got != want {
				t.Fatalf("%x: find %s at %d: got %v, want %v", script, id, i, got, want)
			}
			if got, want := find(&o, []byte(id)), m[id]; got != want {
				t.Fatalf("%x: find []byte %s at %d: got %v, want %v", script, id, i, got, want)
			}
		case 2:
			if c := m[id]; c != nil { // the adapter ends only open calls
				o.remove(c)
				delete(m, id)
			}
		case 3:
			want := slices.SortedFunc(maps.Values(m), func(x, y *openCall) int { return x.order - y.order })
			if got := o.all(); !slices.Equal(got, want) {
				t.Fatalf("%x: all at %d: got %v, want %v", script, i, got, want)
			}
		}
		if o.len() != len(m) {
			t.Fatalf("%x: %d open at %d, want %d", script, o.len(), i, len(m))
		}
	}
}
