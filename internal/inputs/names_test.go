package inputs

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDialogNames(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{"extensions dropped", []string{"/r/t.jsonl", "/r/u.ndjson.gz", "/r/v.json", "/r/w", "/r/x.txt"},
			[]string{"t.dialog.jsonl", "u.dialog.jsonl", "v.dialog.jsonl", "w.dialog.jsonl", "x.txt.dialog.jsonl"}},
		{"only one extension dropped", []string{"/r/t.json.jsonl"}, []string{"t.json.dialog.jsonl"}},
		{"same name in run folders", []string{"/runs/a1/transcript.jsonl", "/runs/b2/transcript.jsonl", "/runs/c3/other.jsonl"},
			[]string{"a1_transcript.dialog.jsonl", "b2_transcript.dialog.jsonl", "other.dialog.jsonl"}},
		{"as many folders as it takes", []string{"/p/a/t.jsonl", "/q/a/t.jsonl", "/r/b/t.jsonl"},
			[]string{"p_a_t.dialog.jsonl", "q_a_t.dialog.jsonl", "b_t.dialog.jsonl"}},
		{"one path inside the other", []string{"/x/t.jsonl", "/a/x/t.jsonl"},
			[]string{"x_t.dialog.jsonl", "a_x_t.dialog.jsonl"}},
		{"same folder, other extension", []string{"/d/t.jsonl", "/d/t.jsonl.gz"},
			[]string{"t.jsonl.dialog.jsonl", "t.jsonl.gz.dialog.jsonl"}},
		{"the same file twice", []string{"/d/t.jsonl", "/d/t.jsonl", "/d/t.jsonl"},
			[]string{"t.dialog.jsonl", "t-2.dialog.jsonl", "t-3.dialog.jsonl"}},
		{"case-insensitive clash", []string{"/d/T.jsonl", "/e/t.jsonl"},
			[]string{"d_T.dialog.jsonl", "e_t.dialog.jsonl"}},
		{"root", []string{"/t.jsonl", "/d/t.jsonl"}, []string{"t.dialog.jsonl", "d_t.dialog.jsonl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, DialogNames(tt.files))
			// The name of a file does not depend on where it stands in the list.
			rev := slices.Clone(tt.files)
			slices.Reverse(rev)
			got := DialogNames(rev)
			slices.Reverse(got)
			if !slices.Equal(tt.files, rev) {
				assert.Equal(t, tt.want, got, "reversed input order")
			}
		})
	}
}

func TestDialogNamesUnder(t *testing.T) {
	names, outside := DialogNamesUnder("/data/runs", []string{
		"/data/runs/a1/transcript.jsonl",
		"/data/runs/b2/x/transcript.jsonl.gz",
		"/data/runs/top.ndjson",
		"/data/runs/a1/transcript.jsonl", // given twice
		"/data/runs/A1/Transcript.jsonl", // the same name to a file system that ignores case
	})
	require.Empty(t, outside)
	assert.Equal(t, []string{
		"a1_transcript.dialog.jsonl",
		"b2_x_transcript.dialog.jsonl",
		"top.dialog.jsonl",
		"a1_transcript-2.dialog.jsonl",
		"A1_Transcript-3.dialog.jsonl",
	}, names)

	// A name is its path's alone: the same in any company.
	alone, _ := DialogNamesUnder("/data/runs", []string{"/data/runs/b2/x/transcript.jsonl.gz"})
	assert.Equal(t, []string{"b2_x_transcript.dialog.jsonl"}, alone)

	for _, f := range []string{"/data/other/t.jsonl", "/data/runs", "/data/runs/../t.jsonl", "/data/runsx/t.jsonl"} {
		names, outside := DialogNamesUnder("/data/runs", []string{"/data/runs/a/t.jsonl", f})
		assert.Equal(t, f, outside, f)
		assert.Nil(t, names, f)
	}
}

// TestBaseNamesShardsAlike: two shards of one file list, each its own
// batch, name their dialogs from the path below --base, so the names
// are those one batch of the whole list gives, and never meet.
