package atif

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
)

// corpusDir holds real trajectories written by other people (not in the
// repo).
const corpusDir = "../../../shared/corpus/atif"

// srcTrajectory is the document as encoding/json reads it: an independent
// reading, sharing no code with the adapter.
type srcTrajectory struct {
	SchemaVersion string `json:"schema_version"`
	Agent         struct {
		Name string `json:"name"`
	} `json:"agent"`
	Steps []struct {
		Source           string          `json:"source"`
		Message          json.RawMessage `json:"message"`
		ReasoningContent *string         `json:"reasoning_content"`
		IsCopiedContext  bool            `json:"is_copied_context"`
		LLMCallCount     *int            `json:"llm_call_count"`
		Extra            map[string]any  `json:"extra"`
		ToolCalls        []struct {
			ID   string `json:"tool_call_id"`
			Name string `json:"function_name"`
		} `json:"tool_calls"`
		Metrics *struct {
			Prompt *float64 `json:"prompt_tokens"`
			Out    *float64 `json:"completion_tokens"`
			Cached *float64 `json:"cached_tokens"`
		} `json:"metrics"`
	} `json:"steps"`
	FinalMetrics *struct {
		Prompt *float64 `json:"total_prompt_tokens"`
		Out    *float64 `json:"total_completion_tokens"`
		Cached *float64 `json:"total_cached_tokens"`
		Extra  struct {
			Written float64 `json:"total_cache_creation_input_tokens"`
		} `json:"extra"`
	} `json:"final_metrics"`
}

// text is a message as a string, or its text parts joined.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type, Text string
	}
	_ = json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// rawSteps holds each step's metrics as written, for comparing them byte
// for byte.
type rawSteps struct {
	Steps []struct {
		Metrics json.RawMessage `json:"metrics"`
	} `json:"steps"`
}

// repeatedSteps reads, independently of the adapter, which steps repeat
// the model call of the step before (../../docs/formats/atif.md): Claude
// Code's trajectories below v1.7; adjacent agent steps of one thread;
// the same metrics; the later step a tool_use block (its one call as
// "Executed <name> <id>") or after a step with neither text nor calls.
// It returns the repeats' metrics as written, by step index.
func repeatedSteps(t *testing.T, src srcTrajectory, raw []byte) map[int]json.RawMessage {
	var rs rawSteps
	require.NoError(t, json.Unmarshal(raw, &rs))
	minor, ok := strings.CutPrefix(src.SchemaVersion, "ATIF-v1.")
	if n, err := strconv.Atoi(minor); src.Agent.Name != "claude-code" || !ok || err != nil || n >= 7 {
		return nil
	}
	repeat := map[int]json.RawMessage{}
	for i := 1; i < len(src.Steps); i++ {
		prev, s := src.Steps[i-1], src.Steps[i]
		if prev.Source != "agent" || s.Source != "agent" || prev.IsCopiedContext || s.IsCopiedContext || s.Metrics == nil ||
			string(rs.Steps[i].Metrics) != string(rs.Steps[i-1].Metrics) || (prev.Extra["is_sidechain"] == true) != (s.Extra["is_sidechain"] == true) {
			continue
		}
		toolUse := len(s.ToolCalls) == 1 && text(s.Message) == "Executed "+s.ToolCalls[0].Name+" "+s.ToolCalls[0].ID
		if toolUse || strings.TrimSpace(text(prev.Message)) == "" && len(prev.ToolCalls) == 0 {
			repeat[i] = rs.Steps[i].Metrics
		}
	}
	return repeat
}

var fabricated = regexp.MustCompile(`^(Executed \S+ \S+|\[tool call\]|\(tool use\))$`)

// TestCorpus converts every real trajectory and checks the dialog against
// what the document holds: the first prompt, every call paired with one
// result, every agent text and reasoning present, the totals.
func TestCorpus(t *testing.T) {
	source := adaptertest.Source{Format: Format(), Forced: true, Options: options()}
	source.Oracle(t, adaptertest.Captures(t, corpusDir, "*.json"), func(t *testing.T, capture adaptertest.Capture, d adaptertest.Dialog) {
		var src srcTrajectory
		require.NoError(t, json.Unmarshal(capture.Src, &src))
		es := adaptertest.Decode[entry](t, d.Out)
		// One response's figure is never written twice: the message
		// tokens add up to no more than the totals.
		mt := adaptertest.ReadMessageTokens(t, d.Out)
		adaptertest.RequireWithin(t, mt.Sum(), mt.Total)

		// The prompt: the first user step that is no sidechain and
		// no copy; with no user step, the first system step.
		want, hasUser := "", false
		for _, s := range src.Steps {
			if s.Source == "user" {
				hasUser = true
				if s.IsCopiedContext || s.Extra["is_sidechain"] == true || text(s.Message) == "" {
					continue
				}
				want = text(s.Message)
				break
			}
		}
		if !hasUser && len(src.Steps) > 0 && src.Steps[0].Source == "system" {
			want = text(src.Steps[0].Message)
		}
		prompts := adaptertest.OfType(es, "prompt")
		if want == "" {
			assert.Empty(t, prompts)
		} else {
			require.NotEmpty(t, prompts)
			assert.Equal(t, want, prompts[0].Content)
		}

		messages, thinking := map[string]bool{}, map[string]bool{}
		for _, e := range adaptertest.OfType(es, "message") {
			messages[e.Content] = true
		}
		for _, e := range adaptertest.OfType(es, "thinking") {
			thinking[e.Content] = true
		}
		starts, ends := map[string]int{}, map[string]int{}
		for _, e := range adaptertest.OfType(es, "tool") {
			if e.Status == "running" {
				starts[e.ToolID]++
			} else {
				ends[e.ToolID]++
			}
		}
		repeat := repeatedSteps(t, src, capture.Src)
		var sumIn, sumOut float64                        // steps' metrics, each call once
		var allPrompt, allOut, repPrompt, repOut float64 // as written: every step's, the repeats'
		var repCached, repWritten float64
		turns := 0
		for i, s := range src.Steps {
			if s.IsCopiedContext || s.Source != "agent" {
				continue
			}
			_, repeated := repeat[i]
			if s.Extra["is_sidechain"] != true && !repeated && (s.LLMCallCount == nil || *s.LLMCallCount != 0) {
				turns++
			}
			resultStep := s.LLMCallCount != nil && *s.LLMCallCount == 0 && s.Extra["tool_call_id"] != nil && s.Extra["tool_call_id"] != ""
			msg := text(s.Message)
			if msg != "" && !resultStep && !fabricated.MatchString(strings.TrimSpace(msg)) {
				assert.True(t, messages[msg], "agent text missing: %.80q", msg)
			}
			if r := s.ReasoningContent; r != nil && *r != "" && strings.TrimSpace(*r) != strings.TrimSpace(msg) {
				assert.True(t, thinking[*r], "reasoning missing: %.80q", *r)
			}
			for _, c := range s.ToolCalls {
				if c.ID == "" {
					continue
				}
				assert.Equal(t, 1, starts[c.ID], "call %s started once", c.ID)
				assert.Equal(t, 1, ends[c.ID], "call %s ended once", c.ID)
			}
			if m := s.Metrics; m != nil {
				prompt, out, cached := 0.0, 0.0, 0.0
				if m.Prompt != nil {
					prompt = *m.Prompt
				}
				if m.Out != nil {
					out = *m.Out
				}
				if m.Cached != nil {
					cached = *m.Cached
				}
				allPrompt += prompt
				allOut += out
				if repeated {
					var w struct {
						Extra struct {
							Written float64 `json:"cache_creation_input_tokens"`
						} `json:"extra"`
					}
					require.NoError(t, json.Unmarshal(repeat[i], &w))
					repPrompt, repOut, repCached, repWritten = repPrompt+prompt, repOut+out, repCached+cached, repWritten+w.Extra.Written
					continue
				}
				in := 0.0
				if m.Prompt != nil {
					in = *m.Prompt
				}
				if m.Cached != nil && m.Prompt != nil && (*m.Cached > in || src.SchemaVersion == "ATIF-v1.0" || src.SchemaVersion == "ATIF-v1.1") {
					in += *m.Cached
				}
				sumIn += in
				if m.Out != nil {
					sumOut += *m.Out
				}
			}
		}

		c := es[len(es)-1]
		assert.Equal(t, "complete", c.Type)
		assert.Equal(t, turns, c.Turns, "turns: main-thread agent steps with a model call, each call once")
		assert.Equal(t, "error", c.Status, "a trajectory alone does not say how the run ended")
		assert.Equal(t, ReasonUnknownEnding, c.Reason)
		// Final metrics that are the sum of every step's, repeats
		// included, count each call once, and a notice names both
		// figures.
		inflated := len(repeat) > 0 && src.FinalMetrics != nil && src.FinalMetrics.Prompt != nil && src.FinalMetrics.Out != nil &&
			*src.FinalMetrics.Prompt == allPrompt && *src.FinalMetrics.Out == allOut
		if inflated {
			fm := *src.FinalMetrics
			notice := fmt.Sprintf("final_metrics say %.0f prompt and %.0f completion tokens", *fm.Prompt, *fm.Out)
			once := fmt.Sprintf("counts each call once: %.0f prompt and %.0f completion tokens", *fm.Prompt-repPrompt, *fm.Out-repOut)
			found := false
			for m := range messages {
				found = found || strings.Contains(m, notice) && strings.Contains(m, once)
			}
			assert.True(t, found, "a notice names both figures: %s, %s", notice, once)
			prompt, out, cached := *fm.Prompt-repPrompt, *fm.Out-repOut, 0.0
			if fm.Cached != nil {
				cached = *fm.Cached - repCached
			}
			fm.Prompt, fm.Out, fm.Cached, fm.Extra.Written = &prompt, &out, &cached, fm.Extra.Written-repWritten
			src.FinalMetrics = &fm
		} else {
			for m := range messages {
				assert.NotContains(t, m, "final_metrics say", "no notice")
			}
		}
		if fm := src.FinalMetrics; fm != nil && fm.Prompt != nil {
			// ../formats/atif.md: prompt_tokens include cached tokens
			// from v1.2 (not before, nor where cached > prompt), and
			// Claude Code's cache writes from 2026 (not before: the
			// prompt is then less than reads and writes together).
			in, cached := *fm.Prompt, 0.0
			if fm.Cached != nil {
				cached = *fm.Cached
			}
			if cached > in || src.SchemaVersion == "ATIF-v1.0" || src.SchemaVersion == "ATIF-v1.1" {
				in += cached
			}
			if w := fm.Extra.Written; w > 0 && in < cached+w {
				in += w
			}
			assert.EqualValues(t, int64(in), c.TotalTokens.In)
		} else {
			assert.EqualValues(t, int64(sumIn), c.TotalTokens.In, "no final figure: the steps' sum")
		}
		if fm := src.FinalMetrics; fm != nil && fm.Out != nil {
			assert.EqualValues(t, int64(*fm.Out), c.TotalTokens.Out)
		} else {
			assert.EqualValues(t, int64(sumOut), c.TotalTokens.Out, "no final figure: the steps' sum")
		}
	})
}
