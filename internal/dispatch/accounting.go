package dispatch

import (
	"maps"
	"slices"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Accounting says what became of every record a conversion read: each is
// converted (it wrote an entry, or gave init or complete what they say),
// or skipped under a named reason. Records are counted by kind, the
// format's own name for the record (Claude "assistant", Codex
// "item.completed/command_execution"), so a user sees which kinds were
// dropped, and why.
type Accounting struct {
	// Read counts the records: lines and the objects of an array line
	// (blank lines aside).
	Read int
	// Converted counts the records that gave the dialog something.
	Converted int
	// Skipped counts the records that gave it nothing, each once under
	// the first reason it was skipped for.
	Skipped int
	// Kinds holds the counts of each kind of record the format read, when
	// Options.CountKinds asks for them (naming every record's kind costs
	// a walk of its members, which a conversion needs only for --stats).
	Kinds map[string]KindCount
	// Reasons counts every skip by kind and reason: whole records and
	// parts of records that were converted otherwise (Skip.Part).
	Reasons map[Skip]int
}

// KindCount is what became of the records of one kind.
type KindCount struct {
	Read, Converted, Skipped int
	// Entries counts the dialog entries the kind's records wrote.
	Entries int
	// Held counts the records of the kind whose content went into an
	// entry written later (dialog.Writer.Hold): text joined from deltas,
	// a session's messages written once it is read.
	Held int
	// Quiet counts the records of the kind that were converted without
	// writing an entry and without being held: their facts went into init
	// or complete. For a kind that carries the conversation, a quiet
	// record is one to look at: it may have been dropped silently.
	Quiet int
}

// Skip is a reason records were skipped for, and their kind.
type Skip struct {
	Kind, Reason string
	// Part says the record was converted but for what is skipped here (a
	// content block, a duplicate part).
	Part bool
}

// The reasons the pipeline itself skips records for, before an adapter
// sees them.
const (
	ReasonBroken  = "broken"          // not JSON, not an object, too deep, too long, or malformed for its format
	ReasonUnknown = "unknown format"  // a JSON object no format reads as its own
	ReasonUnread  = "format not read" // a format recognised, not converted (a dialog.jsonl given as input)
	ReasonPanic   = "internal error"  // the adapter failed on it (a bug, reported)
)

// KindNone is the kind of a record whose format gives it no type name,
// and of records skipped before any format read them.
const KindNone = "-"

// maxKinds bounds the kinds counted one by one, and maxKindLen the length
// of a kind's name: both come from the input. The rest are counted under
// kindOther.
const (
	maxKinds   = 200
	maxKindLen = 80
	kindOther  = "(other kinds)"
)

// accounts is the running accounting of a Converter.
type accounts struct {
	acc   Accounting
	kinds bool              // count every record by kind (Options.CountKinds)
	names map[string]string // the kinds' names, made once each
	buf   []byte
	// the record being converted, and its kind once named (kindOf)
	rec     jsonraw.Value
	kind    string
	named   bool
	skipped string // the first reason it was skipped for, if any
	whole   bool   // a skip with no kind of its own: the whole record
	held    bool   // its content is held for a later entry
}

func (t *accounts) init() {
	t.names = map[string]string{}
	t.acc.Kinds = map[string]KindCount{}
	t.acc.Reasons = map[Skip]int{}
}

// begin starts the accounting of one record, v: its kind is named when a
// count needs it (kindOf). v is valid until end.
func (t *accounts) begin(v jsonraw.Value) {
	t.rec, t.kind, t.named = v, "", false
	t.skipped, t.whole, t.held = "", false, false
}

// kindOf names the kind of the record being converted (recordKind), once.
func (t *accounts) kindOf() string {
	if !t.named {
		t.kind, t.named = t.name(recordKind(t.rec)), true
	}
	return t.kind
}

// skip counts an adapter's Skip of the record being converted, or of a
// part of it (kind not "").
func (t *accounts) skip(kind, reason string) {
	if kind == "" {
		kind = t.kindOf()
		if t.skipped == "" {
			t.skipped, t.whole = reason, true
		}
	} else {
		kind = t.cap(kind)
		if t.skipped == "" {
			t.skipped = reason
		}
	}
	t.acc.Reasons[Skip{Kind: kind, Reason: reason, Part: true}]++ // made whole in end, if it is
}

// end closes the record's accounting: entries is how many entries it
// wrote. A record that wrote none and was skipped, in whole or in part,
// is skipped; any other record is converted.
func (t *accounts) end(entries int) {
	var k KindCount
	if t.kinds {
		k = t.acc.Kinds[t.kindOf()]
	}
	k.Read++
	k.Entries += entries
	t.acc.Read++
	switch {
	case entries == 0 && t.held:
		k.Converted++
		k.Held++
		t.acc.Converted++
	case entries == 0 && t.skipped != "":
		k.Skipped++
		t.acc.Skipped++
		if t.whole {
			// The record's own skip was counted as a part: it is the record's.
			t.move(Skip{Kind: t.kind, Reason: t.skipped, Part: true}, Skip{Kind: t.kind, Reason: t.skipped})
		}
	case entries == 0:
		k.Converted++
		k.Quiet++
		t.acc.Converted++
	default:
		k.Converted++
		t.acc.Converted++
	}
	if t.kinds {
		t.acc.Kinds[t.kind] = k
	}
	t.rec = jsonraw.Value{}
}

// move counts one skip under to rather than from.
func (t *accounts) move(from, to Skip) {
	if t.acc.Reasons[from]--; t.acc.Reasons[from] == 0 {
		delete(t.acc.Reasons, from)
	}
	t.acc.Reasons[to]++
}

// dropped counts a record skipped before an adapter read it.
func (t *accounts) dropped(reason string) {
	if t.kinds {
		k := t.acc.Kinds[KindNone]
		k.Read++
		k.Skipped++
		t.acc.Kinds[KindNone] = k
	}
	t.acc.Read++
	t.acc.Skipped++
	t.acc.Reasons[Skip{Kind: KindNone, Reason: reason}]++
}

// undrop takes back a record counted as skipped for reason before an
// adapter read it: it is read now (a held record replayed).
func (t *accounts) undrop(reason string) {
	if t.kinds {
		k := t.acc.Kinds[KindNone]
		k.Read--
		k.Skipped--
		if k == (KindCount{}) {
			delete(t.acc.Kinds, KindNone)
		} else {
			t.acc.Kinds[KindNone] = k
		}
	}
	t.acc.Read--
	t.acc.Skipped--
	s := Skip{Kind: KindNone, Reason: reason}
	if t.acc.Reasons[s]--; t.acc.Reasons[s] == 0 {
		delete(t.acc.Reasons, s)
	}
}

// name returns the kind of a record whose type is typ, and finer type
// sub (see recordKind), as counted: made into a string once per kind.
func (t *accounts) name(typ, sub []byte) string {
	if typ == nil {
		return KindNone
	}
	t.buf = append(t.buf[:0], typ...)
	if sub != nil {
		t.buf = append(t.buf, '/')
		t.buf = append(t.buf, sub...)
	}
	if n, ok := t.names[string(t.buf)]; ok {
		return n
	}
	n := t.cap(strings.ToValidUTF8(string(t.buf), "\uFFFD"))
	if len(t.names) < 4*maxKinds {
		t.names[string(t.buf)] = n
	}
	return n
}

// cap returns kind as counted: cut to maxKindLen, and kindOther once
// maxKinds kinds are counted.
func (t *accounts) cap(kind string) string {
	if len(kind) > maxKindLen {
		kind = strings.ToValidUTF8(kind[:maxKindLen], "") + "…"
	}
	if _, ok := t.acc.Kinds[kind]; !ok && len(t.acc.Kinds) >= maxKinds {
		return kindOther
	}
	return kind
}

// copy returns the accounting so far, its maps the caller's own.
func (t *accounts) copy() Accounting {
	a := t.acc
	a.Kinds = maps.Clone(t.acc.Kinds)
	a.Reasons = maps.Clone(t.acc.Reasons)
	return a
}

// recordKind names the kind of a record in its format's own words: its
// "type" (Codex's legacy lines: "msg"."type"), and after a slash the finer
// type the format gives beside it: "subtype" (Claude, Cursor), "item"."type"
// or "item"."item_type" (Codex), "payload"."type" (Codex rollouts), "part"."type" (opencode) or
// "properties"."part"."type" (opencode's event bus) or "event"."type"
// (Claude's partial messages). KindNone when the
// record has no type.
func recordKind(v jsonraw.Value) (kind []byte, sub []byte) {
	var typ, msg, subtype, item, payload, part, props, event jsonraw.Value
	v.Pick([]string{"type", "msg", "subtype", "item", "payload", "part", "properties", "event"},
		&typ, &msg, &subtype, &item, &payload, &part, &props, &event)
	if !typ.IsString() && msg.IsObject() {
		typ = msg.Get("type")
	}
	if !typ.IsString() {
		return nil, nil
	}
	for _, s := range []jsonraw.Value{subtype, item.Get("type"), item.Get("item_type"), payload.Get("type"), part.Get("type"), props.Get("part").Get("type"), event.Get("type")} {
		if s.IsString() {
			return typ.Body(), s.Body()
		}
	}
	return typ.Body(), nil
}

// SortedKinds returns the accounting's kinds in order.
func (a Accounting) SortedKinds() []string {
	return slices.Sorted(maps.Keys(a.Kinds))
}

// SortedSkips returns the accounting's skips, by kind, then reason, whole
// records before parts.
func (a Accounting) SortedSkips() []Skip {
	return slices.SortedFunc(maps.Keys(a.Reasons), func(x, y Skip) int {
		switch {
		case x.Kind != y.Kind:
			return cmpString(x.Kind, y.Kind)
		case x.Reason != y.Reason:
			return cmpString(x.Reason, y.Reason)
		case x.Part == y.Part:
			return 0
		case y.Part:
			return -1
		}
		return 1
	})
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Add adds b's counts to a's (a batch's sum).
func (a *Accounting) Add(b Accounting) {
	if a.Kinds == nil {
		a.Kinds = map[string]KindCount{}
	}
	if a.Reasons == nil {
		a.Reasons = map[Skip]int{}
	}
	a.Read += b.Read
	a.Converted += b.Converted
	a.Skipped += b.Skipped
	for k, n := range b.Kinds {
		m := a.Kinds[k]
		m.Read += n.Read
		m.Converted += n.Converted
		m.Skipped += n.Skipped
		m.Entries += n.Entries
		m.Held += n.Held
		m.Quiet += n.Quiet
		a.Kinds[k] = m
	}
	for s, n := range b.Reasons {
		a.Reasons[s] += n
	}
}
