package adaptertest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	"github.com/ssebench/sse-dialog-convert/internal/testskip"
)

// Source says how real captures of a format are converted: as the command
// converts a file, detected among the formats given, or forced.
type Source struct {
	// Format is the captures' format.
	Format adapter.Format
	// Among are the formats detection chooses from (registry.All(), which
	// the kit cannot import); nil means Format alone.
	Among []adapter.Format
	// Forced takes the input to be in Format, without detection.
	Forced  bool
	Options dialog.Options
}

// Convert converts r as the command does and requires what holds of every
// real capture: it is decided for Format and recognised as such, no
// record is bad, nothing is reported, and the dialog is valid.
func (s Source) Convert(t testing.TB, r io.Reader, name string) Dialog {
	t.Helper()
	formats := s.Among
	if s.Forced || formats == nil {
		formats = []adapter.Format{s.Format}
	}
	var out, diag bytes.Buffer
	c := dispatch.New(&out, s.Options, dispatch.Options{Formats: formats, Forced: s.Forced, Stderr: &diag})
	require.NoError(t, c.Feed(r, name))
	require.NoError(t, c.Close(nil))
	got, ok := c.Format()
	require.True(t, ok, "no format decided")
	require.Equal(t, s.Format.Name, got.Name, "decided for the wrong format")
	assert.Empty(t, diag.String(), "the pipeline reported bad input")
	assert.Zero(t, c.Stats().Bad, "bad records")
	assert.NotZero(t, c.Stats().Recognised, "not recognised as %s", s.Format.Name)
	d := Decoded(t, out.Bytes())
	d.Stderr = diag.String()
	return d
}

// CheckEnding checks the dialog's complete entry against how the source
// ended: status "success", "error" with message (not for want of an
// ending), or "" where the source never ended (an error: incomplete).
func (d Dialog) CheckEnding(t testing.TB, status, message string) {
	t.Helper()
	switch status {
	case "success":
		assert.Equal(t, "success", d.Complete.Str("status"))
	case "error":
		assert.Equal(t, "error", d.Complete.Str("status"))
		assert.Equal(t, message, d.Complete.Str("message"))
		assert.NotEqual(t, dialog.ReasonIncomplete, d.Complete.Str("reason"))
	default:
		assert.Equal(t, "error", d.Complete.Str("status"))
		assert.Equal(t, dialog.ReasonIncomplete, d.Complete.Str("reason"))
	}
}

// Capture is one real capture: its file and its bytes.
type Capture struct {
	Path string
	Src  []byte
}

// Oracle converts each file (a subtest named by its base name) and hands
// the capture and its dialog to check, the format's independent reading
// of the capture.
func (s Source) Oracle(t *testing.T, files []string, check func(t *testing.T, c Capture, d Dialog)) {
	t.Helper()
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			check(t, Capture{Path: f, Src: src}, s.Convert(t, bytes.NewReader(src), f))
		})
	}
}

// Captures is Files over a folder of the shared corpus: where it holds no
// capture (the corpus is not checked out beside the repo) the test skips,
// as internal/testskip says.
func Captures(t testing.TB, dir string, patterns ...string) []string {
	t.Helper()
	files := Files(t, dir, patterns...)
	if len(files) == 0 {
		testskip.Missingf(t, "no captures in %s (the shared corpus is not checked out beside the repo)", dir)
	}
	return files
}

// Input converts one input of a format's Inputs, as Convert does.
func (s Source) Input(t testing.TB, in adapter.Input) Dialog {
	t.Helper()
	r, err := in.Open()
	require.NoError(t, err)
	defer r.Close()
	return s.Convert(t, r, in.Name)
}

// CorpusDir skips the test, as internal/testskip says, when the corpus
// folder dir is not there (the shared corpus is not checked out beside the
// repo).
func CorpusDir(t testing.TB, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		testskip.Missingf(t, "no captures in %s (the shared corpus is not checked out beside the repo)", dir)
	}
}

// CorpusFolders are the names of the folders of the shared corpus at dir,
// a format each; the test skips, as CorpusDir, where dir is not there.
func CorpusFolders(t testing.TB, dir string) []string {
	t.Helper()
	CorpusDir(t, dir)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var folders []string
	for _, e := range entries {
		if e.IsDir() {
			folders = append(folders, e.Name())
		}
	}
	return folders
}

// Sessions are the inputs a format's Inputs finds in a corpus folder of
// session files; the test skips where the folder is not there.
func Sessions(t testing.TB, dir string, inputs func(path string) ([]adapter.Input, bool, error)) []adapter.Input {
	t.Helper()
	CorpusDir(t, dir)
	ins, ok, err := inputs(dir)
	require.NoError(t, err)
	require.True(t, ok, "%s is not claimed as a folder of sessions", dir)
	return ins
}

// WantTokens is what an independent reading of an input says of its
// message entries' tokens: how many entries carry them, and their sum.
type WantTokens struct {
	Count int
	Sum   Tokens
	// MainOnly says the total counts the main thread alone (not the
	// subagents), so that only the main thread's sum is held to it.
	MainOnly bool
}

// MessageTokensOf converts each input (a subtest named by name) and checks
// the tokens of its message entries: never more, summed, than the total,
// and what expect says. Some entry must carry tokens.
func (s Source) MessageTokensOf(t *testing.T, ins []adapter.Input, name func(adapter.Input) string, expect func(t *testing.T, in adapter.Input) WantTokens) {
	t.Helper()
	carried := 0
	for _, in := range ins {
		t.Run(name(in), func(t *testing.T) {
			got := ReadMessageTokens(t, s.Input(t, in).Out)
			want := expect(t, in)
			if want.MainOnly {
				RequireWithin(t, got.Main, got.Total)
			} else {
				RequireWithin(t, got.Sum(), got.Total)
			}
			assert.Equal(t, want.Count, got.Carried, "message entries with tokens")
			assert.Equal(t, want.Sum, got.Sum(), "message tokens, summed")
			carried += got.Carried
		})
	}
	assert.Positive(t, carried, "no input gave a message entry tokens")
}

// FileInputs are files as inputs, each named by its path.
func FileInputs(files []string) []adapter.Input {
	ins := make([]adapter.Input, len(files))
	for i, f := range files {
		ins[i] = adapter.Input{Name: f, Open: func() (io.ReadCloser, error) { return os.Open(f) }}
	}
	return ins
}

// BaseName names an input's subtest by its file's base name.
func BaseName(in adapter.Input) string { return filepath.Base(in.Name) }
