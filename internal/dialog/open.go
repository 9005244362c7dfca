package dialog

import "slices"

// openCalls holds the calls started and not ended, by source id. The call
// started last is held apart from the map: a call's end mostly comes before
// the next call starts (a command, then its output), and then neither its
// start nor its end touches the map. A source id started again while open
// is rare and kept apart too (stacked).
type openCalls struct {
	newest    openTool // the call started last, when hasNewest
	newestSrc string
	hasNewest bool
	bySrc     map[string]openTool
	stacked   map[string][]openTool
	n         int
}

// push records a call started under source id src.
func (o *openCalls) push(src string, t openTool) {
	if o.hasNewest {
		o.pushMap(o.newestSrc, o.newest)
	}
	o.newest, o.newestSrc, o.hasNewest = t, src, true
	o.n++
}

func (o *openCalls) pushMap(src string, t openTool) {
	if o.bySrc == nil {
		o.bySrc = make(map[string]openTool)
	}
	if prev, ok := o.bySrc[src]; ok {
		if o.stacked == nil {
			o.stacked = make(map[string][]openTool)
		}
		o.stacked[src] = append(o.stacked[src], prev)
	}
	o.bySrc[src] = t
}

// take removes and returns the call last started under src.
func (o *openCalls) take(src string) (openTool, bool) {
	// The newest call is the last started under its source id: a later
	// start would have moved it to the map.
	if o.hasNewest && o.newestSrc == src {
		o.hasNewest = false
		o.n--
		return o.newest, true
	}
	t, ok := o.bySrc[src]
	if !ok {
		return t, false
	}
	if ts := o.stacked[src]; len(ts) > 0 {
		o.bySrc[src] = ts[len(ts)-1]
		if len(ts) == 1 {
			delete(o.stacked, src)
		} else {
			o.stacked[src] = ts[:len(ts)-1]
		}
	} else {
		delete(o.bySrc, src)
	}
	o.n--
	return t, true
}

// find returns the call last started under src, leaving it open.
func (o *openCalls) find(src string) (openTool, bool) {
	if o.hasNewest && o.newestSrc == src {
		return o.newest, true
	}
	t, ok := o.bySrc[src]
	return t, ok
}

// takeAll removes every open call and returns them in the order they
// started.
func (o *openCalls) takeAll() []openTool {
	all := make([]openTool, 0, o.n)
	if o.hasNewest {
		all = append(all, o.newest)
	}
	for _, t := range o.bySrc {
		all = append(all, t)
	}
	for _, ts := range o.stacked {
		all = append(all, ts...)
	}
	slices.SortFunc(all, func(a, b openTool) int { return a.order - b.order })
	o.hasNewest = false
	clear(o.bySrc)
	clear(o.stacked)
	o.n = 0
	return all
}
