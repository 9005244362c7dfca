package jsonraw

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	_ "github.com/ssebench/sse-dialog-convert/internal/golden" // registers -update
)

func members(raw string) [][2]string {
	var got [][2]string
	for m := Members(raw); m.Next(); {
		got = append(got, [2]string{m.Key, m.Value})
	}
	return got
}

func elements(raw string) []string {
	var got []string
	for e := Elements(raw); e.Next(); {
		got = append(got, e.Value)
	}
	return got
}

func TestMembers(t *testing.T) {
	tests := []struct {
		raw  string
		want [][2]string
	}{
		{`{}`, nil},
		{` { } `, nil},
		{`{"a":1}`, [][2]string{{"a", "1"}}},
		{`{ "a" : "x\"}" , "b":[1,{"c":"]"}], "d":{"e":null},"f":true,"g":-1.5e3 }`,
			[][2]string{{"a", `"x\"}"`}, {"b", `[1,{"c":"]"}]`}, {"d", `{"e":null}`}, {"f", "true"}, {"g", "-1.5e3"}}},
		{"{\n\t\"a\":\r\n\"\\\\\"}", [][2]string{{"a", `"\\"`}}},
		{`{"k\"ey":"v","":""}`, [][2]string{{`k\"ey`, `"v"`}, {"", `""`}}},
		{`{"a":1,"a":2}`, [][2]string{{"a", "1"}, {"a", "2"}}},
		{`[1,2]`, nil},
		{`"str"`, nil},
		{``, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, members(tt.raw), tt.raw)
	}
}

func TestElements(t *testing.T) {
	tests := []struct {
		raw  string
		want []string
	}{
		{` [ 1 , "a,]" ,{"b":[2]}, [] ,null ] `, []string{"1", `"a,]"`, `{"b":[2]}`, "[]", "null"}},
		{`[]`, nil},
		{`["\\",false]`, []string{`"\\"`, "false"}},
		{`{"a":1}`, nil},
		{``, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, elements(tt.raw), tt.raw)
	}
}

// TestInPlace walks a member's value in place: NextKey, Rest, Skip, and End
// for the length of an object followed by more text.
func TestInPlace(t *testing.T) {
	line := `{"type":"x","item":{"id":"a","text":"}"},"n":1}`
	m := Members(line)
	var item string
	var keys []string
	for m.NextKey() {
		keys = append(keys, m.Key)
		if m.Key == "item" {
			inner := Members(m.Rest())
			for inner.Next() {
			}
			item = m.Rest()[:inner.End()]
			m.Skip(inner.End())
			continue
		}
		require.True(t, m.NextValue())
	}
	assert.Equal(t, []string{"type", "item", "n"}, keys)
	assert.Equal(t, `{"id":"a","text":"}"}`, item)
	assert.Equal(t, len(line), m.End())
	assert.Equal(t, "", m.Rest())
}

func TestGet(t *testing.T) {
	tests := []struct{ raw, key, want string }{
		{`{"a":{"x":1},"x":"x"}`, "x", `"x"`}, // only top-level members match
		{`{"id":"item_1","action":{},"id":"call_2"}`, "id", `"item_1"`},
		{`{"a":1}`, "b", ""},
		{`[{"a":1}]`, "a", ""},
		{``, "a", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Get(tt.raw, tt.key), "%s %s", tt.raw, tt.key)
	}
}

func TestStrings(t *testing.T) {
	tests := []struct {
		raw                   string
		isString, isObj, null bool
		body, unquoted        string
	}{
		{`"plain"`, true, false, false, "plain", "plain"},
		{`"tab\there \"q\" \u00e9"`, true, false, false, `tab\there \"q\" \u00e9`, "tab\there \"q\" é"},
		{`""`, true, false, false, "", ""},
		{`null`, false, false, true, "", ""},
		{``, false, false, true, "", ""},
		{`12`, false, false, false, "", ""},
		{`{"a":"b"}`, false, true, false, "", ""},
		{`["a"]`, false, false, false, "", ""},
		{`"`, false, false, false, "", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.isString, IsString(tt.raw), "IsString(%s)", tt.raw)
		assert.Equal(t, tt.isObj, IsObject(tt.raw), "IsObject(%s)", tt.raw)
		assert.Equal(t, tt.null, IsNull(tt.raw), "IsNull(%s)", tt.raw)
		assert.Equal(t, tt.body, Body(tt.raw), "Body(%s)", tt.raw)
		assert.Equal(t, tt.unquoted, Unquote(tt.raw), "Unquote(%s)", tt.raw)
	}
}

func TestUnquoteAliases(t *testing.T) {
	raw := `"no escapes"`
	s := Unquote(raw)
	assert.Equal(t, "no escapes", s)
	assert.Same(t, unsafeData(raw[1:]), unsafeData(s), "a literal without escapes is not copied")
}

func unsafeData(s string) *byte { return unsafe.StringData(s) }

func TestInt(t *testing.T) {
	tests := []struct {
		raw  string
		want int64
		ok   bool
	}{
		{`42`, 42, true},
		{`-7`, -7, true},
		{`0`, 0, true},
		{`1.9`, 1, true},
		{`-1.9`, -1, true},
		{`1e3`, 1000, true},
		{`2.5E-1`, 0, true},
		{`9223372036854775807`, math.MaxInt64, true},
		{`-9223372036854775808`, math.MinInt64, true},
		{`12345678901234567890`, math.MaxInt64, true},  // held at the bound, as gjson
		{`-12345678901234567890`, math.MinInt64, true}, // held at the bound, as gjson
		{`1e400`, math.MaxInt64, true},
		{`null`, 0, false},
		{`"42"`, 0, false},
		{`true`, 0, false},
		{``, 0, false},
		{`-`, 0, false},
	}
	for _, tt := range tests {
		n, ok := Int(tt.raw)
		assert.Equal(t, tt.want, n, tt.raw)
		assert.Equal(t, tt.ok, ok, tt.raw)
		if tt.ok {
			assert.Equal(t, gjson.Parse(tt.raw).Int(), n, "%s as gjson reads it", tt.raw)
		}
	}
}

func TestFloat(t *testing.T) {
	tests := []struct {
		raw  string
		want float64
		ok   bool
	}{
		{`0.043551200000000005`, 0.043551200000000005, true},
		{`-2`, -2, true},
		{`1e-400`, 0, true},
		{`1e400`, 0, false}, // +Inf is no JSON number: it could not be written back
		{`null`, 0, false},
		{`"1"`, 0, false},
		{``, 0, false},
	}
	for _, tt := range tests {
		f, ok := Float(tt.raw)
		assert.Equal(t, tt.want, f, tt.raw)
		assert.Equal(t, tt.ok, ok, tt.raw)
	}
}

// FuzzMembers checks the walk against encoding/json on any valid object:
// the same keys, and each raw value equal (compacted) to the decoder's;
// and the same elements for any valid array.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{
		`{"type":"system","subtype":"init","cwd":"/w","tools":["Bash","Read"],"model":"claude-x"}`,
		`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"a\"b\\"}]},"parent_tool_use_id":"p"}`,
		`{"type":"item.completed","item":{"id":"item_1","type":"command_execution","aggregated_output":"x\\\"\n","exit_code":0}}`,
		`{"a":[{"b":"]}"}],"c":"\\\""}`, `{"":""}`, `[1,"]",{"a":[]}]`, ` {"a" : 1 } `,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !gjson.Valid(s) || !json.Valid([]byte(s)) || !utf8.ValidString(s) {
			return
		}
		var arr []json.RawMessage
		if json.Unmarshal([]byte(s), &arr) == nil {
			got := elements(s)
			require.Len(t, got, len(arr))
			for i := range arr {
				requireSameJSON(t, arr[i], got[i])
			}
			return
		}
		var want map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &want) != nil {
			return // not an object
		}
		got := map[string]string{}
		for m := Members(s); m.Next(); {
			got[m.Key] = m.Value // encoding/json keeps the last of duplicate keys too
		}
		for k, w := range want {
			kb, _ := json.Marshal(k)
			if !bytes.Equal(kb[1:len(kb)-1], []byte(k)) {
				continue // keys with escapes are compared raw; skip them
			}
			v, ok := got[k]
			require.True(t, ok, "key %q missing", k)
			requireSameJSON(t, w, v)
		}
	})
}

func requireSameJSON(t *testing.T, want []byte, got string) {
	t.Helper()
	var a, b bytes.Buffer
	require.NoError(t, json.Compact(&a, want))
	require.NoError(t, json.Compact(&b, []byte(got)), "%q", got)
	require.Equal(t, a.String(), b.String())
}

// FuzzInvalid feeds any text, valid or not: nothing may panic, and every
// walk must end, each step moving on.
func FuzzInvalid(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[}`, `{"a"}`, `{"a":}`, `[1,,2]`, `{"a":"`, `{"a":[`, `"\`, `{,}`, `{"a":1 "b":2}`, `-`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		walk(t, s, 0)
		_, _ = Int(s)
		_, _ = Float(s)
		_ = Unquote(s)
		_ = Body(s)
		_ = Get(s, "a")
	})
}

// walk visits every value below raw, checking that each step consumes
// text, so no walk can loop.
func walk(t *testing.T, raw string, depth int) {
	if depth > 20 {
		return
	}
	steps := 0
	for m := Members(raw); m.Next(); {
		steps++
		require.LessOrEqual(t, steps, len(raw), "members of %q", raw)
		walk(t, m.Value, depth+1)
	}
	steps = 0
	for e := Elements(raw); e.Next(); {
		steps++
		require.LessOrEqual(t, steps, len(raw), "elements of %q", raw)
		walk(t, e.Value, depth+1)
	}
}

// TestWalkAllocatesNothing: the iterators Members and Elements return stay
// on the caller's stack (they are pointers only so that a for clause does
// not copy them on each iteration).
func TestWalkAllocatesNothing(t *testing.T) {
	line := `{"type":"assistant","message":{"content":[{"type":"text","text":"a"},{"type":"tool_use","input":{"x":[1,2]}}]}}`
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		for m := Members(line); m.Next(); {
			for e := Elements(Get(m.Value, "content")); e.Next(); {
				n += len(Get(e.Value, "type"))
			}
		}
	})
	assert.Zero(t, allocs)
	assert.Positive(t, n)
}
