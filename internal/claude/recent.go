package claude

// recent is a map that keeps only the last size keys put in it: what the
// adapter remembers of messages and tool calls, so that its memory follows
// what is recent, not everything seen. The lines of one API message, and a
// call's duplicate results, come close together; one that comes back after
// size others is taken for new. Size 0 keeps every key.
type recent[V any] struct {
	m    map[string]V
	ring []string // the keys, oldest first from next
	next int
	size int
}

func newRecent[V any](size int) recent[V] {
	return recent[V]{m: make(map[string]V), size: size}
}

// get returns the value of key.
func (r *recent[V]) get(key string) (V, bool) {
	v, ok := r.m[key]
	return v, ok
}

// set sets the value of a key get has just found.
func (r *recent[V]) set(key string, v V) { r.m[key] = v }

// put sets the value of key. A new key may push the oldest out; its value
// is returned, to be accounted for.
func (r *recent[V]) put(key string, v V) (old V, evicted bool) {
	if _, ok := r.m[key]; ok {
		r.m[key] = v
		return old, false
	}
	r.m[key] = v
	if r.size == 0 {
		return old, false
	}
	if len(r.ring) < r.size {
		r.ring = append(r.ring, key)
		return old, false
	}
	gone := r.ring[r.next]
	old, evicted = r.m[gone]
	delete(r.m, gone)
	r.ring[r.next] = key
	r.next = (r.next + 1) % r.size
	return old, evicted
}

// all calls fn with every value kept.
func (r *recent[V]) all(fn func(V)) {
	for _, v := range r.m {
		fn(v)
	}
}
