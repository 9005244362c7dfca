package dialog

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// argsKeyValues are args values of every shape the args walk treats apart:
// strings clean and not (escapes, a lone surrogate, a byte that is not
// UTF-8, a line separator), long ones to cut, containers with repeated
// keys, and nesting on either side of maxNesting.
func argsKeyValues() []string {
	long := `"` + strings.Repeat(`ls -la \"dir\" ünï\n`, 300) + `"`
	return []string{
		`"ls -la"`, `""`, `"a\u0062\n\"c\""`, `"\ud800x"`, "\"\xff\xfe\"", "\"x\u2028y\"", long,
		`null`, `12`, `true`, `[]`, `{}`,
		`["ls","-la"]`, `[` + long + `,` + long + `]`,
		`{"path":"a","kind":{"type":"update"}}`,
		`[{"path":"a","path":"b"},{"k":1}]`,
		`{"k":` + long + `,"k":"short"}`,
		nested(maxNesting - 3), nested(maxNesting - 2), nested(maxNesting - 1), nested(maxNesting + 5),
	}
}

// The args of a call given as ArgsKey and a field are written as the
// object {key: field} would be, and a value that is no object as
// {"input": value}: the short ways in must not drift from the walk of a
// whole object, under any cap and budget.
func TestArgsKeyWritesWhatTheObjectWould(t *testing.T) {
	values := argsKeyValues()
	for _, maxText := range []int{-1, 0, 10, 100} {
		for _, budget := range []int64{-1, 0, 9000, 40000} {
			for _, key := range []string{"command", "input", "k", `say "hi"`, "tab\there", "ünï", "\xff", "x\u2028y"} {
				checkArgsKey(t, key, values, maxText, budget)
			}
		}
	}
}

// appendWord escapes as AppendEscaped does, and says whether it wrote the
// text as it stands; appendKey quotes as AppendQuoted does.
func TestAppendWordAsEscaped(t *testing.T) {
	for _, s := range []string{"", "command", "item_12", "a b-c_d.e", "~", `"`, `a\b`, "\x00", "\x1f", "\x7f", "ü", "\xff", "\u2028", "\u0085", "naïve\tword"} {
		got, plain := appendWord([]byte("x"), s)
		want := jsonraw.AppendEscaped([]byte("x"), s)
		if string(got) != string(want) || plain != (string(want) == "x"+s) {
			t.Errorf("appendWord(%q) = %s, %v; want %s", s, got, plain, want)
		}
		if got, want := string(appendKey([]byte("x"), s)), string(jsonraw.AppendQuoted([]byte("x"), s)); got != want {
			t.Errorf("appendKey(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzArgsKey(f *testing.F) {
	for _, v := range argsKeyValues() {
		f.Add("command", v, int16(10), uint32(20000))
	}
	f.Fuzz(func(t *testing.T, key, value string, maxText int16, budget uint32) {
		// "" is no key; a value that is not JSON is no args.
		if key != "" && rawArgs(value).Exists() {
			checkArgsKey(t, key, []string{value}, int(maxText), int64(budget%100000)-1)
		}
	})
}

// checkArgsKey writes the calls of values with ArgsKey key into one
// dialog and as whole objects into another, built as an adapter builds
// them, and compares them.
func checkArgsKey(t *testing.T, key string, values []string, maxText int, budget int64) {
	t.Helper()
	var short, whole bytes.Buffer
	opt := Options{Clock: pinned, MaxText: maxText, MaxBytes: budget}
	ws, ww := NewWriter(&short, opt), NewWriter(&whole, opt)
	var b jsonraw.ValueBuilder
	object := func(key string, v jsonraw.Value) jsonraw.Value {
		b.Reset()
		b.BeginObject()
		b.Key(key)
		b.Value(v)
		b.EndObject()
		return b.Result()
	}
	for _, raw := range values {
		v := rawArgs(raw)
		ws.ToolStart(ToolCall{ID: "t", Name: "n", ArgsKey: key, Args: v})
		ww.ToolStart(ToolCall{ID: "t", Name: "n", Args: object(key, v)})
		if key == "input" && !v.IsObject() { // wrapped by the writer
			ws.ToolStart(ToolCall{ID: "u", Name: "n", Args: v})
			ww.ToolStart(ToolCall{ID: "u", Name: "n", Args: object("input", v)})
		}
	}
	_ = ws.Close(Summary{Status: StatusSuccess}, nil)
	_ = ww.Close(Summary{Status: StatusSuccess}, nil)
	if !bytes.Equal(short.Bytes(), whole.Bytes()) {
		t.Fatalf("key %q, max text %d, budget %d: ArgsKey wrote\n%s\nthe object\n%s", key, maxText, budget, short.Bytes(), whole.Bytes())
	}
}
