package inputs

import (
	"slices"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
)

// What the command line says about formats comes from the registry: add
// a format there and its --format value, help, completion and messages
// follow.

// PickFormats returns the formats --format allows, whether it forces the
// first of them, or false for an unknown name. A forced format comes with
// the others after it: they say what an input looks like when it is not
// the forced format's.
func PickFormats(name string) (fmts []adapter.Format, forced, ok bool) {
	if name == "auto" || name == "" {
		return registry.All(), false, true
	}
	f, ok := registry.Lookup(name)
	if !ok || f.New == nil {
		return nil, false, false
	}
	fmts = []adapter.Format{f}
	for _, g := range registry.All() {
		if g.Name != f.Name {
			fmts = append(fmts, g)
		}
	}
	return fmts, true, true
}

// FormatValues are --format's values: auto, then every format read.
func FormatValues() []string {
	vals := []string{"auto"}
	for _, f := range registry.Readable() {
		vals = append(vals, f.Name)
	}
	return vals
}

// FormatNames lists --format's values: "auto, claude, codex, …".
func FormatNames() string { return strings.Join(FormatValues(), ", ") }

// FormatList lists formats by name: "claude, codex, gemini".
func FormatList(fs []adapter.Format) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// AgentNames lists the formats' init.data.agent values, each once:
// "claude-code, codex, …".
func AgentNames() string {
	var names []string
	for _, f := range registry.Readable() {
		if f.Agent != "" && !slices.Contains(names, f.Agent) {
			names = append(names, f.Agent)
		}
	}
	return strings.Join(names, ", ")
}

// ModelFromCommand is the model an agent's command line asks for, read by
// the format whose command it is (the base name of argv[0]); "" when no
// format knows the command or the line names none.
func ModelFromCommand(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	base := argv[0][strings.LastIndexAny(argv[0], `/\`)+1:]
	for _, f := range registry.All() {
		if f.ModelFromArgs != nil && slices.Contains(f.Commands, base) {
			return f.ModelFromArgs(argv[1:])
		}
	}
	return ""
}

// ModelCommands names the commands whose model run reads from their
// command line: "codex, opencode, gemini, …".
func ModelCommands() string {
	var names []string
	for _, f := range registry.All() {
		if f.ModelFromArgs != nil {
			names = append(names, f.Commands...)
		}
	}
	return strings.Join(names, ", ")
}
