package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
)

// exampleCommands returns each invocation of the program in an Example
// block, as arguments: comments skipped, quotes removed, cut at a pipe or &&.
func exampleCommands(example string) [][]string {
	var cmds [][]string
	for _, line := range strings.Split(strings.ReplaceAll(example, "\\\n", " "), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, part := range strings.Split(line, "|") {
			part, _, _ = strings.Cut(part, "&&")
			words := shellWords(part)
			for i, w := range words {
				if w == name {
					cmds = append(cmds, words[i+1:])
					break
				}
			}
		}
	}
	return cmds
}

// shellWords splits s at blanks outside double quotes (all the examples use).
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for _, c := range s {
		switch {
		case c == '"':
			quoted, inWord = !quoted, true
		case (c == ' ' || c == '\t') && !quoted:
			if inWord {
				words = append(words, w.String())
				w.Reset()
			}
			inWord = false
		default:
			w.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// TestHelpExamples: --help shows an example for each job in PRODUCT.md
// ("Who uses it"), and every example parses: no unknown flag, no flag
// without its value, no wrong subcommand.
func TestHelpExamples(t *testing.T) {
	root := newRootCmd(cli.NewStreams(strings.NewReader(""), new(strings.Builder), new(strings.Builder)))
	for _, job := range []string{
		"| sse-dialog-convert --prompt",            // live, in a pipe
		"sse-dialog-convert run --timeout",         // wrapping the agent
		"sse-dialog-convert transcript.jsonl -o",   // offline, one
		"sse-dialog-convert --out-dir",             // offline, many
		"sse-dialog-convert --follow",              // a growing transcript
		"SOURCE_DATE_EPOCH=0 sse-dialog-convert",   // CI fixtures, reproducible
		"sse-dialog-convert validate dialog.jsonl", // and checked
		"| sse-dialog-convert --tee |",             // mid-pipeline
	} {
		assert.Contains(t, root.Example, job)
	}
	all := []*cobra.Command{root}
	all = append(all, root.Commands()...)
	n := 0
	for _, c := range all {
		for _, args := range exampleCommands(c.Example) {
			n++
			cmd, rest, err := root.Find(args)
			require.NoError(t, err, "%q", args)
			if c != root {
				assert.Equal(t, c, cmd, "%q belongs to %s", args, c.Name())
			}
			assert.NoError(t, cmd.ParseFlags(rest), "%s example %q", c.Name(), args)
		}
	}
	assert.GreaterOrEqual(t, n, 10, "examples found")
}

// readFormats are --format's values, from the registry: auto and every
// format read.
func readFormats() []string {
	vals := []string{"auto"}
	for _, f := range registry.All() {
		if f.New != nil {
			vals = append(vals, f.Name)
		}
	}
	return vals
}

// TestFormatsFromTheRegistry: what the command line says about formats
// is the registry's: help names every format read (value and title) and
// its agent, run's help the commands whose model it reads, completion and
// the unknown --format message every value; a format recognised but not
// read is no value.
func TestFormatsFromTheRegistry(t *testing.T) {
	code, help, _ := runCLI(t, "", "--help")
	require.Equal(t, 0, code)
	_, runHelp, _ := runCLI(t, "", "run", "--help")
	code, _, unknown := runCLI(t, "", "--format", "nope")
	require.Equal(t, 2, code)
	require.Contains(t, unknown, `unknown --format "nope" (want `+strings.Join(readFormats(), ", ")+")")
	code, completion, _ := runCLI(t, "", cobra.ShellCompRequestCmd, "--format", "")
	require.Equal(t, 0, code)
	_, values, ok := strings.Cut(help, "input FORMAT: ")
	require.True(t, ok, "--format's help lists its values")
	values, _, _ = strings.Cut(values, " (default")
	assert.Equal(t, readFormats(), strings.Split(values, ", "), "--format's help")
	for _, f := range registry.All() {
		if f.New == nil {
			assert.NotContains(t, strings.Fields(completion), f.Name, "%s is not read: no --format value", f.Name)
			continue
		}
		assert.Regexp(t, `(?m)^\s+`+regexp.QuoteMeta(f.Name)+`\s+`+regexp.QuoteMeta(f.Title)+`$`, help, "help lists %s", f.Name)
		assert.Contains(t, help, f.Agent, "--agent's help names %s's agent", f.Name)
		if f.ModelFromArgs != nil {
			for _, c := range f.Commands {
				assert.Contains(t, runHelp, c, "run's help names %s, whose model it reads", c)
			}
		}
	}
}
