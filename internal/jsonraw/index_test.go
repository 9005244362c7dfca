package jsonraw

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// indexLines are records whose long strings and containers the Checker
// indexes: our fixtures of every format, and lines written for the edges
// (escaped quotes and backslash runs about the window's end, lengths about
// indexMin, long keys, long nested containers, escapes of every kind).
func indexLines(t testing.TB) [][]byte {
	t.Helper()
	files, err := filepath.Glob("../../testdata/*/*.in.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var lines [][]byte
	for _, f := range files {
		d, err := os.ReadFile(f)
		require.NoError(t, err)
		for l := range bytes.SplitSeq(d, []byte("\n")) {
			if l = bytes.TrimSpace(l); len(l) > 0 && l[0] == '{' {
				lines = append(lines, l)
			}
		}
	}
	for n := indexMin - 4; n <= indexMin+4; n++ {
		s := strings.Repeat("a", n)
		lines = append(lines,
			[]byte(`{"k":"`+s+`","n":1}`),                               // a string about the threshold
			[]byte(`{"`+s+`":["`+s+`"]}`),                               // a long key
			[]byte(`{"a":{"b":"`+s[:n/2]+`"},"c":[1,2,"`+s[n/2:]+`"]}`), // containers about it
			[]byte(`{"k":"`+s[:n-2]+`\"x\\\"","z":"`+s+`\\"}`),          // escaped quotes and backslashes at the window's end
		)
	}
	long := strings.Repeat(`line with \"quotes\", \\ back\\slashes\\, \u00e9 \ud83d\ude00 \u001b[1m and \t tabs\n`, 40)
	lines = append(lines,
		[]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"`+long+`"}]},"tool_use_result":{"stdout":"`+long+`","stderr":"","nested":[{"x":"`+long+`"},[[["`+long+`"]]]]}}`),
		[]byte(` {"pretty" : [ "`+long+`" , { "a" : "`+long+`" } ] } `),
		[]byte(`["`+long+`",{"k":"`+long+`"},"short"]`),
	)
	return lines
}

// trace writes down everything a walk of v sees: members (keys and
// values), elements and tokens, recursively.
func trace(b *strings.Builder, v Value, depth int) {
	if depth > 20 {
		return
	}
	for m := v.Members(); m.Next(); {
		fmt.Fprintf(b, "value %q lit %q\n", m.Value.Bytes(), m.KeyLit().Bytes())
		trace(b, m.Value, depth+1)
	}
	for e := v.Elements(); e.Next(); {
		fmt.Fprintf(b, "element %q\n", e.Value.Bytes())
		trace(b, e.Value, depth+1)
	}
	for tk := v.Tokens(); tk.Next(); {
		fmt.Fprintf(b, "token %d %q %c %q\n", tk.Kind, tk.Lit.Bytes(), tk.Byte, tk.Raw)
		if tk.Kind == OpenToken && depth%2 == 1 {
			fmt.Fprintf(b, "container %q\n", tk.Container().Bytes())
		}
	}
}

// TestIndexMatchesScan: the index holds each long string and container with
// the end a scan finds, and every walk over an indexed record sees what the
// same walk over the text alone sees.
func TestIndexMatchesScan(t *testing.T) {
	var c Checker
	indexed := 0
	for _, line := range indexLines(t) {
		v, verdict := c.Value(line, 1000)
		if verdict >= Invalid {
			continue // the fixtures of bad input
		}
		for _, e := range c.o.ix.spans {
			require.Equal(t, skipValue(line, e.start), e.end, "span at %d of %s", e.start, line)
			require.GreaterOrEqual(t, e.end-e.start, indexMin)
			if line[e.start] == '"' && verdict == Clean {
				require.Equal(t, DecodedLen(line[e.start+1:e.end-1]), e.decoded, "decoded length at %d of %s", e.start, line)
			}
		}
		indexed += len(c.o.ix.spans)
		var withIndex, without strings.Builder
		trace(&withIndex, v, 0)
		trace(&without, textOf(v.b, v.Clean()), 0)
		require.Equal(t, without.String(), withIndex.String(), "%s", line)
	}
	require.Greater(t, indexed, 50, "the lines hold long strings: the index must have them")
}

// TestIndexIsUsed: a walk over an indexed record reads members from the
// index, and looks long values up instead of scanning them. An entry that
// lies shows it: the walk follows the entry.
func TestIndexIsUsed(t *testing.T) {
	long := strings.Repeat("x", 3*indexMin)
	var c Checker
	v, _ := c.Value([]byte(`{"a":"`+long+`","b":{"c":"`+long+`"},"d":1}`), 10)
	require.Len(t, c.o.ix.spans, 4)   // the line, "a", "b", "c"
	require.Len(t, c.o.ix.members, 4) // a, b, c, d
	require.Equal(t, []string{"a", "b", "d"}, keys(v))
	c.o.ix.members[0].next = 3 // "a" is now followed by "d"
	require.Equal(t, []string{"a", "d"}, keys(v))
	c.o.ix.members = c.o.ix.members[:0] // the walk scans, and jumps long values
	require.Equal(t, []string{"a", "b", "d"}, keys(v))
	c.o.ix.spans[2].end -= 2 // "b"'s object now ends two bytes early, inside "c"'s string
	require.Equal(t, []string{"a", "b"}, keys(v))
}

func keys(v Value) []string {
	var k []string
	for m := v.Members(); m.Next(); {
		k = append(k, string(m.Key))
	}
	return k
}

// TestStaleIndexIsNotUsed: a value kept from an earlier record, after the
// Checker has indexed another, is walked by scanning: its text is not in
// the record the index is for.
func TestStaleIndexIsNotUsed(t *testing.T) {
	long := strings.Repeat("y", 2*indexMin)
	var c Checker
	first, _ := c.Value([]byte(`{"a":"`+long+`","b":2}`), 10)
	_, _ = c.Value([]byte(`{"zz":"`+long+long+`","q":[1]}`), 10)
	require.Equal(t, []string{"a", "b"}, keys(first))
	require.Equal(t, `2`, string(first.Get("b").Bytes()))
	// A slice of the same record that does not start where the index's
	// record does is still found in it.
	rec := []byte(`{"a":"` + long + `","b":{"c":"` + long + `"}}`)
	_, _ = c.Value(rec, 10)
	inner := Value{b: rec[bytes.Index(rec, []byte(`{"c"`)) : len(rec)-1], o: &c.o}
	require.Equal(t, []string{"c"}, keys(inner))
	require.Equal(t, walkOf(&c.o, inner.b).base, bytes.Index(rec, []byte(`{"c"`)))
	require.Nil(t, walkOf(&c.o, []byte(`{"c":1}`)).ix, "text from elsewhere")
}

// TestIndexedLiteralCut: a long literal cut to the limits leaves out, by the
// index's decoded length, what DecodedLen counts.
func TestIndexedLiteralCut(t *testing.T) {
	var c Checker
	for _, line := range indexLines(t) {
		v, verdict := c.Value(line, 1000)
		if verdict != Clean {
			continue
		}
		for tk := v.Tokens(); tk.Next(); {
			if tk.Kind != StringToken || len(tk.Lit.Bytes()) < indexMin {
				continue
			}
			plain := Literal(textOf(tk.Lit.b, true))
			for _, lim := range [][2]int{{-1, -1}, {0, -1}, {1, -1}, {100, -1}, {indexMin, -1}, {1000, -1}, {-1, 7}, {50, 200}, {5000, 90}} {
				want, wantCut, wantBy := AppendLiteral(nil, plain, lim[0], lim[1])
				got, cut, by := AppendLiteral(nil, tk.Lit, lim[0], lim[1])
				require.Equal(t, string(want), string(got))
				require.Equal(t, wantCut, cut, "limits %v of %s", lim, tk.Lit.Bytes())
				require.Equal(t, wantBy, by)
			}
		}
	}
}

// FuzzIndex: for any text made into long strings, the index agrees with a
// scan, and cutting a long literal counts what it leaves out alike.
func FuzzIndex(f *testing.F) {
	for _, s := range []string{`abc`, `a\"b`, `\\`, `\u00e9\ud83d\ude00`, `\n\t`, `"],{`, "é€"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, body string, n int) {
		n = n%300 + 1
		if n < 0 {
			n = -n
		}
		long := strings.Repeat(body, max(1, (indexMin+len(body))/max(1, len(body))))
		line := []byte(`{"a":"` + long + `","b":[{"c":"` + body + `"},"` + long + long + `"],"` + long + `":` + strings.Repeat(`[`, n%5) + `"` + body + `"` + strings.Repeat(`]`, n%5) + `}`)
		var c Checker
		v, verdict := c.Value(line, 100)
		if verdict >= Invalid {
			return
		}
		for _, e := range c.o.ix.spans {
			require.Equal(t, skipValue(line, e.start), e.end)
			if line[e.start] == '"' && verdict == Clean {
				require.Equal(t, DecodedLen(line[e.start+1:e.end-1]), e.decoded)
			}
		}
		var withIndex, without strings.Builder
		trace(&withIndex, v, 0)
		trace(&without, textOf(v.b, v.Clean()), 0)
		require.Equal(t, without.String(), withIndex.String())
		if verdict != Clean {
			return
		}
		l := v.Get("a").Lit()
		want, wantCut, _ := AppendLiteral(nil, Literal(textOf(l.b, true)), n, -1)
		got, cut, _ := AppendLiteral(nil, l, n, -1)
		require.Equal(t, string(want), string(got))
		require.Equal(t, wantCut, cut)
	})
}

// TestIndexIsBounded: long containers nested deep around one long string
// ([[[…"long"…]]], each level a long container) get entries up to a share
// of the line, not one every two bytes; walks over the line still see what
// a scan sees.
func TestIndexIsBounded(t *testing.T) {
	const depth = 5000
	group := strings.Repeat("[", depth) + `"` + strings.Repeat("x", indexMin+2) + `"` + strings.Repeat("]", depth)
	line := []byte(`{"a":[` + group + `,` + group + `],"b":"` + strings.Repeat("y", 3*indexMin) + `"}`)
	var c Checker
	v, verdict := c.Value(line, 2*depth)
	require.Equal(t, Clean, verdict)
	require.LessOrEqual(t, len(c.o.ix.spans), 2*len(line)/indexMin+8)
	for _, e := range c.o.ix.spans {
		require.Equal(t, skipValue(line, e.start), e.end, "entry at %d", e.start)
	}
	b, _ := c.o.ix.find(bytes.Index(line, []byte(`"yyy`)))
	require.Equal(t, len(line)-1, b.end, "the long string after the containers is indexed")
	require.Equal(t, []string{"a", "b"}, keys(v))
	var withIndex, without strings.Builder
	for e := v.Get("a").Elements(); e.Next(); {
		fmt.Fprintf(&withIndex, "%d ", len(e.Value.Bytes()))
	}
	for e := textOf(v.Get("a").Bytes(), true).Elements(); e.Next(); {
		fmt.Fprintf(&without, "%d ", len(e.Value.Bytes()))
	}
	require.Equal(t, without.String(), withIndex.String())
}

// TestStaleVerdictIsNotUsed: a literal kept from a dirty record, after its
// Checker has checked a clean one, is not taken for clean: it is copied
// repaired, never raw.
func TestStaleVerdictIsNotUsed(t *testing.T) {
	var c Checker
	first, verdict := c.Value([]byte("{\"a\":\"bad \xff\"}"), 10)
	require.Equal(t, Dirty, verdict)
	kept := first.Get("a").Lit()
	require.False(t, kept.Clean())
	_, verdict = c.Value([]byte(`{"b":"ok"}`), 10)
	require.Equal(t, Clean, verdict)
	assert.False(t, kept.Clean(), "the verdict of the next record")
	out, _, _ := AppendLiteral(nil, kept, -1, -1)
	assert.Equal(t, "bad \uFFFD", string(out))
}

// FuzzIndexedWalk: on any text the Checker takes, every walk over the
// checked record (members from the index, long values looked up) sees what
// the same walk over the text alone sees, with the members' share of the
// index full or not.
func FuzzIndexedWalk(f *testing.F) {
	for _, s := range []string{
		`{"type":"item.completed","item":{"id":"item_1","type":"command_execution","aggregated_output":"x\\\"\n","exit_code":0}}`,
		`{"a":[{"b":"]}"}],"c":"\\\"","d":{}}`, ` { "a" : { "b" : [ 1 , { "c" : null } ] } , "e" : true } `,
		`[{"a":1},{"b":{"c":{"d":2}}}]`, `{"a":{"a":{"a":{"a":{}}}},"a":1}`,
	} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, full bool) {
		var c Checker
		v, verdict := c.Value([]byte(s), 200)
		if verdict >= Invalid {
			return
		}
		require.Equal(t, string(bytes.TrimSpace([]byte(s))), string(v.Bytes()), "the value is the text without the space around it")
		if full && len(c.o.ix.members) > 1 {
			c.o.ix.members = c.o.ix.members[:len(c.o.ix.members)/2]
			for k := range c.o.ix.members {
				if n := c.o.ix.members[k].next; n >= int32(len(c.o.ix.members)) {
					c.o.ix.members[k].next = memberUnknown // as when the share ran out
				}
			}
		}
		var withIndex, without strings.Builder
		trace(&withIndex, v, 0)
		trace(&without, textOf(v.b, v.Clean()), 0)
		require.Equal(t, without.String(), withIndex.String())
	})
}

// TestMembersAreBounded: a record of many tiny members records a share of
// them, and walks over it see what a scan sees.
func TestMembersAreBounded(t *testing.T) {
	var line strings.Builder
	line.WriteString(`{"o":{`)
	for i := range 5000 {
		if i > 0 {
			line.WriteString(",")
		}
		fmt.Fprintf(&line, `"%d":{"":%d}`, i%7, i%10)
	}
	line.WriteString(`},"z":1}`)
	var c Checker
	v, verdict := c.Value([]byte(line.String()), 10)
	require.Equal(t, Clean, verdict)
	require.Len(t, c.o.ix.members, maxMembers(line.Len()))
	require.Less(t, len(c.o.ix.members), 10001, "not every member")
	require.Equal(t, recordMembers, maxMembers(64<<20), "a huge record: a fixed number")
	var withIndex, without strings.Builder
	trace(&withIndex, v, 0)
	trace(&without, textOf(v.b, v.Clean()), 0)
	require.Equal(t, without.String(), withIndex.String())
	require.Equal(t, `1`, string(v.Get("z").Bytes()))
}
