package convert

import (
	"fmt"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
)

// wrongFormat says what is wrong when the input is not in a format the
// conversion could use, or "" when it is (or when there was nothing to
// judge: no JSON object at all). format is --format; input names the input.
//
//   - --format given, and no object was one of its events: "no codex events
//     in x.jsonl; it looks like Claude Code stream-json (--format claude)";
//   - auto, and the input is a format recognised but not converted: "d.jsonl
//     looks like an SSEBench dialog (…), not an input it converts";
//   - auto, and no format knew any object: "no events of a format it reads (claude, codex, …) in x.jsonl; …".
func wrongFormat(conv *dispatch.Converter, format, input string) string {
	st := conv.Stats()
	if st.Records+st.Unknown == 0 {
		return ""
	}
	looks := "its records are JSON objects of no known format"
	if f, ok := conv.LooksLike(); ok {
		looks = "it looks like " + f.Title
		if f.New != nil {
			looks += fmt.Sprintf(" (--format %s)", f.Name)
		}
	}
	chosen, known := conv.Format()
	input = cli.QuoteName(input)
	switch {
	case format != "auto" && format != "":
		if st.Recognised == 0 {
			return fmt.Sprintf("no %s events in %s; %s", format, input, looks)
		}
		// The format asked for is there: it is converted as asked.
	case known && chosen.New == nil:
		return fmt.Sprintf("%s looks like %s, not an input it converts", input, chosen.Title)
	case !known:
		return fmt.Sprintf("no events of a format it reads (%s) in %s; %s", inputs.FormatList(registry.Readable()), input, looks)
	}
	return ""
}

// ReasonWrongFormat is complete.reason when --format forced a format none
// of whose events the input held.
const ReasonWrongFormat = "wrong_format"

// forcedEnding is how a dialog ends whose format was forced (--format)
// when the input held objects and none was an event of that format: in
// error, whatever the adapter made of the others (an object of another
// format may look like its ending), or nil when the format's events were
// there, or nothing was there to judge.
func forcedEnding(conv *dispatch.Converter, copt dispatch.Options) *dialog.Ending {
	if !copt.Forced || len(copt.Formats) == 0 {
		return nil
	}
	if st := conv.Stats(); st.Records+st.Unknown == 0 || st.Recognised > 0 {
		return nil
	}
	return &dialog.Ending{Status: dialog.StatusError, Reason: ReasonWrongFormat,
		Message: fmt.Sprintf("--format %s: the input held no %s events", copt.Formats[0].Name, copt.Formats[0].Name)}
}
