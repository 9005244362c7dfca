package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTerminalWaitIsSaid: validate, view and export reading standard input
// that is a terminal say first that they wait there, as the converter
// does; the input ends with Ctrl-D.
func TestTerminalWaitIsSaid(t *testing.T) {
	control, term := openPTY(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate"}, name + ": reading a dialog from standard input (a terminal); Ctrl-D ends it\n"},
		{[]string{"validate", "-"}, name + ": reading a dialog from standard input (a terminal); Ctrl-D ends it\n"},
		{[]string{"view", "--no-pager"}, name + ": reading a dialog or transcript from standard input (a terminal); Ctrl-D ends it\n"},
		{[]string{"export", "--html", "-o", filepath.Join(dir, "p.html"), "-"}, name + ": reading a dialog or transcript from standard input (a terminal); Ctrl-D ends it\n"},
	} {
		_, err := control.Write([]byte("\x04"))
		require.NoError(t, err)
		r := program{args: tc.args, stdin: term}.run(t)
		first, _, _ := strings.Cut(r.stderr, "\n")
		assert.Equal(t, tc.want, first+"\n", "%v", tc.args)
	}
	// Not said when standard input is no terminal.
	r := program{args: []string{"validate"}, stdin: strings.NewReader("")}.run(t)
	assert.NotContains(t, r.stderr, "a terminal")
}
