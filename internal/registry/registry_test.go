package registry

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
)

// corpusDir holds real captures by other people, never copied into the
// repo; one folder per format, named as the format.
const corpusDir = "../../../shared/corpus"

func TestNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range All() {
		require.NotEmpty(t, f.Name)
		require.NotEmpty(t, f.Title, f.Name)
		require.NotNil(t, f.Detect, f.Name)
		assert.False(t, seen[f.Name], "two formats named %s", f.Name)
		assert.NotEqual(t, "auto", f.Name, "auto is --format's own value")
		seen[f.Name] = true
	}
}

// TestGolden runs the adapter kit over every readable format's golden
// cases in testdata/<format>: whole, a byte at a time, in random chunks,
// with CRLF, with each record overwritten after its event.
func TestGolden(t *testing.T) {
	for _, f := range Readable() {
		t.Run(f.Name, func(t *testing.T) {
			adaptertest.Run(t, f, filepath.Join("..", "..", "testdata", f.Name))
		})
	}
}

// TestDetectionIsExclusive: every fixture and every real capture is
// decided for its own format by auto-detection, no other format claims
// any of its events as surely its own, and before its own format claims
// one surely no other format has more Maybe claims than its own (the
// capture cut there would be taken for the other). Captures of formats
// not read yet are claimed by no format that is.
//
// formatsToCome are corpus folders whose captures came before their format:
// reported, not failing, until the format is registered (then the name goes).
var formatsToCome = map[string]bool{}

func TestDetectionIsExclusive(t *testing.T) {
	inputs := map[string][]string{} // format name -> files
	for _, f := range All() {
		fixtures, _ := filepath.Glob(filepath.Join("..", "..", "testdata", f.Name, "*.in.jsonl"))
		inputs[f.Name] = append(inputs[f.Name], fixtures...)
	}
	if _, err := os.Stat(corpusDir); err == nil {
		dirs, err := os.ReadDir(corpusDir)
		require.NoError(t, err)
		for _, d := range dirs {
			if d.IsDir() {
				inputs[d.Name()] = append(inputs[d.Name()], captures(t, filepath.Join(corpusDir, d.Name()))...)
			}
		}
	} else {
		t.Logf("no captures in %s (the shared corpus is not checked out): fixtures only", corpusDir)
	}
	names := make([]string, 0, len(inputs))
	for n := range inputs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		own, known := Lookup(name)
		if !known && formatsToCome[name] {
			t.Logf("corpus folder %s: its format is still to come (not registered yet): %d captures not checked", name, len(inputs[name]))
			continue
		}
		for _, file := range inputs[name] {
			t.Run(name+"/"+filepath.Base(file), func(t *testing.T) {
				require.True(t, known, "corpus folder %s is no registered format", name)
				raw, err := os.ReadFile(file)
				require.NoError(t, err)
				var out bytes.Buffer
				c := dispatch.New(&out, dialog.Options{}, dispatch.Options{Formats: All()})
				require.NoError(t, c.Feed(bytes.NewReader(raw), file))
				require.NoError(t, c.Close(nil))
				got, ok := c.Format()
				require.True(t, ok, "no format detected")
				assert.Equal(t, own.Name, got.Name, "detected as the wrong format")
				// Until own says Yes, dispatch holds the events and tallies
				// the Maybe claims: were the capture cut there, the format
				// with the most would be chosen. Equal counts are events
				// that look the same to both (what Maybe says), no claim
				// on another's.
				sure := false
				maybes := map[string]int{}
				outvoted := map[string]bool{}
				forEachEvent(t, raw, func(ev adapter.Event) {
					for _, f := range All() {
						claim := f.Detect(ev)
						if f.Name != own.Name && claim == adapter.Yes {
							t.Errorf("%s claims an event of %s: %.200s", f.Name, own.Name, ev.Bytes())
						}
						if claim == adapter.Maybe && !sure {
							maybes[f.Name]++
						}
					}
					if sure = sure || own.Detect(ev) == adapter.Yes; sure {
						return
					}
					for _, f := range All() {
						if n := maybes[f.Name]; n > maybes[own.Name] && !outvoted[f.Name] {
							outvoted[f.Name] = true
							t.Errorf("before %s claims an event surely, %s has more Maybe claims (%d to %d): a capture cut at %.200s is taken for %s", own.Name, f.Name, n, maybes[own.Name], ev.Bytes(), f.Name)
						}
					}
				})
			})
		}
	}
}

// captures lists a corpus folder's files: every capture, and the files of
// session folders inside it.
func captures(t *testing.T, dir string) []string {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		base := d.Name()
		if strings.HasPrefix(base, "SOURCES") || strings.HasPrefix(base, "README") || strings.HasSuffix(base, ".meta.json") {
			return nil
		}
		files = append(files, path)
		return nil
	})
	require.NoError(t, err)
	return files
}

// forEachEvent calls fn with every event of raw, as the pipeline reads
// them.
func forEachEvent(t *testing.T, raw []byte, fn func(adapter.Event)) {
	for ev, err := range dispatch.Events(bytes.NewReader(raw)) {
		require.NoError(t, err)
		fn(ev)
	}
}
