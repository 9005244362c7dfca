package jsonraw

import (
	"bytes"
	"math"
)

// indexMin is the length from which the Checker records where a string or
// a container ends. Below it, finding the end again costs less than looking
// it up; above it, the walkers would scan the text a second time (a tool's
// output, a whole message skipped). Long strings do not overlap: at most one
// per indexMin bytes of the record; containers nest, and are given as many
// entries at most (Checker.containerMax): the index stays a fraction of the
// line (48 bytes per 128 at the very most).
const indexMin = 128

// index is what a Checker learned about one record that the walkers would
// otherwise find out again: where each long string and container ends, and
// how long each long string is decoded. Entries are in the order of their
// starts.
type index struct {
	rec     []byte // the record checked; values find their offset in it
	spans   []span
	members []member // in the order of their keys
}

type span struct {
	start, end int // the opening quote or bracket; just past the closing one
	decoded    int // a string's decoded length (for clean strings); 0 for containers
}

// member is one member of an object of the record: where its key and its
// value start and where the value ends, and which member of the same object
// comes next. A walk over an object's members reads them here instead of
// finding the ends of keys and values again.
type member struct {
	key, val, end uint32 // the key's opening quote, the value's first byte, just past the value
	next          int32  // the next member's entry, or memberLast, or memberUnknown
}

const (
	memberLast    = -1 // the object's last member
	memberUnknown = -2 // the next member was not recorded: scan for it
)

// maxMembers is how many members the Checker records for a record of n
// bytes: every member of any real event (a member takes 6 bytes at the
// least, most take dozens), at most half the record's size in memory (16
// bytes each) whatever it holds, and never more than recordMembers. A
// huge record of many small members (64 MiB of "k":1) would otherwise
// take 32 MiB of entries, twice that while the slice grows: its walks
// scan past the first recordMembers members instead, as they did before
// the index (a huge record's time goes to its long values, which spans
// hold). Offsets are 32 bits: a record past 4 GiB records none.
func maxMembers(n int) int {
	if uint64(n) > math.MaxUint32 {
		return 0
	}
	return min(n/32+64, recordMembers)
}

// recordMembers bounds the members of one record: 1 MiB of entries.
const recordMembers = 1 << 16

// firstMember returns the entry of the member whose key starts at pos, if
// the Checker recorded one.
func (x *index) firstMember(pos int) (int, bool) {
	ms := x.members
	if len(ms) == 0 || pos < 0 || uint64(pos) > math.MaxUint32 {
		return 0, false
	}
	p := uint32(pos)
	lo, hi := 0, len(ms)
	if ms[0].key >= p {
		hi = 0 // the record's own object: its first member is the first entry
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ms[m].key < p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(ms) && ms[lo].key == p {
		return lo, true
	}
	return 0, false
}

// find returns the entry that starts at pos, if there is one.
func (x *index) find(pos int) (span, bool) {
	lo, hi := 0, len(x.spans)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.spans[m].start < pos {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(x.spans) && x.spans[lo].start == pos {
		return x.spans[lo], true
	}
	return span{}, false
}

// walker is a walk over text b that may come from an indexed record: base
// is where b starts in it. The zero walker has no index and scans; resolved
// is set once walkOf has looked.
type walker struct {
	ix       *index
	base     int
	resolved bool
}

// walkOf returns the walker for b, a value's text from origin o: the index
// is used only when b lies in the record it was built for (text of an
// earlier record, or built elsewhere, is scanned).
func walkOf(o *origin, b []byte) walker {
	base, ok := o.holds(b)
	if !ok {
		return walker{resolved: true}
	}
	return walker{ix: &o.ix, base: base, resolved: true}
}

// holds reports whether b, not empty, lies in the text o is the origin of,
// and where it starts there. A value kept past the next record its Checker
// checked (or the next value its builder built) does not: its verdict and
// index are another text's.
func (o *origin) holds(b []byte) (base int, ok bool) {
	if o == nil || len(b) == 0 {
		return 0, false
	}
	rec := o.ix.rec
	base = cap(rec) - cap(b) // b is a slice of rec: they share the array's end
	if base < 0 || base >= len(rec) || len(b) > len(rec)-base || &rec[base] != &b[0] {
		return 0, false
	}
	return base, true
}

// cleanText reports whether b, read from origin o, may be copied as it
// stands: o's verdict, when b is still o's text (nothing to copy in an
// empty b). Unsure is not clean: the repairing copy of a clean text is the
// same bytes, only slower.
func (o *origin) cleanText(b []byte) bool {
	if o == nil || !o.clean {
		return false
	}
	if len(b) == 0 {
		return true
	}
	_, ok := o.holds(b)
	return ok
}

// str returns the index just past the string literal that starts at s[i]
// (a quote), or len(s) if it does not end. It jumps from quote to quote with
// IndexByte rather than testing every byte; a string not closed within
// indexMin bytes is looked up rather than scanned to its end.
func (w walker) str(s []byte, i int) int {
	lim := min(len(s), i+indexMin)
	j := i + 1
	for {
		q := bytes.IndexByte(s[j:lim], '"')
		if q < 0 {
			if lim == len(s) {
				return len(s) // the string does not end
			}
			if w.ix != nil {
				if e, ok := w.ix.find(w.base + i); ok && e.end-w.base <= len(s) {
					return e.end - w.base
				}
			}
			j, lim = lim, len(s)
			continue
		}
		j += q
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for k := j - 1; k > i && s[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// value returns the index just past the value that starts at s[i] (i
// itself where no value starts), looking long containers and strings up.
func (w walker) value(s []byte, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return w.str(s, i)
	case '{', '[':
		if w.ix != nil {
			if e, ok := w.ix.find(w.base + i); ok && e.end-w.base <= len(s) { // a miss: a short one
				return e.end - w.base
			}
		}
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				j = w.str(s, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(s)
	}
	for j := i; j < len(s); j++ {
		switch s[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
	}
	return len(s)
}

// decodedLen returns the decoded length of the literal l, from the index
// when the record's Checker recorded it.
func decodedLen(l Literal) int {
	w := walkOf(l.o, l.b)
	if w.ix != nil && len(l.b) >= indexMin {
		if e, ok := w.ix.find(w.base); ok && e.end-w.base == len(l.b) {
			return e.decoded
		}
	}
	return DecodedLen(l.Body())
}
