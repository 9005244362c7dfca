// Package adapter is what every input format implements, and the small kit
// adapters read their input with. A format is one package that exports a
// Format; the registry (internal/registry) lists them.
//
// An adapter sees one Event at a time: a JSON object of its input, checked
// and framed by the pipeline. Its values are views of the pipeline's buffer,
// valid only during the Event call; anything kept longer is converted to a
// Go string (Str, String), which copies. The kit's tests
// (internal/adaptertest) overwrite that buffer after every call, so
// an adapter that keeps a view is caught.
package adapter

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Event is one JSON object of the input. Its accessors (Get, Members, …)
// are those of jsonraw.Value.
type Event struct {
	jsonraw.Value
}

// Adapter turns the events of one input format into calls on a
// dialog.Writer. A new Adapter is made per dialog, so it may keep state
// across events.
type Adapter interface {
	// Event handles one event. Unknown events are skipped without an
	// error; an error means the event was malformed, and is reported.
	Event(ev Event) error
	// Summary is what the complete entry says, given everything seen.
	Summary() dialog.Summary
}

// Finisher is an Adapter that holds entries back until it knows they are
// whole (a text joined from deltas, ended by the next event): Finish writes
// them, once, when the input has ended. Summary must not write.
type Finisher interface {
	Finish()
}

// Claim is how sure a format is that an event is one of its own.
type Claim uint8

// The claims of Format.Detect.
const (
	No    Claim = iota // not an event of this format
	Maybe              // could be one; other formats' events look the same
	Yes                // an event of this format and of no other
)

// Format is one input format.
type Format struct {
	// Name is the --format value, e.g. "claude".
	Name string
	// Title is what users call the input, for help and messages, e.g.
	// "Claude Code stream-json".
	Title string
	// Agent is init.data.agent when the stream does not say.
	Agent string
	// Detect says whether an event is one of this format's: Yes only for
	// events no other format prints (detection takes the first Yes).
	Detect func(ev Event) Claim
	// New returns the adapter for one dialog; nil for a format that is
	// recognised but not read yet (detection then says what the input is).
	New func(w *dialog.Writer) Adapter
	// Commands are the names of the agent's command (for run: the base
	// name of COMMAND tells which format to expect).
	Commands []string
	// ModelFromArgs, when set, returns the model a command line of the
	// agent asks for ("" when it names none), for init when the stream
	// does not say (run).
	ModelFromArgs func(args []string) string
	// Inputs, when set, reads a path given as FILE that is this format's in
	// a way the line stream alone cannot say (a folder of session files, a
	// session file with its subagents' files beside it): ok is false when
	// the path is not such; each Input is then one dialog.
	Inputs func(path string) (inputs []Input, ok bool, err error)
	// ClaimedInputs, when set, is Inputs for a regular file whose first
	// records the caller has read already and seen Detect claim as surely
	// this format's (Yes, within what sessionfile.Claims reads): the file
	// is not opened again to ask.
	ClaimedInputs func(path string) ([]Input, error)
}

// Start returns the format's adapter for the dialog w writes, init's
// agent set to the format's Agent (the stream may say more): the one way
// the pipeline and the kit make an adapter.
func (f Format) Start(w *dialog.Writer) Adapter {
	w.SetAgent(f.Agent)
	return f.New(w)
}

// Input is one dialog's input, made by Format.Inputs.
type Input struct {
	// Name names the input in messages and, with --out-dir, the dialog.
	Name string
	// Open returns the stream to convert. A stream that knows how much
	// of the input's files it has read is a ReadCounter.
	Open func() (io.ReadCloser, error)
	// OpenLimited, when set, is Open for a conversion that holds no line
	// longer than maxLine bytes (frame.Options.MaxLine: 0 the default,
	// < 0 no limit): a format that reads its files' lines itself before
	// the pipeline does (a session's parentUuid scan) honours --max-line.
	OpenLimited func(maxLine int64) (io.ReadCloser, error)
}

// ReadCounter is a stream Input.Open returned that counts how much of the
// input's files it has read, so that the file budget's pace can project
// what the rest needs (dialog.Options.Progress).
type ReadCounter interface {
	// ReadCount returns read, the bytes read so far from the input's
	// files as they are stored (before decompression); size, the sum of
	// their sizes; and ahead, the most of read that the stream's readers
	// may hold not yet returned (their read-ahead buffers). size counts
	// a file before the stream returns anything read from it, and as
	// soon as the format knows of it: a Claude session's subagents' files
	// from the start, a Gemini chat's once its header names their folder.
	// It may be called from another goroutine than the stream's reader.
	ReadCount() (read, size, ahead int64)
}

// LineError is an event's problem that lies at a line of a file other
// than the stream's line: a format that merges several files into one
// stream (a session and its subagents) says where the bad line really
// is, and the pipeline reports it there. Line 0: the whole file. Error
// is the problem alone; File and Line say where.
type LineError struct {
	File string
	Line int
	Err  error
}

func (e *LineError) Error() string { return e.Err.Error() }

func (e *LineError) Unwrap() error { return e.Err }

// The type rule for flags, in every adapter: a value of the wrong JSON type
// ("true" as a string, 1, an object) never passes for success.

// FailureFlag reads a flag that marks a failure, such as is_error: set by
// anything but false, null or absence.
func FailureFlag(v jsonraw.Value) bool { return !v.IsNull() && !v.IsFalse() }

// FlagNote says why a flag that is not a JSON boolean (the string
// "false", 0, an object) was read as FailureFlag reads it: for the
// ending's message, so that an error nobody reported is not taken for the
// agent's. It is "" for true, false, null and absence. name is the flag's
// key.
func FlagNote(v jsonraw.Value, name string) string {
	if !v.Exists() || v.IsNull() || v.IsTrue() || v.IsFalse() {
		return ""
	}
	lit := string(v.Bytes())
	if len(lit) > 40 {
		lit = strings.ToValidUTF8(lit[:40], "") + "…"
	}
	return fmt.Sprintf("%s is %s, not a JSON boolean: read as an error", name, lit)
}

// SuccessFlag reads a flag that marks success, such as success: true, null
// and absence hold (no verdict); false or a value of another type is a
// failure.
func SuccessFlag(v jsonraw.Value) bool { return v.IsNull() || v.IsTrue() }

// Time reads a timestamp: an RFC 3339 string, or a number of milliseconds
// since the Unix epoch (as opencode and Cursor print them).
func Time(v jsonraw.Value) (time.Time, bool) {
	switch v.Kind() {
	case jsonraw.String:
		return parseRFC3339(v.Body())
	case jsonraw.Number:
		ms, ok := v.Integer()
		if !ok || ms < 0 || ms > maxMillis {
			return time.Time{}, false
		}
		return time.UnixMilli(ms).UTC(), true
	}
	return time.Time{}, false
}

// maxMillis is the last millisecond of year 9999: later times have no
// four-digit year.
const maxMillis = 253402300799999

// parseRFC3339 reads an RFC 3339 timestamp. The common form
// (2026-01-02T03:04:05.678Z) is read here without allocating; anything else
// goes to the time package.
func parseRFC3339(b []byte) (time.Time, bool) {
	if t, ok := parseUTCMillis(b); ok {
		return t, true
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// parseUTCMillis reads YYYY-MM-DDThh:mm:ss[.fff…]Z.
func parseUTCMillis(b []byte) (time.Time, bool) {
	if len(b) < 20 || b[len(b)-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	num := func(s []byte) (int, bool) {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	year, ok1 := num(b[0:4])
	month, ok2 := num(b[5:7])
	day, ok3 := num(b[8:10])
	hour, ok4 := num(b[11:13])
	minute, ok5 := num(b[14:16])
	sec, ok6 := num(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := b[19 : len(b)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		n, ok := num(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			n *= 10
		}
		nsec = n
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	if t.Day() != day { // February 30th and the like
		return time.Time{}, false
	}
	return t, true
}
