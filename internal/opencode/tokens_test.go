package opencode

import (
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
)

// TestCorpusMessageTokens: no message entry of any capture carries
// tokens. A step's tokens are on its step_finish part, which comes after
// the step's text parts; each text part is written when it is read.
func TestCorpusMessageTokens(t *testing.T) {
	adaptertest.NoMessageTokens(t, Format(), adaptertest.Files(t, corpusDir, "*.jsonl"))
}
