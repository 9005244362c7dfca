package jsonraw

import (
	"encoding/binary"
	"math/bits"
)

// descent checks a record by recursive descent, building the same verdict
// and index as Checker.loop: one call per container keeps each level's
// state in registers (the loop keeps a stack of them, and its bookkeeping
// per token was most of its cost: 4% fewer instructions converting Codex
// lines, 5% Claude's). It goes descentDepth levels deep at the most; a
// deeper record is given up, and checked again by the loop, which has no
// limit but maxDepth.
type descent struct {
	ix *index
	// containers is how many entries containers have, and containerMax how
	// many they may have (see Checker.loop); memberMax bounds the members.
	containers, containerMax, memberMax int
	maxDepth                            int
	dirty                               bool // a string must be repaired on its way out
}

// descentDepth is the deepest descent goes: no real event is near it, and
// its stack stays a few KiB.
const descentDepth = 128

// What descent's functions return instead of an index past a value.
const (
	descentInvalid = -1 - iota
	descentTooDeep
	descentGaveUp // deeper than descentDepth
)

// check returns the verdict on b, and false when it gave up.
func (d *descent) check(b []byte) (Verdict, bool) {
	end := d.value(b, skipSpace(b, 0), 0)
	switch {
	case end == descentGaveUp:
		return 0, false
	case end == descentTooDeep:
		return TooDeep, true
	case end < 0 || skipSpace(b, end) != len(b):
		return Invalid, true
	case d.dirty:
		return Dirty, true
	}
	return Clean, true
}

// value checks the value at b[i], nested in depth containers, and returns
// the index past it, or what went wrong.
func (d *descent) value(b []byte, i, depth int) int {
	if i >= len(b) {
		return descentInvalid
	}
	switch b[i] {
	case '"':
		return d.str(b, i)
	case '{':
		return d.object(b, i, depth)
	case '[':
		return d.array(b, i, depth)
	case 't':
		if !hasWord(b, i, "true") {
			return descentInvalid
		}
		return i + 4
	case 'f':
		if !hasWord(b, i, "false") {
			return descentInvalid
		}
		return i + 5
	case 'n':
		if !hasWord(b, i, "null") {
			return descentInvalid
		}
		return i + 4
	}
	j, ok := scanNumber(b, i)
	if !ok {
		return descentInvalid
	}
	return j
}

// str checks the string literal at b[i]. A run of plain bytes up to the
// closing quote, most strings, is read here; the rest by scanStringRest.
// The run is plainRun's loop, written out: the call to plainRun cost 2% of
// converting short Codex lines.
func (d *descent) str(b []byte, i int) int {
	j := i + 1
	for j+8 <= len(b) {
		if m := specialBytes(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			j += bits.TrailingZeros64(m) >> 3
			break
		}
		j += 8
	}
	saved := 0
	if j < len(b) && b[j] == '"' {
		j++
	} else {
		var ok, clean bool
		if j, ok, clean, saved = scanStringRest(b, j); !ok {
			return descentInvalid
		}
		d.dirty = d.dirty || !clean
	}
	if j-i >= indexMin {
		d.ix.spans = append(d.ix.spans, span{start: i, end: j, decoded: j - i - 2 - saved})
	}
	return j
}

// open gives the container that starts at b[at] an entry in spans, to be
// ended or dropped by close; none (-1) once containers have their share.
func (d *descent) open(at int) int32 {
	if d.containers >= d.containerMax {
		return -1
	}
	k := int32(len(d.ix.spans))
	d.ix.spans = append(d.ix.spans, span{start: at})
	d.containers++
	return k
}

// close ends the entry k of a container that ends just before end, or
// drops it when the container is short (it holds nothing long, so its
// entry is the last).
func (d *descent) close(k int32, end int) {
	if k < 0 {
		return
	}
	sp := d.ix.spans
	if end-sp[k].start < indexMin && int(k) == len(sp)-1 {
		d.ix.spans = sp[:k]
		d.containers--
		return
	}
	sp[k].end = end
}

func (d *descent) object(b []byte, i, depth int) int {
	switch {
	case depth >= d.maxDepth:
		return descentTooDeep
	case depth >= descentDepth:
		return descentGaveUp
	}
	at := i
	if i = skipSpace(b, i+1); i < len(b) && b[i] == '}' {
		return i + 1
	}
	sp := d.open(at)
	prev := int32(-1) // the member before, if recorded
	for {
		// `"name" :` at i. Most keys are short and plain: one test of
		// eight bytes.
		if i >= len(b) || b[i] != '"' {
			return descentInvalid
		}
		key := i
		if end := shortPlain(b, i); end > 0 {
			i = end
		} else if i = d.str(b, i); i < 0 {
			return i
		}
		if i < len(b) && b[i] == ':' { // most JSON has no space about ':'
			i++
		} else {
			if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
				return descentInvalid
			}
			i++
		}
		i = skipSpace(b, i)
		// The member, linked from the one before; once members has its
		// share, the rest are not recorded (walks scan them, and the
		// member before keeps next unknown).
		k := int32(-1)
		if ms := d.ix.members; len(ms) < d.memberMax {
			k = int32(len(ms))
			if prev >= 0 {
				ms[prev].next = k
			}
			d.ix.members = append(ms, member{key: uint32(key), val: uint32(i), next: memberUnknown})
		}
		prev = k
		if i = d.value(b, i, depth+1); i < 0 {
			return i
		}
		if k >= 0 {
			d.ix.members[k].end = uint32(i)
		}
		if i = skipSpace(b, i); i >= len(b) {
			return descentInvalid
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			if k >= 0 {
				d.ix.members[k].next = memberLast
			}
			d.close(sp, i+1)
			return i + 1
		default:
			return descentInvalid
		}
	}
}

// array is object's loop for elements. Its first lines are object's: one
// helper for both was not inlined, and cost 1% more instructions on Codex.
func (d *descent) array(b []byte, i, depth int) int {
	switch {
	case depth >= d.maxDepth:
		return descentTooDeep
	case depth >= descentDepth:
		return descentGaveUp
	}
	at := i
	if i = skipSpace(b, i+1); i < len(b) && b[i] == ']' {
		return i + 1
	}
	sp := d.open(at)
	for {
		if i = d.value(b, i, depth+1); i < 0 {
			return i
		}
		if i = skipSpace(b, i); i >= len(b) {
			return descentInvalid
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			d.close(sp, i+1)
			return i + 1
		default:
			return descentInvalid
		}
	}
}
