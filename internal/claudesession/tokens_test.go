package claudesession_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/claudesession"
)

// TestCorpusMessageTokens: over every session of the corpus, read with its
// subagents' files, the tokens of message entries (main thread and
// subagents) never add up to more than complete's total, which counts
// every message.id of every file read; and they are what an independent
// reading of the files (encoding/json) expects: the usage of an API
// message whose line has a stop_reason, on the first such line with a
// text block, once per message.id.
func TestCorpusMessageTokens(t *testing.T) {
	merged, _ := sources(t)
	merged.MessageTokensOf(t, adaptertest.Sessions(t, corpusDir, claudesession.Inputs), sessionName, func(t *testing.T, in adapter.Input) adaptertest.WantTokens {
		count, sum := expectMessageTokens(t, append([]string{in.Name}, agentFilesOf(t, in.Name)...))
		return adaptertest.WantTokens{Count: count, Sum: sum}
	})
}

// expectMessageTokens reads the assistant lines of files: the message ids
// with a line that has a stop_reason, a usage and a non-empty text block,
// and the sum of their usage on the first such line.
func expectMessageTokens(t *testing.T, files []string) (count int, sum adaptertest.Tokens) {
	t.Helper()
	carried := map[string]bool{}
	for _, path := range files {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		for line := range bytes.Lines(src) {
			var l struct {
				Type     string `json:"type"`
				IsAPIErr bool   `json:"isApiErrorMessage"`
				Message  struct {
					ID         string  `json:"id"`
					Model      string  `json:"model"`
					StopReason *string `json:"stop_reason"`
					Usage      *struct {
						Input      int64 `json:"input_tokens"`
						Output     int64 `json:"output_tokens"`
						CacheRead  int64 `json:"cache_read_input_tokens"`
						CacheWrite int64 `json:"cache_creation_input_tokens"`
					} `json:"usage"`
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(line, &l) != nil || l.Type != "assistant" {
				continue
			}
			m := l.Message
			if m.ID == "" || carried[m.ID] || m.Model == "<synthetic>" || l.IsAPIErr || m.Usage == nil || m.StopReason == nil || *m.StopReason == "" {
				continue
			}
			var blocks []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			_ = json.Unmarshal(m.Content, &blocks)
			text := false
			for _, b := range blocks {
				text = text || b.Type == "text" && b.Text != ""
			}
			if !text {
				continue
			}
			carried[m.ID] = true
			u := m.Usage
			count++
			sum.In += u.Input + u.CacheRead + u.CacheWrite
			sum.Out += u.Output
			sum.CacheRead += u.CacheRead
			sum.CacheWrite += u.CacheWrite
		}
	}
	return count, sum
}

// TestMessageTokensOnce: a message's lines that have a stop_reason carry
// its usage, which the first text entry written from them carries; the
// second text block of the same message.id carries none; a line without
// stop_reason (the message_start snapshot) carries none.
func TestMessageTokensOnce(t *testing.T) {
	const session = `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"go"},"uuid":"u1","timestamp":"2026-01-02T10:00:00.000Z","cwd":"/w","sessionId":"s1","version":"2.1.332"}
{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"msg_a","model":"claude-x","role":"assistant","content":[{"type":"text","text":"snapshot"}],"stop_reason":null,"usage":{"input_tokens":7,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":1}},"uuid":"a0","timestamp":"2026-01-02T10:00:01.000Z","cwd":"/w","sessionId":"s1","version":"2.1.332"}
{"parentUuid":"a0","isSidechain":false,"type":"assistant","message":{"id":"msg_b","model":"claude-x","role":"assistant","content":[{"type":"text","text":"one"}],"stop_reason":"end_turn","usage":{"input_tokens":20,"cache_read_input_tokens":300,"cache_creation_input_tokens":4,"output_tokens":9}},"uuid":"a1","timestamp":"2026-01-02T10:00:02.000Z","cwd":"/w","sessionId":"s1","version":"2.1.332"}
{"parentUuid":"a1","isSidechain":false,"type":"assistant","message":{"id":"msg_b","model":"claude-x","role":"assistant","content":[{"type":"text","text":"two"}],"stop_reason":"end_turn","usage":{"input_tokens":20,"cache_read_input_tokens":300,"cache_creation_input_tokens":4,"output_tokens":9}},"uuid":"a2","timestamp":"2026-01-02T10:00:02.000Z","cwd":"/w","sessionId":"s1","version":"2.1.332"}
`
	merged, _ := sources(t)
	got := adaptertest.MessagesWithTokens(t, merged.Convert(t, strings.NewReader(session), "session").Out)
	assert.Equal(t, []string{"snapshot ", `one {"in":324,"out":9,"cache_read":300,"cache_write":4}`, "two "}, got)
}
