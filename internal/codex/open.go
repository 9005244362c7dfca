package codex

import "slices"

// openCalls holds the open calls by source id, the call started last apart
// from the map: a command's end mostly comes before the next call starts,
// and then neither its start nor its end touches the map (their four map
// operations were 1% of converting short Codex lines). A call started under
// the id of an open one takes its place.
type openCalls struct {
	newest *openCall // the call started last, if still open; its id is not in byID
	byID   map[string]*openCall
}

// find returns the open call with id, or nil.
func find[ID string | []byte](o *openCalls, id ID) *openCall {
	if o.newest != nil && o.newest.id == string(id) {
		return o.newest
	}
	return o.byID[string(id)]
}

// add records c as open, in place of any open call with its id.
func (o *openCalls) add(c *openCall) {
	if o.newest != nil && o.newest.id != c.id {
		if o.byID == nil {
			o.byID = make(map[string]*openCall)
		}
		o.byID[o.newest.id] = o.newest
	}
	if len(o.byID) > 0 {
		delete(o.byID, c.id)
	}
	o.newest = c
}

// remove drops the open call with c's id.
func (o *openCalls) remove(c *openCall) {
	if o.newest != nil && o.newest.id == c.id {
		o.newest = nil
		return
	}
	delete(o.byID, c.id)
}

func (o *openCalls) len() int {
	n := len(o.byID)
	if o.newest != nil {
		n++
	}
	return n
}

// all returns the open calls in the order they started.
func (o *openCalls) all() []*openCall {
	all := make([]*openCall, 0, o.len())
	if o.newest != nil {
		all = append(all, o.newest)
	}
	for _, c := range o.byID {
		all = append(all, c)
	}
	slices.SortFunc(all, func(x, y *openCall) int { return x.order - y.order })
	return all
}
