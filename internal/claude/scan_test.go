package claude

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

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
		{`[1,2]`, nil},
		{`"str"`, nil},
		{``, nil},
	}
	for _, tt := range tests {
		var got [][2]string
		m := objectMembers(tt.raw)
		for k, v, ok := m.next(); ok; k, v, ok = m.next() {
			got = append(got, [2]string{k, v})
		}
		assert.Equal(t, tt.want, got, tt.raw)
	}
}

func TestElements(t *testing.T) {
	var got []string
	e := arrayElements(` [ 1 , "a,]" ,{"b":[2]}, [] ,null ] `)
	for v, ok := e.next(); ok; v, ok = e.next() {
		got = append(got, v)
	}
	assert.Equal(t, []string{"1", `"a,]"`, `{"b":[2]}`, "[]", "null"}, got)
	e = arrayElements(`[]`)
	_, ok := e.next()
	assert.False(t, ok)
}

func TestValues(t *testing.T) {
	assert.Equal(t, "plain", str(`"plain"`))
	assert.Equal(t, "tab\there \"q\" é", str(`"tab\there \"q\" \u00e9"`))
	assert.Equal(t, "", str(`null`))
	assert.Equal(t, "", str(`12`))
	assert.Equal(t, int64(42), num(`42`))
	assert.Equal(t, int64(0), num(`null`))
	assert.Equal(t, int64(0), num(`"42"`))
	f, ok := float(`0.043551200000000005`)
	assert.True(t, ok)
	assert.InDelta(t, 0.0435512, f, 1e-15)
	_, ok = float(`null`)
	assert.False(t, ok)
	assert.Equal(t, `"x"`, get(`{"a":{"x":1},"x":"x"}`, "x"), "only top-level members match")
}

// FuzzMembers checks the scanner against encoding/json on any valid object:
// the same keys, and each raw value equal (compacted) to the decoder's.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{initLine, okResult, asst("m", "p", text("a\"b\\")), `{"a":[{"b":"]}"}],"c":"\\\""}`, `{"":""}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !gjson.Valid(s) || !json.Valid([]byte(s)) || !utf8.ValidString(s) {
			return
		}
		var want map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &want) != nil {
			return // not an object
		}
		got := map[string]string{}
		m := objectMembers(s)
		for k, v, ok := m.next(); ok; k, v, ok = m.next() {
			got[k] = v // encoding/json keeps the last of duplicate keys too
		}
		for k, w := range want {
			kb, _ := json.Marshal(k)
			if !bytes.Equal(kb[1:len(kb)-1], []byte(k)) {
				continue // keys with escapes are compared raw; skip them
			}
			v, ok := got[k]
			require.True(t, ok, "key %q missing", k)
			var a, b bytes.Buffer
			require.NoError(t, json.Compact(&a, w))
			require.NoError(t, json.Compact(&b, []byte(v)))
			require.Equal(t, a.String(), b.String(), "key %q", k)
		}
	})
}

// FuzzClaude feeds arbitrary lines after a real init: the adapter must not
// panic and the dialog must stay valid whatever the lines hold.
func FuzzClaude(f *testing.F) {
	for _, s := range []string{okResult, asst("m", "", text("a")), asst("m", "p", toolUse("t", "Bash", `{"a":1}`)),
		toolResult("", `{"tool_use_id":"t","type":"tool_result","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"QUJD"}}]}`),
		`{"type":"stream_event","event":{"type":"message_delta","usage":{"output_tokens":4}}}`,
		`{"type":"user","message":{"content":"x"},"isReplay":true}`} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		out, _ := runPipeline(t, initLine+"\n"+a+"\n"+b+"\n")
		requireValid(t, out)
	})
}
