package codex

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// FuzzOpenSet: whatever the sequence of starts (with ids reused while
// open) and ends, and however many calls are open at once, openSet holds
// what a map by id would.
func FuzzOpenSet(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0x81, 0x82, 4, 4, 0x84, 0x80})
	many := make([]byte, 0, 64)
	for i := range 20 {
		many = append(many, byte(i))
	}
	for i := range 20 {
		many = append(many, 0x80|byte(i))
	}
	f.Add(many)
	f.Fuzz(func(t *testing.T, ops []byte) {
		checkOpenSet(t, ops)
	})
}

// TestOpenSetAsMap runs FuzzOpenSet's check on sequences that cross
// maxScan both ways, a few times over.
func TestOpenSetAsMap(t *testing.T) {
	x := uint32(7)
	for range 200 {
		ops := make([]byte, 100)
		for i := range ops {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			ops[i] = byte(x) & 0x9f // ids 0–31, started or ended
		}
		checkOpenSet(t, ops)
	}
}

// checkOpenSet applies ops to an openSet and to a map: an op below 0x80
// starts a call with id op&0x7f (replacing an open one), any other ends
// the call with id op&0x7f.
func checkOpenSet(t *testing.T, ops []byte) {
	t.Helper()
	var s openSet
	m := map[string]*openCall{}
	ids := make([]string, 0x80)
	for i := range ids {
		ids[i] = fmt.Sprint("item_", i)
	}
	for n, op := range ops {
		id := ids[op&0x7f]
		if op < 0x80 {
			c := &openCall{id: id, order: n}
			s.put(c)
			m[id] = c
		} else {
			s.remove(id)
			delete(m, id)
		}
		assert.Equal(t, len(m), s.len())
		for _, id := range ids {
			if got, gotBytes := openGet(&s, id), openGet(&s, []byte(id)); got != m[id] || gotBytes != m[id] {
				t.Fatalf("after %v: %s is %p and %p, want %p", ops[:n+1], id, got, gotBytes, m[id])
			}
		}
		all := s.appendAll([]*openCall{})
		want := make([]*openCall, 0, len(m))
		for _, c := range m {
			want = append(want, c)
		}
		byOrder := func(x, y *openCall) int { return x.order - y.order }
		slices.SortFunc(all, byOrder)
		slices.SortFunc(want, byOrder)
		assert.Equal(t, want, all)
	}
}
