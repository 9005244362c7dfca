package claude

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
)

// TestCorpusMessageTokens: over every capture, the tokens of message
// entries (main thread and subagents) never add up to more than
// complete's total, and they are, entry for entry, what an independent
// reading of the source (encoding/json) expects: the usage of an API
// message whose line has a stop_reason, on the first new text block of
// such a line, once per message.id. Where no result has modelUsage
// (before 2.0), the total is result.usage, the main thread's only, so
// only the main thread's sum is held to it.
func TestCorpusMessageTokens(t *testing.T) {
	source := adaptertest.Source{Format: Format(), Forced: true, Options: options()}
	source.MessageTokensOf(t, adaptertest.FileInputs(adaptertest.Captures(t, corpusDir, "*.jsonl")), adaptertest.BaseName, func(t *testing.T, in adapter.Input) adaptertest.WantTokens {
		w, subagentsInTotal := expectMessageTokens(t, adaptertest.Opened(t, in))
		return adaptertest.WantTokens{Count: w.count, Sum: w.sum, MainOnly: !subagentsInTotal}
	})
}

type wantTokens struct {
	count int
	sum   adaptertest.Tokens
}

// expectMessageTokens reads the source with encoding/json: which API
// messages' usage a message entry carries, and whether the last result
// has modelUsage (a total that counts subagents).
func expectMessageTokens(t *testing.T, src []byte) (w wantTokens, subagentsInTotal bool) {
	t.Helper()
	type usage struct {
		Input      *int64 `json:"input_tokens"`
		Output     int64  `json:"output_tokens"`
		CacheRead  int64  `json:"cache_read_input_tokens"`
		CacheWrite int64  `json:"cache_creation_input_tokens"`
	}
	var line struct {
		Type    string `json:"type"`
		UUID    string `json:"uuid"`
		Error   any    `json:"error"`
		Message struct {
			ID         string          `json:"id"`
			Model      string          `json:"model"`
			StopReason *string         `json:"stop_reason"`
			Usage      *usage          `json:"usage"`
			Content    json.RawMessage `json:"content"`
		} `json:"message"`
		ModelUsage map[string]any `json:"modelUsage"`
	}
	qwen := false                // Qwen Code: a non-zero usage is final
	seen := map[string]bool{}    // message key + block, as shown
	carried := map[string]bool{} // message keys whose usage an entry carries
	n := 0
	for raw := range bytes.Lines(src) {
		line.Error, line.UUID, line.ModelUsage = nil, "", nil
		line.Message.ID, line.Message.Model, line.Message.StopReason, line.Message.Usage, line.Message.Content = "", "", nil, nil, nil
		if json.Unmarshal(raw, &line) != nil {
			continue
		}
		switch line.Type {
		case "result":
			subagentsInTotal = len(line.ModelUsage) > 0
			continue
		case "system":
			qwen = qwen || bytes.Contains(raw, []byte(`"qwen_code_version"`))
			continue
		case "assistant":
		default:
			continue
		}
		n++
		m := line.Message
		key := m.ID
		if key == "" {
			key = line.UUID
		}
		if key == "" {
			key = "line " + strconv.Itoa(n) // no id: a message of its own
		}
		var texts []string // the new, non-empty texts of the line
		var s string
		var blocks []json.RawMessage
		switch {
		case json.Unmarshal(m.Content, &s) == nil:
			if !seen[key+"\x00"+string(m.Content)] && s != "" {
				texts = append(texts, s)
			}
			seen[key+"\x00"+string(m.Content)] = true
		case json.Unmarshal(m.Content, &blocks) == nil:
			for _, b := range blocks {
				var blk struct {
					Type string `json:"type"`
					Text string `json:"text"`
				}
				_ = json.Unmarshal(b, &blk)
				if !seen[key+"\x00"+string(b)] && blk.Type == "text" && blk.Text != "" {
					texts = append(texts, blk.Text)
				}
				seen[key+"\x00"+string(b)] = true
			}
		}
		synthetic := m.Model == "<synthetic>" || line.Error != nil
		final := !synthetic && m.Usage != nil && (m.StopReason != nil && *m.StopReason != "" ||
			qwen && (m.Usage.Input != nil && *m.Usage.Input != 0 || m.Usage.Output != 0 || m.Usage.CacheRead != 0 || m.Usage.CacheWrite != 0))
		if !final || len(texts) == 0 || carried[key] {
			continue
		}
		carried[key] = true
		u := m.Usage
		in := u.CacheRead + u.CacheWrite
		if u.Input != nil {
			in += *u.Input
		}
		if qwen && u.Input != nil {
			in = max(*u.Input, u.CacheRead) + u.CacheWrite // its input_tokens counts the cache reads
		}
		w.count++
		w.sum.In += in
		w.sum.Out += u.Output
		w.sum.CacheRead += u.CacheRead
		w.sum.CacheWrite += u.CacheWrite
	}
	return w, subagentsInTotal
}

// TestMessageTokensOnFinalLineOnce: a line without stop_reason carries the
// message_start snapshot (output 1 here), so its text entry has no tokens;
// the first text written from a line with a stop_reason carries the
// message's usage; a later line of the same message.id carries none.
func TestMessageTokensOnFinalLineOnce(t *testing.T) {
	const in = `{"type":"system","subtype":"init","model":"claude-x","cwd":"/w","session_id":"s"}
{"type":"assistant","message":{"id":"msg_1","model":"claude-x","content":[{"type":"text","text":"early"}],"stop_reason":null,"usage":{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":5,"output_tokens":1}}}
{"type":"assistant","message":{"id":"msg_1","model":"claude-x","content":[{"type":"text","text":"late"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":5,"output_tokens":50}}}
{"type":"assistant","message":{"id":"msg_1","model":"claude-x","content":[{"type":"text","text":"again"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":5,"output_tokens":50}}}
{"type":"assistant","message":{"id":"msg_2","model":"<synthetic>","content":[{"type":"text","text":"API Error"}],"stop_reason":"stop_sequence","usage":{"input_tokens":0,"output_tokens":0}}}
`
	out, stderr := runPipeline(t, in)
	require.Empty(t, stderr)
	tokens := adaptertest.MessagesWithTokens(t, []byte(out))
	assert.Equal(t, []string{
		"early ",
		`late {"in":115,"out":50,"cache_read":100,"cache_write":5}`,
		"again ",
		"API Error ",
	}, tokens)
}

// TestQwenAnswerTokensWithoutStopReason: Qwen Code writes each assistant
// line whole (no message_start snapshot) and leaves stop_reason null on
// text answers; the last line of a model response carries its usage, the
// earlier ones (a thinking block, a text before a call) all zeros. So a
// Qwen line with a non-zero usage is final whatever its stop_reason; an
// all-zero usage is no count (unknown, not 0). Input counts the cache
// reads already (Gemini's promptTokenCount).
func TestQwenAnswerTokensWithoutStopReason(t *testing.T) {
	const in = `{"type":"system","subtype":"init","session_id":"q1","cwd":"/w","model":"qwen-x","tools":["read_file"],"qwen_code_version":"0.30.1"}
{"type":"assistant","uuid":"u1","session_id":"q1","parent_tool_use_id":null,"message":{"id":"m1","type":"message","role":"assistant","model":"qwen-x","content":[{"type":"text","text":"Before the call."}],"stop_reason":null,"usage":{"input_tokens":0,"output_tokens":0}}}
{"type":"assistant","uuid":"u2","session_id":"q1","parent_tool_use_id":null,"message":{"id":"m2","type":"message","role":"assistant","model":"qwen-x","content":[{"type":"tool_use","id":"c1","name":"read_file","input":{"path":"a"}}],"stop_reason":"tool_use","usage":{"input_tokens":900,"output_tokens":30,"cache_read_input_tokens":400,"total_tokens":930}}}
{"type":"user","uuid":"u3","session_id":"q1","parent_tool_use_id":null,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","is_error":false,"content":"alpha"}]}}
{"type":"assistant","uuid":"u4","session_id":"q1","parent_tool_use_id":null,"message":{"id":"m4","type":"message","role":"assistant","model":"qwen-x","content":[{"type":"text","text":"It says alpha."}],"stop_reason":null,"usage":{"input_tokens":1000,"output_tokens":12,"cache_read_input_tokens":900,"total_tokens":1012}}}
{"type":"result","subtype":"success","uuid":"u5","session_id":"q1","is_error":false,"num_turns":2,"result":"It says alpha.","usage":{"input_tokens":1900,"output_tokens":42,"cache_read_input_tokens":1300,"total_tokens":1942}}
`
	out, stderr := runPipeline(t, in)
	require.Empty(t, stderr)
	assert.Equal(t, []string{
		"Before the call. ",
		`It says alpha. {"in":1000,"out":12,"cache_read":900}`,
	}, adaptertest.MessagesWithTokens(t, []byte(out)))
}
