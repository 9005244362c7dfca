package gemini

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

func TestShellExitCode(t *testing.T) {
	tests := []struct {
		name   string
		output string // a JSON string literal, as the file holds it
		code   int64
		ok     bool
	}{
		{"trailer of 0.61", `"<untrusted_context>\nOutput: ls: cannot access '/x'\nExit Code: 2\nProcess Group PGID: 2444\n</untrusted_context>"`, 2, true},
		{"trailer without wrapper", `"Output: oops\nExit Code: 127\nProcess Group PGID: 9"`, 127, true},
		{"trailer of 0.1x", `"Command: false\nDirectory: (root)\nStdout: (empty)\nStderr: (empty)\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 73"`, 1, true},
		{"0.1x success", `"Command: true\nStdout: (empty)\nExit Code: 0\nSignal: (none)"`, 0, true},
		{"0.1x no code", `"Command: sleep 9\nExit Code: (none)\nSignal: 15"`, 0, false},
		{"trailer last", `"Output: x\nExit Code: 3"`, 3, true},
		{"CRLF trailer", `"Output: x\r\nExit Code: 4\r\nProcess Group PGID: 1\r\n"`, 4, true},
		{"display of a command with no output", `"Command exited with code: 1"`, 1, true},
		{"success: no Exit Code line", `"<untrusted_context>\nOutput: recovered\nProcess Group PGID: 2448\n</untrusted_context>"`, 0, false},
		{"the command printed the words, above the trailer", `"Output: Exit Code: 7\nProcess Group PGID: 4107"`, 0, false},
		{"the command printed it, then more output", `"Output: a\nExit Code: 7\nmore\nProcess Group PGID: 1"`, 0, false},
		{"an escaped backslash before n is no newline", `"Output: a\\nExit Code: 5"`, 0, false},
		{"display: the output alone", `"ls: cannot access '/missing': No such file or directory"`, 0, false},
		{"not a number", `"Output: x\nExit Code: two"`, 0, false},
		{"display with more after", `"Command exited with code: 1\nmore"`, 0, false},
		{"empty", `""`, 0, false},
	}
	for _, tt := range tests {
		v, ok := jsonraw.Parse([]byte(tt.output))
		if !assert.True(t, ok, tt.name) {
			continue
		}
		code, ok := ShellExitCode(v.Body())
		assert.Equal(t, tt.ok, ok, tt.name)
		assert.Equal(t, tt.code, code, tt.name)
	}
}

// TestDisplayedExitCode: in the stream's displayed output a last line
// "Exit Code: N" alone may be the end of what the command printed (a log
// it showed): only a trailer with its other lines, or Gemini CLI's own
// "Command exited with code: N", says how the command exited.
func TestDisplayedExitCode(t *testing.T) {
	for output, want := range map[string]int64{
		`"retrying flaky step\nExit Code: 1"`:                    -1,
		`"Output: x\nExit Code: 3"`:                              -1,
		`"Output: x\nExit Code: 3\nProcess Group PGID: 9"`:       3,
		`"Output: x\nExit Code: 2\nSignal: (none)\n"`:            2,
		`"Command exited with code: 1"`:                          1,
		`"<untrusted_context>\nOutput: x\n</untrusted_context>"`: -1,
	} {
		v, ok := jsonraw.Parse([]byte(output))
		require.True(t, ok)
		code, ok := DisplayedExitCode(v.Body())
		if want < 0 {
			assert.False(t, ok, output)
			continue
		}
		assert.True(t, ok, output)
		assert.Equal(t, want, code, output)
	}
}
