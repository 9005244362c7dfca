package main

import (
	"fmt"

	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
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
	input = quoteName(input)
	switch {
	case format != "auto" && format != "":
		if st.Recognised == 0 {
			return fmt.Sprintf("no %s events in %s; %s", format, input, looks)
		}
		// The format asked for is there: it is converted as asked.
	case known && chosen.New == nil:
		return fmt.Sprintf("%s looks like %s, not an input it converts", input, chosen.Title)
	case !known:
		return fmt.Sprintf("no events of a format it reads (%s) in %s; %s", formatList(registry.Readable()), input, looks)
	}
	return ""
}
