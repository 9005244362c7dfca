package codex

import (
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
)

// TestCorpusMessageTokens: no message entry of any capture carries
// tokens. The only usage is turn.completed's running total (legacy:
// token_count), which comes after the turn's text was written; entries are
// written as their line is read, so liveness comes first.
func TestCorpusMessageTokens(t *testing.T) {
	adaptertest.NoMessageTokens(t, Format(), adaptertest.Files(t, corpusDir, "*.jsonl", "*.ndjson", "*.pretty.json"))
}
