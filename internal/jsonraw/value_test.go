package jsonraw

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	_ "github.com/ssebench/sse-dialog-convert/internal/golden" // registers -update
)

// val is s as a Value, s valid or not: the walks must cope with any text.
func val(s string) Value { return textOf([]byte(s), true) }

func members(raw string) [][2]string {
	var got [][2]string
	for m := val(raw).Members(); m.Next(); {
		got = append(got, [2]string{string(m.Key), string(m.Value.Bytes())})
	}
	return got
}

func elements(raw string) []string {
	var got []string
	for e := val(raw).Elements(); e.Next(); {
		got = append(got, string(e.Value.Bytes()))
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

func TestGet(t *testing.T) {
	tests := []struct{ raw, key, want string }{
		{`{"a":{"x":1},"x":"x"}`, "x", `"x"`}, // only top-level members match
		{`{"id":"item_1","action":{},"id":"call_2"}`, "id", `"item_1"`},
		{`{"a":1}`, "b", ""},
		{`[{"a":1}]`, "a", ""},
		{``, "a", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(val(tt.raw).Get(tt.key).Bytes()), "%s %s", tt.raw, tt.key)
	}
}

func TestKindsAndStrings(t *testing.T) {
	tests := []struct {
		raw       string
		kind      Kind
		null      bool
		body, str string
	}{
		{`"plain"`, String, false, "plain", "plain"},
		{`"tab\there \"q\" \u00e9"`, String, false, `tab\there \"q\" \u00e9`, "tab\there \"q\" é"},
		{`""`, String, false, "", ""},
		{`null`, Null, true, "", ""},
		{``, Absent, true, "", ""},
		{`12`, Number, false, "", ""},
		{`true`, True, false, "", ""},
		{`false`, False, false, "", ""},
		{`{"a":"b"}`, Object, false, "", ""},
		{`["a"]`, Array, false, "", ""},
	}
	for _, tt := range tests {
		v := val(tt.raw)
		assert.Equal(t, tt.kind, v.Kind(), tt.raw)
		assert.Equal(t, tt.null, v.IsNull(), "IsNull(%s)", tt.raw)
		assert.Equal(t, tt.body, string(v.Body()), "Body(%s)", tt.raw)
		assert.Equal(t, tt.str, v.Str(), "Str(%s)", tt.raw)
		assert.Equal(t, tt.kind == String, v.IsString(), tt.raw)
		assert.Equal(t, tt.kind == Object, v.IsObject(), tt.raw)
		assert.Equal(t, tt.kind == Array, v.IsArray(), tt.raw)
		assert.Equal(t, tt.kind == True, v.IsTrue(), tt.raw)
		assert.Equal(t, tt.kind == False, v.IsFalse(), tt.raw)
	}
	assert.True(t, val(`"system"`).Is("system"))
	assert.False(t, val(`"\u0073ystem"`).Is("system"), "compared as written")
	assert.False(t, val(``).Is(""), "absent is no string")
	assert.True(t, val(`""`).Is(""))
}

// TestStrOwnsItsText: what Str returns survives the buffer it was read from.
func TestStrOwnsItsText(t *testing.T) {
	buf := []byte(`{"a":"plain","b":"esc\n"}`)
	v, _ := Parse(buf)
	a, b := v.Get("a").Str(), v.Get("b").Str()
	for i := range buf {
		buf[i] = 'Z'
	}
	assert.Equal(t, "plain", a)
	assert.Equal(t, "esc\n", b)
}

func TestCleanIsInherited(t *testing.T) {
	for _, clean := range []bool{true, false} {
		v := textOf([]byte(`{"a":[{"b":"x"}]}`), clean)
		var got []bool
		for m := v.Members(); m.Next(); {
			got = append(got, m.Value.Clean())
			for e := m.Value.Elements(); e.Next(); {
				got = append(got, e.Value.Clean(), e.Value.Get("b").Clean(), e.Value.Get("b").Lit().Clean())
			}
		}
		assert.Equal(t, []bool{clean, clean, clean, clean}, got)
	}
}

func TestInt(t *testing.T) {
	tests := []struct {
		raw     string
		want    int64
		ok      bool
		integer bool
	}{
		{`42`, 42, true, true},
		{`-7`, -7, true, true},
		{`0`, 0, true, true},
		{`1.9`, 1, true, false},
		{`-1.9`, -1, true, false},
		{`1e3`, 1000, true, false},
		{`2.5E-1`, 0, true, false},
		{`0.0`, 0, true, false},
		{`9223372036854775807`, math.MaxInt64, true, true},
		{`-9223372036854775808`, math.MinInt64, true, true},
		{`12345678901234567890`, math.MaxInt64, true, false},  // held at the bound, as gjson
		{`-12345678901234567890`, math.MinInt64, true, false}, // held at the bound, as gjson
		{`1e400`, math.MaxInt64, true, false},
		{`null`, 0, false, false},
		{`"42"`, 0, false, false},
		{`true`, 0, false, false},
		{``, 0, false, false},
	}
	for _, tt := range tests {
		n, ok := val(tt.raw).Int()
		assert.Equal(t, tt.want, n, tt.raw)
		assert.Equal(t, tt.ok, ok, tt.raw)
		if tt.ok {
			assert.Equal(t, gjson.Parse(tt.raw).Int(), n, "%s as gjson reads it", tt.raw)
		}
		m, ok := val(tt.raw).Integer()
		assert.Equal(t, tt.integer, ok, "Integer(%s)", tt.raw)
		if ok {
			assert.Equal(t, tt.want, m, tt.raw)
		}
	}
}

// TestSmallInt: the digit loop reads what strconv.ParseInt reads, or
// leaves the number to it.
func TestSmallInt(t *testing.T) {
	for _, raw := range []string{"0", "-0", "7", "-7", "007", "123456789012345678", "-123456789012345678",
		"1234567890123456789", "-9223372036854775808", "+5", "-", "", "1.5", "1e3", "12a", "--1"} {
		n, ok := smallInt([]byte(raw))
		want, err := strconv.ParseInt(raw, 10, 64)
		if ok {
			require.NoError(t, err, raw)
			require.Equal(t, want, n, raw)
		}
		digits := strings.TrimPrefix(raw, "-")
		require.Equal(t, len(digits) > 0 && len(digits) <= 18 && strings.Trim(digits, "0123456789") == "", ok, raw)
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
		f, ok := val(tt.raw).Float()
		assert.Equal(t, tt.want, f, tt.raw)
		assert.Equal(t, tt.ok, ok, tt.raw)
	}
}

func TestDepthChange(t *testing.T) {
	for in, want := range map[string]int{`{`: 1, `{"a":[`: 2, `]}`: -2, `"{[" ,`: 0, `{"a":"}\"]"}`: 0, `  "x": {"y": [1, 2]}`: 0, `"unterminated {`: 0} {
		assert.Equal(t, want, DepthChange([]byte(in)), in)
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
		for m := val(s).Members(); m.Next(); {
			got[string(m.Key)] = string(m.Value.Bytes()) // encoding/json keeps the last of duplicate keys too
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
		walk(t, val(s), 0)
		v := Value{b: []byte(s)}
		_, _ = v.Int()
		_, _ = v.Float()
		_ = v.Str()
		_ = v.Body()
		_ = v.Get("a")
		_ = DepthChange([]byte(s))
		_, _, _ = AppendLiteral(nil, Literal{b: []byte(s)}, 5, 3)
	})
}

// walk visits every value below v, checking that each step consumes
// text, so no walk can loop.
func walk(t *testing.T, v Value, depth int) {
	if depth > 20 {
		return
	}
	steps := 0
	for m := v.Members(); m.Next(); {
		steps++
		require.LessOrEqual(t, steps, len(v.b), "members of %q", v.b)
		walk(t, m.Value, depth+1)
	}
	steps = 0
	for e := v.Elements(); e.Next(); {
		steps++
		require.LessOrEqual(t, steps, len(v.b), "elements of %q", v.b)
		walk(t, e.Value, depth+1)
	}
}

// TestWalkAllocatesNothing: the iterators Members and Elements return stay
// on the caller's stack (they are pointers only so that a for clause does
// not copy them on each iteration).
func TestWalkAllocatesNothing(t *testing.T) {
	line := val(`{"type":"assistant","message":{"content":[{"type":"text","text":"a"},{"type":"tool_use","input":{"x":[1,2]}}]}}`)
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		for m := line.Members(); m.Next(); {
			for e := m.Value.Get("content").Elements(); e.Next(); {
				n += len(e.Value.Get("type").Bytes())
			}
		}
	})
	assert.Zero(t, allocs)
	assert.Positive(t, n)
}

// textOf is text b read as a value whose origin says clean, as a Checker
// (or a builder) would.
func textOf(b []byte, clean bool) Value {
	return Value{b: b, o: &origin{clean: clean, ix: index{rec: b}}}
}
