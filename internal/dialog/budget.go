package dialog

import (
	"fmt"
	"math"
)

// The file budget (Options.MaxBytes). The SSEBench web UI shows nothing of
// a finished run whose dialog is over 32 MiB, so the writer keeps the
// whole file under a budget without dropping an entry or leaving a call
// unpaired. Only text can give way: tool results and errors, the strings
// in tool args, messages, thinking, the prompt and complete's message (the
// cuttable text). Everything else (seq, ts, type, ids, names, numbers,
// object keys, cut markers, strings no longer than a marker) is written
// whole: the fixed part of an entry.
//
// The policy:
//   - A reserve is kept for what must come last: completeReserve for the
//     complete entry, and for each open tool call the entry that closes it
//     as an error (its fixed part is known when it starts).
//   - Cuttable text may take at most half of what is left after the
//     complete reserve (the text pool); the other half is for fixed parts.
//   - Each entry's text may use at most (f² / textShare) of the pool, where
//     f is the fraction of the pool still free: 1/256 of it while the file
//     is small (then --max-text decides), 1/1024 once half is used, and
//     less and less after, so text never runs out for later entries.
//     Messages, thinking and the prompt may use messageShare times that.
//   - Nothing may take the file past the budget less the reserves.
//   - The pace: an entry may take at most 1/(2n) of what is left, n the
//     entries written so far, as if twice as many entries were still to
//     come. An entry's text is cut to fit the pace (the strings of args,
//     results, messages); when even a cut marker does not fit, a tool's
//     args are left out ("args_cut": true) and its result or error text
//     too ("result_cut" / "error_cut": the bytes left out). So many small
//     entries shrink to their fixed heads as the file fills, and the heads
//     of 160,000 tool entries (an 80,000-call stream) fit in 30 MiB.
//   - The projection, when the input's size is known (Options.Progress: a
//     saved file, read fraction p): the rest of the input is projected to
//     ask for (1−p)/p times what the entries asked for so far (fixed parts
//     and text, whether written or cut: the rates seen so far), and the
//     full file's floor is kept besides; what is left beyond that, the
//     spare, may go to any entry: its pace and its share of text are at
//     least the spare. The text pool and the shares above bind only when
//     the projection leaves nothing spare. A saved input whose dialog fits
//     is then written whole; one that does not is cut as a stream is until
//     what is left covers what its rest asks for. The rate is what was
//     asked, not what was written, so that its own cuts never make an
//     input that does not fit look as if it did. The margin is the
//     progress's own: p counts what readers may hold ahead as unread
//     (convert's countInputs), so the projection runs over the rest by
//     about that buffer's share of what was read: much while little is
//     read, nothing at the end. (A saved stream file's buffer counts as
//     read: the entries of its first buffer may take more than a stream's.)
//   - Past that, the file is full: when less than fullFloor is left, or
//     the entries (with the closes of the open calls) would pass
//     MaxEntries, no new entry is written. Calls already started still end,
//     and before complete one message says what was cut and left out.
//
//   - Images (image.go) are never cut: each is carried whole when it fits
//     in what is left of the images' quarter of the budget and before the
//     reserves, else it is a placeholder, counted in the closing message.
//
// The file can still pass the budget only when entries' fixed parts alone
// (ids, names, keys) outgrow it; the writer then says so (Options.Warn,
// and the closing message).

const (
	// DefaultMaxBytes is the default budget of the whole dialog file.
	DefaultMaxBytes = 30 << 20

	// completeReserve is kept for the complete entry, whose fixed part is
	// at most about 1.5 KiB (int64 counters, a 100-byte reason, a cost),
	// and for the message before it that says what the budget cut (under
	// 1 KiB).
	completeReserve = 3 << 10
	// fullFloor is what is left when the file is full: no new entry (a
	// 32nd of a small budget).
	fullFloor = 64 << 10
	// closeReserve is the fixed part of the entry that closes an open call
	// as an error, beyond the call's id, name and parent.
	closeReserve = 400
	// textShare and messageShare set each entry's share of the text pool.
	textShare    = 256
	messageShare = 16
	// entryTail is kept, while a string is written, for what may follow it
	// in its entry (tokens, parent id, the closing brace).
	entryTail = 256
)

// budget tracks what the file has used. max 0 means no budget.
type budget struct {
	max     int64
	written int64 // bytes written
	text    int64 // bytes of cuttable text written, within its allowances
	reserve int64 // bytes kept to close the open tool calls
	// unkept is about how many bytes the budget cut or left out: the
	// entries asked for written+unkept (the projection's rate). A cut
	// string counts as held, up to --max-text.
	unkept  int64
	entries int // entries written
	// progress is the fraction of the input read, 0..1 (Options.Progress);
	// nil: unknown.
	progress func() float64

	images int64 // bytes of images written (see image.go)

	// What the budget cut and left out, for the closing message.
	argsCut, textCut, imagesCut int
	dropped                     dropped
}

// dropped counts the entries not written because the file was full.
type dropped struct{ calls, results, messages, thinking, prompts int }

func (d dropped) total() int { return d.calls + d.results + d.messages + d.thinking + d.prompts }

// pace is how many bytes the entry being built, n bytes long so far, may
// still take: 1/(2·entries) of what is left, or the spare when the
// input's progress projects more (< 0: no budget).
func (b *budget) pace(n int) int64 {
	if b.max <= 0 {
		return -1
	}
	left := b.left()
	allow := left / int64(2*max(b.entries, 1))
	if b.progress != nil {
		allow = max(allow, b.spare(left))
	}
	return allow - int64(n)
}

// left is what the file has left before the reserves.
func (b *budget) left() int64 { return b.max - completeReserve - b.reserve - b.written }

// spare is what is left beyond the file's floor and what the rest of the
// input is projected to ask for, (1−p)/p times what the entries asked for
// so far; 0 when p says nothing yet. p = 1 projects nothing more: the
// progress keeps p below 1 while a read-ahead buffer may still hold
// entries (convert counts it as unread), and the room still bounds each
// entry.
func (b *budget) spare(left int64) int64 {
	p := b.progress()
	if !(p > 0) || b.entries == 0 { // also NaN
		return 0
	}
	p = min(p, 1)
	need := float64(b.written+b.unkept)*(1-p)/p + float64(b.floor())
	if need >= float64(left) {
		return 0
	}
	return left - int64(need)
}

// full reports whether the file has no room for a new entry, open the
// given calls still to be closed.
func (b *budget) full(open int) bool {
	if b.max <= 0 {
		return false
	}
	return b.left() < b.floor() || b.entries+open+2 >= MaxEntries
}

// floor is what is left when the file is full.
func (b *budget) floor() int64 { return min(fullFloor, b.max/32) }

// share is how many bytes of cuttable text the next entry may hold (< 0:
// no budget); message says the text is the agent's words, not a tool's.
// The projection's spare raises it.
func (b *budget) share(message bool) int64 {
	if b.max <= 0 {
		return -1
	}
	s := b.poolShare(message)
	if b.progress != nil {
		s = max(s, b.spare(b.left()))
	}
	return s
}

// poolShare is the next entry's share of the text pool.
func (b *budget) poolShare(message bool) int64 {
	pool := (b.max - completeReserve) / 2
	left := pool - b.text
	if pool <= 0 || left <= 0 {
		return 0
	}
	f := float64(left) / float64(pool)
	s := int64(f * f * float64(pool) / textShare)
	if message {
		s *= messageShare
	}
	return s
}

// room is what the file has left for the entry being built, n bytes long
// so far, before it reaches the reserves.
func (b *budget) room(n int) int64 {
	return b.max - completeReserve - b.reserve - b.written - int64(n) - entryTail
}

// cutter cuts the strings of one entry: each to at most maxText decoded
// bytes (< 0: no cap), and all together to the entry's share of the file
// budget (share < 0: no budget). used counts the text they took.
type cutter struct {
	b       *budget
	maxText int
	// share is shareLater until a string long enough to cut needs it
	// (most entries have none, and skip budget.share's division); message
	// says which share it is.
	share   int64
	message bool
	used    int64
	final   bool // the complete entry: share is all it may take, past the reserves
	entry   int  // where the entry starts in the buffer it is built in
}

// shareLater is a cutter's share not worked out yet: the budget's share
// does not change while an entry is built (only finish moves it).
const shareLater = math.MinInt64

// maxCompleteTail is the most the fields after complete's message take.
const maxCompleteTail = 1 << 10

// allowance is how many bytes of output the next string may take under
// the file budget, with the entry n bytes long so far; < 0: no limit.
func (c *cutter) allowance(n int) int64 {
	switch {
	case c.share < 0:
		return -1
	case c.final:
		return max(0, c.share-c.used)
	}
	return max(0, min(c.share-c.used, c.b.room(n), c.b.pace(n)))
}

// appendText appends t as a string literal, cut to fit the entry's caps:
// maxText bytes of text, and, under the budget, what the entry's allowance
// leaves for the kept part as it is written (a marker always fits besides).
func (c *cutter) appendText(dst []byte, t Text) []byte {
	if t.len() <= maxMarkerLen {
		// Too short for a cut to save anything: a fixed part.
		return t.appendTo(dst, c.maxText, -1)
	}
	if c.share == shareLater {
		c.share = c.b.share(c.message)
	}
	if c.share < 0 { // no budget
		return t.appendTo(dst, c.maxText, -1)
	}
	start := len(dst)
	room := c.allowance(start - c.entry)
	keep := max(room-maxMarkerLen, 0)
	dst = t.appendTo(dst, c.maxText, int(min(keep, math.MaxInt32)))
	n := len(dst) - start
	c.spent(n, room)
	if int64(n) <= keep {
		return dst // not cut for the budget
	}
	// About what the budget cut: the text as held, up to --max-text.
	asked := t.len() + 2
	if c.maxText >= 0 {
		asked = min(asked, c.maxText+maxMarkerLen)
	}
	c.b.unkept += int64(max(asked-n, 0))
	return dst
}

// spent counts n bytes of text written under an allowance of room; what
// goes past it (a marker) is a fixed part.
func (c *cutter) spent(n int, room int64) { c.used += min(int64(n), room) }

// sizeText says a byte count the way the limits are documented.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
