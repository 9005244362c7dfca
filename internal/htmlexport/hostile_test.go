package htmlexport_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/htmlexport"
)

// Bidi controls and invisible characters reach the page as marks, from
// every field, args (escaped or not) and the index included.
func TestInvisiblesAreMarked(t *testing.T) {
	in := `{"seq":0,"ts":"2026-01-01T00:00:00Z","type":"init","data":{"task":"t\u202e1","cwd":"/","model":"m","agent":"a"}}
{"seq":1,"ts":"2026-01-01T00:00:01Z","type":"message","role":"assistant","content":"abc` + "\u2066" + `def"}
{"seq":2,"ts":"2026-01-01T00:00:02Z","type":"tool","tool_id":"a\u200b","name":"Ba\u200bsh","status":"running","args":{"command":"echo \u202eexe.txt","z":1,"a":2}}
{"seq":3,"ts":"2026-01-01T00:00:03Z","type":"tool","tool_id":"a\u200b","name":"Ba\u200bsh","status":"error","error":"no\ufeff"}
{"seq":4,"ts":"2026-01-01T00:00:04Z","type":"complete","status":"error","reason":"r\u2069","message":"m\u202e","turns":1,"duration_ms":4,"total_tokens":{"in":1,"out":1}}
`
	d, err := dialogread.Read(strings.NewReader(in), nil)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, htmlexport.Write(&b, d, htmlexport.Options{Source: "run\u202e.jsonl"}))
	html := b.String()
	for _, want := range []string{"t⟨U+202E⟩1", "abc⟨U+2066⟩def", `echo ⟨U+202E⟩exe.txt`, "Ba⟨U+200B⟩sh", "a⟨U+200B⟩", "no⟨U+FEFF⟩", "r⟨U+2069⟩", "m⟨U+202E⟩", "run⟨U+202E⟩.jsonl"} {
		assert.Contains(t, html, want)
	}
	for _, raw := range []string{"\u202e", "\u2066", "\u200b", "\ufeff", "\u2069", `\u202e`, `\u202E`} {
		assert.NotContains(t, html, raw)
	}

	var idx bytes.Buffer
	require.NoError(t, htmlexport.WriteIndex(&idx, "runs", []htmlexport.Run{{Href: "x.html", Source: "x\u202e.jsonl", Init: d.Init.Init, Summary: d.Summary()}}))
	index := idx.String()
	assert.True(t, strings.Contains(index, "x⟨U&#43;202E⟩.jsonl"), "the source marked (+ escaped by the template)")
	assert.True(t, strings.Contains(index, "t⟨U&#43;202E⟩1"), "the task marked")
	assert.False(t, strings.Contains(index, "\u202e"))
}

// Args with nothing to mark are kept as written, keys in their order.
func TestArgsKeptWhenNothingIsMarked(t *testing.T) {
	raw := []byte(`{"z":1,"a":"\u003cb\u003e é"}`)
	assert.Equal(t, string(raw), string(dialogread.MarkInvisibleJSON(raw)))
}

// A page read past its cap says what it left out, in its header.
func TestPageSaysWhatWasLeftOut(t *testing.T) {
	in := adaptertest.ManyMessages(50, strings.Repeat("w", 400))
	d, err := dialogread.ReadLimited(strings.NewReader(in), nil, dialogread.Limits{MaxBytes: 5000})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, htmlexport.Write(&b, d, htmlexport.Options{}))
	html := b.String()
	i := strings.Index(html, `<p id="left-out" class="err" role="alert">⚠ incomplete view: `)
	require.Positive(t, i)
	assert.Less(t, i, strings.Index(html, "</header>"))
	assert.Less(t, strings.Count(html, strings.Repeat("w", 400)), 15, "the entries past the cap are not in the page")
}
