package geminisession_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/geminisession"
)

// TestCorpusMessageTokens: over every chat of the corpus, read with its
// subagents' chats, the tokens of message entries (main thread and
// subagents) never add up to more than complete's total, which counts
// every model message of every chat read; and they are what an
// independent reading of the files (encoding/json) expects: a model
// message's tokens on the entry of its text, when the record that first
// has the tokens brings text not seen before.
func TestCorpusMessageTokens(t *testing.T) {
	source().MessageTokensOf(t, adaptertest.Sessions(t, corpusDir, geminisession.Inputs), chatName, func(t *testing.T, in adapter.Input) adaptertest.WantTokens {
		count, sum := expectMessageTokens(t, in.Name)
		return adaptertest.WantTokens{Count: count, Sum: sum}
	})
}

// expectMessageTokens reads a chat and its subagents' chats
// (<dir>/<session id>/*.jsonl).
func expectMessageTokens(t *testing.T, path string) (count int, sum adaptertest.Tokens) {
	t.Helper()
	files := []string{path}
	for _, r := range readRecords(t, path) {
		if r.SessionID != "" {
			subs, _ := filepath.Glob(filepath.Join(filepath.Dir(path), r.SessionID, "*.jsonl"))
			files = append(files, subs...)
			break
		}
	}
	for _, f := range files {
		text := map[string]string{} // a message's text so far
		done := map[string]bool{}   // its tokens seen
		for _, raw := range rawRecords(t, f) {
			var r struct {
				ID      string          `json:"id"`
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
				Tokens  *struct {
					Input, Output, Cached, Thoughts, Tool int64
				} `json:"tokens"`
			}
			require.NoError(t, json.Unmarshal(raw, &r))
			if r.Type != "gemini" {
				continue
			}
			s, _ := modelText(r.Content)
			prev := text[r.ID]
			text[r.ID] = s
			if r.Tokens == nil || done[r.ID] {
				continue
			}
			done[r.ID] = true
			if len(s) <= len(prev) || !strings.HasPrefix(s, prev) {
				continue // no new text: no entry to carry them
			}
			tk := r.Tokens
			count++
			sum.In += tk.Input + tk.Tool
			sum.Out += tk.Output + tk.Thoughts
			sum.CacheRead += tk.Cached
			sum.Reasoning += tk.Thoughts
		}
	}
	return count, sum
}

// rawRecords is a chat's records as they stand: its lines, or the
// messages of a JSON document.
func rawRecords(t *testing.T, path string) []json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	if strings.HasSuffix(path, ".json") {
		var doc struct {
			Messages []json.RawMessage `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(raw, &doc))
		return doc.Messages
	}
	var rs []json.RawMessage
	for _, l := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			rs = append(rs, l)
		}
	}
	return rs
}
