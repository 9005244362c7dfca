package convert

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
)

// --stats: what became of every input record, told on stderr once the
// conversion is over: as text (--stats), or as one JSON object on the last
// line of stderr (--stats=json), for scripts.
const (
	StatsText = "text"
	StatsJSON = "json"
)

// FileStats is what became of the records of one dialog's input.
type FileStats struct {
	input, dialog string
	format        string // the format the input was read as ("" when none)
	acc           dispatch.Accounting
	entries       int
}

// StatsOf is the stats of the job that converted input (dialog: where its
// dialog went, "" when not told).
func StatsOf(input, dialog string, r Result) *FileStats {
	return &FileStats{input: input, dialog: dialog, format: r.Format, acc: r.Accounting, entries: r.Entries}
}

// batchStats gathers the files' stats of a batch, in argument order
// whatever order they finish in.
type batchStats struct {
	mu    sync.Mutex
	files []*FileStats
}

func (b *batchStats) add(i int, s *FileStats) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.files[i] = s
}

// TellStats tells the stats of files, summed, on w in mode; with
// --stats=json and more than one file (a batch), each file's too.
func TellStats(w io.Writer, mode string, files []*FileStats, batch bool) {
	var sum FileStats
	sum.acc.Add(dispatch.Accounting{})
	n, formats := 0, map[string]bool{}
	for _, f := range files {
		if f != nil {
			formats[f.format] = true
		}
	}
	for _, f := range files {
		if f == nil {
			continue // failed before it was read, or not started
		}
		n++
		if len(formats) > 1 {
			// Kinds are each format's own names: two formats' "message"
			// are not one kind.
			sum.acc.Add(prefixKinds(f.acc, f.format))
		} else {
			sum.acc.Add(f.acc)
		}
		sum.entries += f.entries
	}
	if mode == StatsJSON {
		top := statsObject(&sum)
		if !batch && n == 1 {
			top.Input, top.Format = files[0].input, files[0].format
		}
		if batch {
			each := make([]statsJSONObject, 0, n)
			for _, f := range files {
				if f != nil {
					o := statsObject(f)
					o.Input, o.Dialog, o.Format = f.input, f.dialog, f.format
					each = append(each, o)
				}
			}
			top.Files = &each
		}
		b, err := json.Marshal(top)
		if err == nil {
			fmt.Fprintf(w, "%s\n", b)
		}
		return
	}
	writeStatsText(w, &sum, batch, n)
}

// prefixKinds returns acc with each kind named format:kind.
func prefixKinds(acc dispatch.Accounting, format string) dispatch.Accounting {
	if format == "" {
		format = "unknown"
	}
	out := acc
	out.Kinds = make(map[string]dispatch.KindCount, len(acc.Kinds))
	for k, c := range acc.Kinds {
		out.Kinds[format+":"+k] = c
	}
	out.Reasons = make(map[dispatch.Skip]int, len(acc.Reasons))
	for s, n := range acc.Reasons {
		s.Kind = format + ":" + s.Kind
		out.Reasons[s] = n
	}
	return out
}

// statsJSONObject is --stats=json's object: the records read, converted and
// skipped; the entries written; per kind of record, its counts; each
// reason records were skipped for (records: whole records; parts: parts
// of records converted otherwise); and, for a batch, each file's object.
type statsJSONObject struct {
	Input     string                   `json:"input,omitempty"`
	Dialog    string                   `json:"dialog,omitempty"`
	Format    string                   `json:"format,omitempty"`
	Read      int                      `json:"read"`
	Converted int                      `json:"converted"`
	Skipped   int                      `json:"skipped"`
	Entries   int                      `json:"entries"`
	Kinds     map[string]statsJSONKind `json:"kinds"`
	Skips     []statsJSONSkip          `json:"skips"`
	Files     *[]statsJSONObject       `json:"files,omitempty"`
}

type statsJSONKind struct {
	Read      int `json:"read"`
	Converted int `json:"converted"`
	Skipped   int `json:"skipped"`
	Held      int `json:"held"`
	Entries   int `json:"entries"`
}

type statsJSONSkip struct {
	Kind    string `json:"kind"`
	Reason  string `json:"reason"`
	Records int    `json:"records"`
	Parts   int    `json:"parts"`
}

func statsObject(f *FileStats) statsJSONObject {
	o := statsJSONObject{
		Read: f.acc.Read, Converted: f.acc.Converted, Skipped: f.acc.Skipped, Entries: f.entries,
		Kinds: map[string]statsJSONKind{}, Skips: []statsJSONSkip{},
	}
	for k, c := range f.acc.Kinds {
		o.Kinds[k] = statsJSONKind{Read: c.Read, Converted: c.Converted, Skipped: c.Skipped, Held: c.Held, Entries: c.Entries}
	}
	o.Skips = append(o.Skips, mergedSkips(f.acc)...)
	return o
}

// mergedSkips lists the reasons records were skipped for, by kind and
// reason, whole records and parts together.
func mergedSkips(acc dispatch.Accounting) []statsJSONSkip {
	var out []statsJSONSkip
	for _, s := range acc.SortedSkips() {
		n := acc.Reasons[s]
		if len(out) > 0 && out[len(out)-1].Kind == s.Kind && out[len(out)-1].Reason == s.Reason {
			if s.Part {
				out[len(out)-1].Parts += n
			} else {
				out[len(out)-1].Records += n
			}
			continue
		}
		m := statsJSONSkip{Kind: s.Kind, Reason: s.Reason}
		if s.Part {
			m.Parts = n
		} else {
			m.Records = n
		}
		out = append(out, m)
	}
	return out
}

func writeStatsText(w io.Writer, f *FileStats, batch bool, files int) {
	var b strings.Builder
	head := ""
	if batch {
		head = cli.Plural(files, "file") + ": "
	}
	fmt.Fprintf(&b, "%s: stats: %s%s read: %d converted, %d skipped; %s written\n",
		cli.Program, head, cli.Plural(f.acc.Read, "record"), f.acc.Converted, f.acc.Skipped, cli.Plural(f.entries, "entry"))
	kinds := f.acc.SortedKinds()
	if len(kinds) > 0 {
		width := len("kind")
		for _, k := range kinds {
			width = max(width, len(k))
		}
		fmt.Fprintf(&b, "  %-*s %9s %9s %9s %9s %9s\n", width, "kind", "read", "converted", "skipped", "held", "entries")
		for _, k := range kinds {
			c := f.acc.Kinds[k]
			fmt.Fprintf(&b, "  %-*s %9d %9d %9d %9d %9d\n", width, k, c.Read, c.Converted, c.Skipped, c.Held, c.Entries)
		}
	}
	if skips := mergedSkips(f.acc); len(skips) > 0 {
		b.WriteString("  skipped, by kind and reason:\n")
		for _, s := range skips {
			var what []string
			if s.Records > 0 {
				what = append(what, cli.Plural(s.Records, "record"))
			}
			if s.Parts > 0 {
				what = append(what, cli.Plural(s.Parts, "part")+" of records converted otherwise")
			}
			fmt.Fprintf(&b, "    %s: %s: %s\n", s.Kind, s.Reason, strings.Join(what, ", "))
		}
	}
	_, _ = io.WriteString(w, b.String())
}

// FormatOf names the format conv read its input as; "" when none.
func FormatOf(conv *dispatch.Converter) string {
	if f, ok := conv.Format(); ok {
		return f.Name
	}
	return ""
}

// NothingConverted says, when an input's records were all skipped and some
// under a reason an adapter gave (a format it recognised but whose records
// it does not read, such as a chat document), that nothing was converted
// and why: without it the dialog would be empty with no word said. Broken
// and unknown records are told already, line by line.
func NothingConverted(acc dispatch.Accounting) string {
	if acc.Converted > 0 || acc.Skipped == 0 {
		return ""
	}
	var why []string
	for _, s := range mergedSkips(acc) {
		switch s.Reason {
		case dispatch.ReasonBroken, dispatch.ReasonUnknown, dispatch.ReasonUnread:
			continue
		}
		if s.Records > 0 {
			why = append(why, fmt.Sprintf("%s: %s: %d", s.Kind, s.Reason, s.Records))
		}
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("no record converted, %s skipped (%s)", cli.Plural(acc.Skipped, "record"), strings.Join(why, "; "))
}
