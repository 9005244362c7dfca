package claudesession

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
)

// FuzzSessionScan: whatever a session file holds, the scan's graph is
// well formed (every parent a line before it, or none; the leaf a line),
// and the two passes make a valid dialog, every unreadable line of it
// told as a warning. Seeds: the golden sessions, and a chain with a line
// cut at the fuzzer's choice.
func FuzzSessionScan(f *testing.F) {
	for _, c := range adaptertest.Cases(f, filepath.Join("..", "..", "testdata", "claude-session")) {
		b, err := os.ReadFile(c)
		require.NoError(f, err)
		f.Add(b, uint16(0), uint16(0))
	}
	chain := []byte(strings.Join(chainSession("s", 6), "\n") + "\n")
	f.Add(chain, uint16(700), uint16(120))
	f.Add(chain, uint16(1500), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, at, cut uint16) {
		// Cut bytes [at, at+cut) out of the data: a torn write.
		if int(at) < len(data) && cut > 0 {
			end := min(len(data), int(at)+int(cut))
			data = append(data[:at:at], data[end:]...)
		}
		opt := frame.Options{MaxLine: 4096}
		g, err := scan(bytes.NewReader(data), opt)
		require.NoError(t, err)
		n := int32(len(g.kind))
		require.Len(t, g.parent, int(n))
		require.Len(t, g.msg, int(n))
		for i, p := range g.parent {
			require.True(t, p == noParent || p >= 0 && p < n, "line %d: parent %d of %d", i, p, n)
		}
		leaf := g.activeLeaf()
		require.True(t, leaf >= noParent && leaf < n)
		inc := g.included()
		require.Len(t, inc, (int(n)+63)/64)

		path := filepath.Join(t.TempDir(), "s.jsonl")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		_, stderr := convertSession(t, path, Options{MaxLine: opt.MaxLine})
		// Every report of an unreadable line is at a line of the file.
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
			if l == "" || !strings.HasPrefix(l, path+":") {
				continue
			}
			var line int
			if _, err := fmt.Sscanf(strings.TrimPrefix(l, path+":"), "%d", &line); err == nil {
				require.LessOrEqual(t, line, lines, l)
			}
		}
	})
}
