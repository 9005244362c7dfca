package gemini

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusDir holds real captures written by other people (not in the repo).
const corpusDir = "../../../shared/corpus/gemini"

// TestCorpus converts every Gemini CLI capture and compares the dialog with
// what an independent reading of the source (encoding/json, sharing no code
// with the adapter) says it must hold.
func TestCorpus(t *testing.T) {
	files := adaptertest.Files(t, corpusDir, "*.jsonl", "*.ndjson", "*.json")
	if len(files) == 0 {
		t.Logf("no Gemini CLI captures in %s (the shared corpus is not checked out beside the repo): fixtures only", corpusDir)
	}
	// Fixtures of ours whose rules the independent reading covers.
	files = append(files, "../../testdata/gemini/shell-exit-codes.in.jsonl", "../../testdata/gemini/text-and-tools.in.jsonl")
	source := adaptertest.Source{Format: Format(), Forced: true, Options: options()}
	source.Oracle(t, files, func(t *testing.T, c adaptertest.Capture, d adaptertest.Dialog) {
		want := expectStream(t, c.Src)
		if strings.HasSuffix(c.Path, ".json") {
			want = expectJSON(t, c.Src)
		}
		check(t, want, adaptertest.Decode[entry](t, d.Out))
	})
}

// expected is what a dialog must say, from the source alone.
type expected struct {
	model, prompt string
	texts         []string        // assistant texts, in order
	tools         []string        // tool ids, in order
	failed        map[string]bool // by tool id
	errText       map[string]string
	output        map[string]string
	warnings      int
	end           adaptertest.Ending
}

type srcStats struct {
	Input    int64 `json:"input_tokens"`
	Output   int64 `json:"output_tokens"`
	Cached   int64 `json:"cached"`
	Duration int64 `json:"duration_ms"`
	Models   map[string]struct {
		Input  int64 `json:"input_tokens"`
		Output int64 `json:"output_tokens"`
		Cached int64 `json:"cached"`
	} `json:"models"`
}

type srcEvent struct {
	Type    string `json:"type"`
	Model   string `json:"model"`
	Role    string `json:"role"`
	Content string `json:"content"`
	Delta   bool   `json:"delta"`
	ToolID  string `json:"tool_id"`
	Name    string `json:"tool_name"`
	Status  string `json:"status"`
	Output  *string
	Error   *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Stats *srcStats `json:"stats"`
}

// exitStated finds the exit code a shell call's output states: the
// display of a command with no output, or the trailer of the text the
// model got (debug mode) after the output.
var exitStated = regexp.MustCompile(`^Command exited with code: (-?\d+)$|(?:^|\n)Exit Code: (-?\d+)(?:\n(?:Signal|Background PIDs|Process Group PGID): [^\n]*)*(?:\n</untrusted_context>)?\n?$`)

func statedExitCode(output *string) string {
	if output == nil {
		return ""
	}
	m := exitStated.FindStringSubmatch(*output)
	if m == nil {
		return ""
	}
	return m[1] + m[2]
}

// expectStream reads stream-json with the README's rules: deltas joined
// per run, tools paired by tool_id, turns as runs of model output between
// tool results, results summed.
func expectStream(t *testing.T, src []byte) expected {
	e := expected{failed: map[string]bool{}, errText: map[string]string{}, output: map[string]string{}}
	run, inRun, boundary := "", false, true
	shells := map[string]bool{} // tool_id -> a shell call
	for line := range bytes.Lines(src) {
		var ev srcEvent
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		var raw map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(line, &raw))
		if o, ok := raw["output"]; ok {
			var s string
			require.NoError(t, json.Unmarshal(o, &s))
			ev.Output = &s
		}
		if !(ev.Type == "message" && ev.Role == "assistant" && ev.Delta) && inRun {
			e.texts = append(e.texts, run)
			run, inRun = "", false
		}
		output := func() {
			if boundary {
				e.end.Turns++
				boundary = false
			}
		}
		switch ev.Type {
		case "init":
			if e.model == "" {
				e.model = ev.Model
			}
			boundary = true
		case "message":
			switch {
			case ev.Role == "user":
				if e.prompt == "" {
					e.prompt = ev.Content
				}
				boundary = true
			case ev.Content != "" && ev.Delta:
				output()
				run += ev.Content
				inRun = true
			case ev.Content != "":
				output()
				e.texts = append(e.texts, ev.Content)
			}
		case "tool_use":
			output()
			e.tools = append(e.tools, ev.ToolID)
			shells[ev.ToolID] = ev.Name == "run_shell_command"
		case "tool_result":
			e.failed[ev.ToolID] = ev.Status != "success"
			if ev.Error != nil {
				e.errText[ev.ToolID] = ev.Error.Message
			}
			if code := statedExitCode(ev.Output); ev.Status == "success" && shells[ev.ToolID] && code != "" && code != "0" {
				e.failed[ev.ToolID] = true
				e.errText[ev.ToolID] = "[exit code " + code + "]\n" + *ev.Output
			}
			if ev.Output != nil {
				e.output[ev.ToolID] = *ev.Output
			}
			boundary = true
		case "error":
			e.warnings++
		case "result":
			e.end.Status = ev.Status
			if ev.Error != nil {
				e.end.Message = ev.Error.Message
			}
			if s := ev.Stats; s != nil {
				e.end.DurationMS += s.Duration
				if len(s.Models) == 0 {
					e.end.Tokens.In += s.Input
					e.end.Tokens.Out += s.Output
					e.end.Tokens.CacheRead += s.Cached
				}
				for _, m := range s.Models {
					e.end.Tokens.In += m.Input
					e.end.Tokens.Out += m.Output
					e.end.Tokens.CacheRead += m.Cached
				}
			}
		}
	}
	if inRun {
		e.texts = append(e.texts, run)
	}
	return e
}

// expectJSON reads the one object of --output-format json.
func expectJSON(t *testing.T, src []byte) expected {
	var o struct {
		Response string `json:"response"`
		Stats    struct {
			Models map[string]struct {
				Tokens struct {
					Prompt, Candidates, Cached, Thoughts int64
				} `json:"tokens"`
				Roles map[string]struct {
					TotalRequests, TotalErrors int
				} `json:"roles"`
			} `json:"models"`
		} `json:"stats"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(src, &o))
	e := expected{end: adaptertest.Ending{Status: "success"}, texts: []string{o.Response}}
	for name, m := range o.Stats.Models {
		e.end.Tokens.In += m.Tokens.Prompt
		e.end.Tokens.Out += m.Tokens.Candidates + m.Tokens.Thoughts
		e.end.Tokens.CacheRead += m.Tokens.Cached
		e.end.Tokens.Reasoning += m.Tokens.Thoughts
		if main, ok := m.Roles["main"]; ok {
			e.model = name
			e.end.Turns += main.TotalRequests - main.TotalErrors
		}
	}
	if o.Error != nil {
		e.end.Status, e.end.Message = "error", o.Error.Message
	}
	return e
}

func check(t *testing.T, want expected, es []entry) {
	t.Helper()
	adaptertest.CheckInit(t, es, "gemini-cli", want.model)
	if want.prompt != "" {
		adaptertest.CheckPrompt(t, es, want.prompt)
	}
	var texts []string
	for _, m := range adaptertest.OfType(es, "message") {
		if !strings.HasPrefix(m.Content, "⚠ ") {
			texts = append(texts, m.Content)
		}
	}
	assert.Equal(t, want.texts, texts, "assistant texts, joined, each once")
	assert.Empty(t, adaptertest.OfType(es, "thinking"), "Gemini prints no thoughts")

	var started []string
	for _, e := range adaptertest.OfType(es, "tool") {
		if e.Status == "running" {
			started = append(started, e.ToolID)
			continue
		}
		failed, ok := want.failed[e.ToolID]
		require.True(t, ok, "a result for %s, which the source never ended", e.ToolID)
		if failed {
			assert.Equal(t, "error", e.Status, e.ToolID)
			require.NotNil(t, e.Error, e.ToolID)
			assert.Equal(t, want.errText[e.ToolID], *e.Error, e.ToolID)
			continue
		}
		assert.Equal(t, "success", e.Status, e.ToolID)
		if out := want.output[e.ToolID]; out != "" {
			require.NotNil(t, e.Result, e.ToolID)
			assert.Equal(t, out, *e.Result, e.ToolID)
		} else {
			assert.Nil(t, e.Result, "a missing or empty output is an empty result: %s", e.ToolID)
		}
	}
	assert.Equal(t, want.tools, started)

	c := adaptertest.CheckComplete(t, want.end, es)
	assert.Equal(t, want.warnings, c.Warnings)
}
