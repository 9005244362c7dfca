package gemini

import (
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
)

// TestCorpusMessageTokens: no message entry of any capture carries
// tokens. stream-json has no usage per response, only result.stats; the
// json output's stats are the session's, over every request, not one
// response's.
func TestCorpusMessageTokens(t *testing.T) {
	adaptertest.NoMessageTokens(t, Format(), adaptertest.Files(t, corpusDir, "*.jsonl", "*.ndjson", "*.json"))
}
