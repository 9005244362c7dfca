package dispatch

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// typedFormat reads {"type":…} records: "say" writes a message, "meta"
// writes nothing and skips nothing (facts for init), "noise" is skipped,
// "pair" writes a message and skips a part of itself, "delta" is held
// for a later entry, "broken" is
// malformed. Any other type is dropped silently (the bug accounting
// shows as a quiet record).
var typedFormat = adapter.Format{
	Name: "typed",
	Detect: func(ev adapter.Event) adapter.Claim {
		if ev.Get("type").Exists() {
			return adapter.Yes
		}
		return adapter.No
	},
	New: func(w *dialog.Writer) adapter.Adapter { return &typedAdapter{w: w} },
}

type typedAdapter struct{ w *dialog.Writer }

func (a *typedAdapter) Event(ev adapter.Event) error {
	switch ev.Get("type").Str() {
	case "say":
		a.w.Message(dialog.Message{Content: dialog.Lit(ev.Get("text").Lit())})
	case "noise":
		a.w.Skip("", "noise")
	case "pair":
		a.w.Message(dialog.Message{Content: dialog.Plain("kept")})
		a.w.Skip("pair/extra", dialog.SkipDuplicate)
	case "delta":
		a.w.Hold()
	case "broken":
		return assert.AnError
	case "panic":
		panic("a bug")
	}
	return nil
}

func (a *typedAdapter) Summary() dialog.Summary { return dialog.Summary{Status: dialog.StatusSuccess} }

func account(t *testing.T, in string) Accounting {
	t.Helper()
	return accountKinds(t, in, true)
}

func accountKinds(t *testing.T, in string, kinds bool) Accounting {
	t.Helper()
	var out bytes.Buffer
	c := New(&out, dialog.Options{Clock: testClock}, Options{Formats: []adapter.Format{typedFormat}, CountKinds: kinds})
	require.NoError(t, c.Feed(strings.NewReader(in), "in"))
	require.NoError(t, c.Close(nil))
	return c.Accounting()
}

// TestAccountingWithoutKinds: without CountKinds the totals and the
// skips (with their kinds) are those of a full count; only the per-kind
// counts are left out.
func TestAccountingWithoutKinds(t *testing.T) {
	in := strings.Join([]string{`{"no_type":1}`, `{"type":"say","text":"hi"}`, `{"type":"noise"}`, `{"type":"broken"}`, `not json`, `[{"type":"say","text":"a"},{"type":"noise"}]`}, "\n")
	full, lean := accountKinds(t, in, true), accountKinds(t, in, false)
	require.NotEmpty(t, full.Kinds)
	assert.Empty(t, lean.Kinds)
	assert.Equal(t, full.Read, lean.Read)
	assert.Equal(t, full.Converted, lean.Converted)
	assert.Equal(t, full.Skipped, lean.Skipped)
	assert.Equal(t, full.Reasons, lean.Reasons)
}

func TestAccountingEveryRecordCountedOnce(t *testing.T) {
	in := strings.Join([]string{
		`{"no_type":1}`, // held until the format is known, then read: kind "-"
		`{"type":"say","text":"hi"}`,
		`{"type":"say","subtype":"loud","text":"HI"}`,
		`{"type":"noise"}`,
		`{"type":"noise"}`,
		`{"type":"pair"}`,
		`{"type":"meta"}`,
		`{"type":"delta"}`,
		`{"type":"broken"}`,
		`not json`,
		`[{"type":"say","text":"a"},{"type":"noise"}]`,
		``, // blank: no record
	}, "\n")
	a := account(t, in)
	assert.Equal(t, 12, a.Read, "11 lines, one an array of 2, the blank one no record")
	assert.Equal(t, a.Read, a.Converted+a.Skipped)
	assert.Equal(t, 5, a.Skipped, "3 noise, 1 broken, 1 not JSON")
	assert.Equal(t, map[string]KindCount{
		KindNone:   {Read: 2, Converted: 1, Skipped: 1, Quiet: 1}, // {"no_type":1}, and "not json"
		"say":      {Read: 2, Converted: 2, Entries: 3},           // the first also wrote init
		"say/loud": {Read: 1, Converted: 1, Entries: 1},
		"noise":    {Read: 3, Skipped: 3},
		"pair":     {Read: 1, Converted: 1, Entries: 1},
		"meta":     {Read: 1, Converted: 1, Quiet: 1},
		"delta":    {Read: 1, Converted: 1, Held: 1},
		"broken":   {Read: 1, Skipped: 1},
	}, a.Kinds)
	assert.Equal(t, map[Skip]int{
		{Kind: "noise", Reason: "noise"}:                               3,
		{Kind: "pair/extra", Reason: dialog.SkipDuplicate, Part: true}: 1,
		{Kind: "broken", Reason: ReasonBroken}:                         1,
		{Kind: KindNone, Reason: ReasonBroken}:                         1,
	}, a.Reasons)
}

func TestAccountingUnknownFormat(t *testing.T) {
	a := account(t, "{\"a\":1}\n{\"b\":2}\n")
	assert.Equal(t, Accounting{
		Read: 2, Skipped: 2,
		Kinds:   map[string]KindCount{KindNone: {Read: 2, Skipped: 2}},
		Reasons: map[Skip]int{{Kind: KindNone, Reason: ReasonUnknown}: 2},
	}, a)
}

func TestAccountingKindsBounded(t *testing.T) {
	var in strings.Builder
	for i := range maxKinds + 50 {
		in.WriteString(`{"type":"say","subtype":"k` + strconv.Itoa(i) + `","text":"t"}` + "\n")
	}
	in.WriteString(`{"type":"` + strings.Repeat("x", 1000) + `"}`)
	a := account(t, in.String())
	assert.Len(t, a.Kinds, maxKinds+1, "maxKinds, and the rest as one")
	assert.Equal(t, 51, a.Kinds[kindOther].Read)
	for k := range a.Kinds {
		assert.LessOrEqual(t, len(k), maxKindLen+len("…"))
	}
}

func TestAccountingAdd(t *testing.T) {
	var sum Accounting
	one := account(t, `{"type":"say","text":"a"}`+"\n"+`{"type":"noise"}`)
	sum.Add(one)
	sum.Add(one)
	assert.Equal(t, 4, sum.Read)
	assert.Equal(t, 2, sum.Skipped)
	assert.Equal(t, KindCount{Read: 2, Converted: 2, Entries: 4}, sum.Kinds["say"], "init and a message each")
	assert.Equal(t, 2, sum.Reasons[Skip{Kind: "noise", Reason: "noise"}])
}

func TestAccountingAdapterPanic(t *testing.T) {
	a := account(t, `{"type":"say","text":"a"}`+"\n"+`{"type":"panic"}`)
	assert.Equal(t, 1, a.Reasons[Skip{Kind: "panic", Reason: ReasonPanic}])
	assert.Equal(t, KindCount{Read: 1, Skipped: 1}, a.Kinds["panic"])
}

// What the file budget leaves out is counted too: entries not written once
// the file is full are their records' skips.
func TestAccountingBudgetFull(t *testing.T) {
	var in strings.Builder
	for range 3000 {
		in.WriteString(`{"type":"say","text":"` + strings.Repeat("w", 100) + `"}` + "\n")
	}
	var out bytes.Buffer
	c := New(&out, dialog.Options{Clock: testClock, MaxBytes: 100 << 10}, Options{Formats: []adapter.Format{typedFormat}, CountKinds: true})
	require.NoError(t, c.Feed(strings.NewReader(in.String()), "in"))
	require.NoError(t, c.Close(nil))
	a := c.Accounting()
	full := a.Reasons[Skip{Kind: "say", Reason: dialog.SkipBudgetFull}]
	assert.Greater(t, full, 0)
	assert.Equal(t, full, a.Kinds["say"].Skipped)
	assert.Equal(t, 3000, a.Kinds["say"].Read)
	assert.Equal(t, 3000-full, a.Kinds["say"].Entries-1, "the others wrote their message (the first, init too)")
}
