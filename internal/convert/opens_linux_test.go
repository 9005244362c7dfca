package convert

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/inputs"
	"github.com/ssebench/sse-dialog-convert/internal/registry"
)

// opensOf counts, by file name, how often the files in dir are opened
// while do runs: inotify sees every open, whoever makes it (the sniffing,
// a format's Inputs, the conversion's passes).
func opensOf(t *testing.T, dir string, do func()) map[string]int {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	require.NoError(t, err)
	defer syscall.Close(fd)
	// Closes are watched too: the kernel coalesces an event with the
	// unread one before it when both are the same, two opens in a row.
	_, err = syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN|syscall.IN_CLOSE)
	require.NoError(t, err)
	do()
	opens := map[string]int{}
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(fd, buf)
		if errors.Is(err, syscall.EAGAIN) || n <= 0 {
			return opens
		}
		for b := buf[:n]; len(b) >= syscall.SizeofInotifyEvent; {
			mask := binary.NativeEndian.Uint32(b[4:8])
			size := int(binary.NativeEndian.Uint32(b[12:16]))
			name := string(bytes.TrimRight(b[syscall.SizeofInotifyEvent:syscall.SizeofInotifyEvent+size], "\x00"))
			if mask&syscall.IN_OPEN != 0 && mask&syscall.IN_ISDIR == 0 && name != "" {
				opens[name]++
			}
			b = b[syscall.SizeofInotifyEvent+size:]
		}
	}
}

// TestOpensPerFile: converting a FILE opens it at most twice, the first
// time to sniff its first records: a format's Inputs do not open it again
// to ask what the sniffing saw, and a Claude session file's two passes
// (its conversation first, then the stream) read one open file.
func TestOpensPerFile(t *testing.T) {
	for _, tc := range []struct {
		fixture, name string
		format        string // the format that claims it; "" a stream
		opens         int
	}{
		{"../../testdata/claude/text-only.in.jsonl", "stream.jsonl", "", 2},
		{"../../testdata/codex-rollout/exec-tools.in.jsonl", "rollout-2025-01-01T00-00-00-0194b2f0-0000-7000-8000-000000000000.jsonl", "codex-rollout", 2},
		{"../../testdata/claude-session/print-mode-2.1.in.jsonl", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl", "claude-session", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			raw, err := os.ReadFile(tc.fixture)
			require.NoError(t, err)
			path := filepath.Join(dir, tc.name)
			require.NoError(t, os.WriteFile(path, raw, 0o644))
			var res Result
			opens := opensOf(t, dir, func() {
				src, err := inputs.OneDialog(inputs.Sources([]string{path}, registry.All(), false, nil, 1))
				require.NoError(t, err)
				if tc.format == "" {
					assert.Nil(t, src.Format)
				} else {
					require.NotNil(t, src.Format)
					assert.Equal(t, tc.format, src.Format.Name)
				}
				s := SourceSpec(src, dispatch.Options{Formats: registry.All()}, dialog.Options{Clock: dialog.FixedClock(time.Unix(0, 0))}, "auto", io.Discard)
				s.Out = WriterOutput("the dialog", io.Discard)
				res, err = New(s).Run(context.Background())
				require.NoError(t, err)
			})
			assert.Positive(t, res.Entries, "it converted")
			assert.Equal(t, tc.opens, opens[tc.name], "opens of %s", tc.name)
		})
	}
}
