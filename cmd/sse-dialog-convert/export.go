package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/command"
	"github.com/ssebench/sse-dialog-convert/internal/convert"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
)

func newExportCmd(streams *cli.Streams) *cobra.Command {
	var o command.ExportOptions
	cmd := &cobra.Command{
		Use:   "export --html [-o OUT.html | --out-dir DIR] FILE...",
		Short: "Write dialogs as self-contained HTML pages that work offline",
		Long: `export --html writes each dialog as one HTML file that needs nothing else: its
style and script are inline, a strict Content-Security-Policy lets nothing load,
and it works from file://. It has the timeline with subagents nested, tool calls
merged with their results, edits as diffs, search across all text, filters
(by kind, tool name, subagent, errors), each response's tokens and time, a
prompt index and a timeline of lanes (i), keyboard navigation (j/k, /), copy
buttons, a permalink per entry (#seq-42), and a print or PDF with every entry.

FILE is a dialog.jsonl, or any input the converter reads, converted on the fly.
One FILE goes to -o OUT.html (- for stdout), else to its base name with .html
in the current folder. With --out-dir each FILE becomes DIR/<name>.html, plus
DIR/index.html: the stats command's table of the runs with their totals,
sortable, filterable, each row linking to its page. --redact masks every
match of a regular expression in every string before anything is written.`,
		Example: `  sse-dialog-convert export --html -o run.html "$SSE_ARCHIVE/dialog.jsonl"
  sse-dialog-convert export --html --out-dir report/ runs/*/dialog.jsonl
  sse-dialog-convert export --html --redact 'sk-[A-Za-z0-9_-]+' --redact '/home/[^/]+' transcript.jsonl`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.Usagef("export needs at least one FILE")
			}
			return nil
		},
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return command.Export(cmd.Context(), o, args, streams, viewSources(streams), exportPages())
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.HTML, "html", false, "write HTML (the only format for now; required)")
	f.StringVarP(&o.Output, "output", "o", "", "write the page to `PATH` (- for stdout); one FILE only")
	f.StringVar(&o.OutDir, "out-dir", "", "write one page per FILE into `DIR`, plus index.html")
	f.StringArrayVar(&o.Redact, "redact", nil, "mask every match of `REGEX` in every string (repeatable)")
	o.MaxText = dialog.DefaultMaxText
	f.Var(cli.SizeValue[int]{P: &o.MaxText}, "max-text", command.MaxTextUsage)
	return cmd
}

// exportPages is what export asks of the batch: its page names, its guard
// against writing over an input, its temporary files' prefix.
func exportPages() command.ExportPages {
	return command.ExportPages{Names: pageNames, RefuseOverwrite: refusePagesOverInputs, TempPrefix: convert.BatchTempPrefix}
}

// refusePagesOverInputs is command.ExportPages.RefuseOverwrite.
func refusePagesOverInputs(files, outs []string, index string, stdin io.Reader) error {
	var ins, pages []inputs.NamedFile
	for i, file := range files {
		if file == "-" {
			ins = append(ins, inputs.StdinFile(stdin))
		} else {
			ins = append(ins, inputs.StatFile("the input", file))
		}
		if outs[i] != "-" {
			pages = append(pages, inputs.StatFile("the page", outs[i]))
		}
	}
	if index != "" {
		pages = append(pages, inputs.StatFile("the index", index))
	}
	return inputs.RefuseOverwrite(pages, ins)
}

// pageNames gives each FILE its page's name: the name the batch mode gives
// its dialog (clashes told apart the same way), without .dialog.jsonl (and
// a .dialog the input already had), plus .html. In a folder "index" stays
// the index's.
func pageNames(files []string, inDir bool) []string {
	names := inputs.DialogNames(files)
	for i, n := range names {
		n = strings.TrimSuffix(strings.TrimSuffix(n, inputs.DialogSuffix), ".dialog")
		if files[i] == "-" {
			n = "stdin"
		}
		if inDir && strings.EqualFold(n, "index") {
			n += "-page"
		}
		names[i] = n + ".html"
	}
	return names
}
