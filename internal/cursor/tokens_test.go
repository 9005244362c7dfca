package cursor

import (
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
)

// TestCorpusMessageTokens: no message entry of any capture carries
// tokens: Cursor gives usage only on result, for the whole run.
func TestCorpusMessageTokens(t *testing.T) {
	adaptertest.NoMessageTokens(t, Format(), adaptertest.Files(t, corpusDir, "*.jsonl"))
}
