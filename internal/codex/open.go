package codex

// openSet holds the open calls by source id, as a map would: a call
// started under an id already open takes its place, and an end removes
// whatever call has its id. A few calls are open at a time, so while at
// most maxScan are, they are a slice searched in turn: the map's hashing,
// on every item line of a tool, was ~3% of converting short Codex lines.
// Past maxScan they go in a map, until none is open.
type openSet struct {
	few  []*openCall
	many map[string]*openCall // all of them, once more than maxScan are open
}

// maxScan is the most open calls searched one by one.
const maxScan = 8

// openGet returns the open call with source id id, or nil.
func openGet[ID string | []byte](s *openSet, id ID) *openCall {
	if s.many != nil {
		return s.many[string(id)]
	}
	for _, c := range s.few {
		if c.id == string(id) {
			return c
		}
	}
	return nil
}

// put adds c, in place of an open call with its id.
func (s *openSet) put(c *openCall) {
	if s.many == nil {
		for i, o := range s.few {
			if o.id == c.id {
				s.few[i] = c
				return
			}
		}
		if len(s.few) < maxScan {
			s.few = append(s.few, c)
			return
		}
		s.many = make(map[string]*openCall, 2*maxScan)
		for _, o := range s.few {
			s.many[o.id] = o
		}
		clear(s.few)
		s.few = s.few[:0]
	}
	s.many[c.id] = c
}

// remove removes the open call with source id id, if any.
func (s *openSet) remove(id string) {
	if s.many != nil {
		delete(s.many, id)
		if len(s.many) == 0 {
			s.many = nil
		}
		return
	}
	for i, o := range s.few {
		if o.id == id {
			last := len(s.few) - 1
			s.few[i], s.few[last] = s.few[last], nil
			s.few = s.few[:last]
			return
		}
	}
}

// len returns how many calls are open.
func (s *openSet) len() int {
	if s.many != nil {
		return len(s.many)
	}
	return len(s.few)
}

// appendAll appends the open calls to dst, in no order.
func (s *openSet) appendAll(dst []*openCall) []*openCall {
	for _, c := range s.many {
		dst = append(dst, c)
	}
	return append(dst, s.few...)
}
