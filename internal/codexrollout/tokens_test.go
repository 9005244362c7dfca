package codexrollout_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/codexrollout"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// TestCorpusMessageTokens: over every rollout, the tokens of message
// entries never add up to more than complete's total (the last
// total_token_usage), and they are what an independent reading of the
// rollout (encoding/json) expects: a request's last_token_usage, when its
// token_count came after the request's turn_context and before any of its
// response items with a total that changed, on its first assistant
// message. Only Codex 0.4x writes the count that early; 0.10x and 0.17x
// write it after the message, so their messages carry none.
func TestCorpusMessageTokens(t *testing.T) {
	source := adaptertest.Source{Format: codexrollout.Format(), Forced: true, Options: dialog.Options{Clock: dialog.FixedClock(time.Unix(0, 0)), Saved: true}}
	source.MessageTokensOf(t, adaptertest.FileInputs(adaptertest.Captures(t, corpusDir, "*.jsonl")), adaptertest.BaseName, func(t *testing.T, in adapter.Input) adaptertest.WantTokens {
		count, sum := expectMessageTokens(t, adaptertest.Opened(t, in))
		return adaptertest.WantTokens{Count: count, Sum: sum}
	})
}

type usage struct {
	Input      int64 `json:"input_tokens"`
	Cached     int64 `json:"cached_input_tokens"`
	CacheWrite int64 `json:"cache_write_input_tokens"`
	Output     int64 `json:"output_tokens"`
	Reasoning  int64 `json:"reasoning_output_tokens"`
}

func expectMessageTokens(t *testing.T, src []byte) (count int, sum adaptertest.Tokens) {
	t.Helper()
	var last usage // the last total
	var pending *usage
	items := false
	for line := range bytes.Lines(src) {
		var r struct {
			Type    string `json:"type"`
			Payload struct {
				Type    string `json:"type"`
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				Info *struct {
					Total *usage `json:"total_token_usage"`
					Last  *usage `json:"last_token_usage"`
				} `json:"info"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		p := r.Payload
		switch {
		case r.Type == "turn_context":
			items, pending = false, nil
		case r.Type == "event_msg" && p.Type == "token_count" && p.Info != nil && p.Info.Total != nil:
			if !items && *p.Info.Total != last && p.Info.Last != nil {
				pending = p.Info.Last
			}
			last = *p.Info.Total
		case r.Type == "response_item":
			items = true
			text := false
			for _, c := range p.Content {
				text = text || c.Text != ""
			}
			if p.Type == "message" && p.Role == "assistant" && text && pending != nil {
				u := pending
				count++
				sum.In += u.Input
				sum.Out += u.Output
				sum.CacheRead += u.Cached
				sum.CacheWrite += u.CacheWrite
				sum.Reasoning += u.Reasoning
				pending = nil
			}
		}
	}
	return count, sum
}

// TestRequestTokens: a token_count after a request's turn_context and
// before its items (0.4x) is that request's: its first message carries
// last_token_usage. A token_count that repeats the last total, or one
// after the request's items (0.10x on), gives no message tokens.
func TestRequestTokens(t *testing.T) {
	tc := func(total, last string) string {
		return `{"timestamp":"2025-10-01T10:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":` + total + `,"last_token_usage":` + last + `}}}`
	}
	const (
		ctx   = `{"timestamp":"2025-10-01T10:00:00.500Z","type":"turn_context","payload":{"model":"gpt-5"}}`
		think = `{"timestamp":"2025-10-01T10:00:01.100Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"hm"}]}}`
		u1    = `{"input_tokens":100,"cached_input_tokens":60,"output_tokens":20,"reasoning_output_tokens":5,"total_tokens":120}`
		u2    = `{"input_tokens":300,"cached_input_tokens":160,"output_tokens":30,"reasoning_output_tokens":5,"total_tokens":330}`
		l2    = `{"input_tokens":200,"cached_input_tokens":100,"output_tokens":10,"reasoning_output_tokens":0,"total_tokens":210}`
	)
	msg := func(text string) string {
		return `{"timestamp":"2025-10-01T10:00:01.200Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"` + text + `"}]}}`
	}
	in := strings.Join([]string{
		`{"timestamp":"2025-10-01T10:00:00.000Z","type":"session_meta","payload":{"id":"x","cwd":"/w"}}`,
		`{"timestamp":"2025-10-01T10:00:00.001Z","type":"event_msg","payload":{"type":"user_message","message":"go"}}`,
		ctx, tc(u1, u1), think, msg("first"), msg("second"), // 0.4x: the count first; once
		ctx, tc(u1, u1), msg("third"), // the last total again: no one's
		ctx, msg("fourth"), tc(u2, l2), // after the message: too late
	}, "\n") + "\n"
	got := adaptertest.MessagesWithTokens(t, adaptertest.Convert(t, codexrollout.Format(), strings.NewReader(in)))
	assert.Equal(t, []string{`first {"in":100,"out":20,"cache_read":60,"reasoning":5}`, "second ", "third ", "fourth "}, got)
}
