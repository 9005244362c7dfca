package claudesession_test

import (
	"os"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/testskip"
)

// TestMain tells in one line which tests skipped for want of the shared
// corpus (in CI they fail instead).
func TestMain(m *testing.M) { os.Exit(testskip.Main(m)) }
