package dialogread

import (
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// Format is the dialog protocol as an input: recognised, not converted
// (it has no adapter). Given a dialog where agent output was expected, the
// converter names it instead of reading its message entries as another
// format's (Gemini's stream also has type "message" with a role).
func Format() adapter.Format {
	return adapter.Format{
		Name:   "dialog",
		Title:  "an SSEBench dialog (this converter's output: view or validate it)",
		Detect: Detect,
	}
}

// Detect claims an entry of the protocol: an object whose seq is a
// number and whose ts and type are strings. No agent prints "seq" and
// "ts" together.
func Detect(ev adapter.Event) adapter.Claim {
	var seq, ts, typ jsonraw.Value
	ev.Pick([]string{"seq", "ts", "type"}, &seq, &ts, &typ)
	if seq.Kind() == jsonraw.Number && ts.IsString() && typ.IsString() {
		return adapter.Yes
	}
	return adapter.No
}

// IsWarning reports whether the entry is a message that shows a warning
// (dialog.WarningPrefix), which view and export mark as such.
func (e *Entry) IsWarning() bool {
	return e.Type == "message" && strings.HasPrefix(e.Content, dialog.WarningPrefix)
}
