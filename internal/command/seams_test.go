package command

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
)

func testStreams(in string) (*cli.Streams, *strings.Builder, *strings.Builder) {
	var out, errOut strings.Builder
	return &cli.Streams{In: strings.NewReader(in), Out: &out, ErrOut: &errOut, Getenv: cli.Env(nil)}, &out, &errOut
}

// TestViewAsksItsSources: view takes what it shows from the Sources it is
// given: a folder they say holds two sessions is refused, naming the first;
// a dialog they return is drawn; their conversion's failure is view's.
func TestViewAsksItsSources(t *testing.T) {
	t.Parallel()
	dialog, err := os.ReadFile("../../testdata/view/showcase.dialog.jsonl")
	require.NoError(t, err)
	conv := Sources{
		Sessions: func(file string, _ io.Reader) []string {
			if file == "folder" {
				return []string{"folder/a.jsonl", "folder/b.jsonl"}
			}
			return nil
		},
		Dialog: func(_ context.Context, file string, _ io.Reader, _ bool, _ io.Writer, _ int) (io.ReadCloser, error) {
			if file == "broken" {
				return failing{}, nil
			}
			return io.NopCloser(strings.NewReader(string(dialog))), nil
		},
	}
	o := ViewOptions{Color: "never", MaxText: 16 << 10}

	s, _, _ := testStreams("")
	err = View(context.Background(), o, "folder", s, conv)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "folder holds 2 sessions and view shows one: name it (sse-dialog-convert view folder/a.jsonl)")

	s, out, _ := testStreams("")
	require.NoError(t, View(context.Background(), o, "run.jsonl", s, conv))
	assert.Contains(t, out.String(), "■ success")

	s, _, _ = testStreams("")
	assert.EqualError(t, View(context.Background(), o, "broken", s, conv), "the conversion failed")
}

// failing is a conversion that fails: no lines, and its failure on Close.
type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, io.EOF }
func (failing) Close() error             { return errors.New("the conversion failed") }

// TestValidateAsksWhoClaimsAFile: a FILE that is no dialog and that
// Claimed says a format reads whole is named as that input, with what to do.
func TestValidateAsksWhoClaimsAFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(file, []byte("not a dialog\n"), 0o600))
	claimed := func(path string, dir bool) (string, int) {
		if path == file && !dir {
			return "Some Agent's session file", 1
		}
		return "", 0
	}
	s, out, errOut := testStreams("")
	err := Validate([]string{file}, false, s, claimed)
	assert.Equal(t, 1, cli.ExitCode(err))
	assert.Empty(t, out.String())
	assert.Contains(t, errOut.String(), file+" is Some Agent's session file, an input, not a dialog: convert it first (sse-dialog-convert "+file+" -o dialog.jsonl)")
}
