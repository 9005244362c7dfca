package jsonraw

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPick(t *testing.T) {
	tests := []struct {
		raw     string
		a, b, c string // what Pick leaves in the members named a, b and c
	}{
		{`{"a":1,"b":"x","c":[2]}`, `1`, `"x"`, `[2]`},
		{`{"c":{"a":9},"b":null}`, `keep`, `null`, `{"a":9}`},   // a is absent (only top-level members count)
		{`{"a":1,"b":2,"a":3}`, `3`, `2`, `keep`},               // repeated: the last counts, as in a switch
		{`{"x":1, "a" : true ,"y":{}}`, `true`, `keep`, `keep`}, // others passed over, white space
		{`[{"a":1}]`, `keep`, `keep`, `keep`},                   // not an object: nothing
		{``, `keep`, `keep`, `keep`},
	}
	kept := val(`"keep"`)
	for _, tt := range tests {
		a, b, c := kept, kept, kept
		val(tt.raw).Pick([]string{"a", "b", "c"}, &a, &b, &c)
		got := [3]string{string(a.Bytes()), string(b.Bytes()), string(c.Bytes())}
		for i, v := range got {
			if v == `"keep"` {
				got[i] = "keep"
			}
		}
		assert.Equal(t, [3]string{tt.a, tt.b, tt.c}, got, tt.raw)
	}
}

func TestPickCountsMustMatch(t *testing.T) {
	var a Value
	assert.Panics(t, func() { val(`{"a":1}`).Pick([]string{"a", "b"}, &a) })
}

// TestPickAllocatesNothing: the key slice and the destinations stay on the
// caller's stack.
func TestPickAllocatesNothing(t *testing.T) {
	line := val(`{"type":"base64","media_type":"image/png","data":"AAAA"}`)
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		var typ, media, data Value
		line.Pick([]string{"type", "media_type", "data"}, &typ, &media, &data)
		n += len(typ.Bytes()) + len(media.Bytes()) + len(data.Bytes())
	})
	assert.Zero(t, allocs)
	assert.Positive(t, n)
}

func TestPickInts(t *testing.T) {
	tests := []struct {
		raw   string
		a, b  int64 // what PickInts leaves in the members named a and b
		found bool
	}{
		{`{"a":1,"b":2}`, 1, 2, true},
		{`{"a":3,"x":4}`, 3, -1, true},         // b absent: left as it was
		{`{"a":1,"a":5}`, 5, -1, true},         // repeated: the last counts
		{`{"a":null,"b":"7"}`, 0, 0, true},     // not a number: 0, as Int says
		{`{"b":2.9,"a":-1e3}`, -1000, 2, true}, // as Int reads them
		{`{"x":1}`, -1, -1, false},
		{`[1]`, -1, -1, false},
	}
	for _, tt := range tests {
		a, b := int64(-1), int64(-1)
		found := val(tt.raw).PickInts([]string{"a", "b"}, &a, &b)
		assert.Equal(t, [2]int64{tt.a, tt.b}, [2]int64{a, b}, tt.raw)
		assert.Equal(t, tt.found, found, tt.raw)
	}
}
