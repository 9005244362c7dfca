package gemini

import (
	"bytes"
	"strconv"
)

// ShellTool is the name of Gemini CLI's shell tool.
const ShellTool = "run_shell_command"

// ShellExitCode reads the exit code that the output of a Gemini CLI shell
// call states, from the body of its literal (escapes kept). Gemini CLI
// marks a command that ran, whatever its exit code, as a success; only its
// text says the code:
//
//   - the text the shell tool gives the model (a chat file's function
//     response; the stream's output in debug mode) ends with a trailer of
//     "Name: value" lines after the command's output, "Exit Code: N"
//     among them (0.1x: always, "(none)" when there was none; later: only
//     when N is not 0), followed only by Signal, Background PIDs, Process
//     Group PGID and the closing </untrusted_context>. Only that trailer
//     is read, from the end: an "Exit Code:" line the command printed
//     itself is above it;
//   - the text it displays (the stream's output) is the command's output,
//     or, when there was none, "Command exited with code: N".
//
// ok is false when the text states no integer code.
func ShellExitCode(body []byte) (code int64, ok bool) {
	return shellExitCode(body, false)
}

// DisplayedExitCode is ShellExitCode for the text the stream displays: a
// trailer counts only with a line of it beside "Exit Code:" (debug mode
// writes the whole trailer), since a last line "Exit Code: N" alone may
// be the end of what the command printed.
func DisplayedExitCode(body []byte) (code int64, ok bool) {
	return shellExitCode(body, true)
}

func shellExitCode(body []byte, needMarker bool) (code int64, ok bool) {
	if rest, found := bytes.CutPrefix(body, []byte("Command exited with code: ")); found {
		return integer(rest)
	}
	marker := false
	for rest := body; ; {
		var line []byte
		if i := lastNewline(rest); i < 0 {
			line, rest = rest, nil
		} else {
			line, rest = rest[i+2:], rest[:i]
		}
		line = bytes.TrimSuffix(line, []byte(`\r`))
		switch {
		case bytes.HasPrefix(line, []byte("Exit Code: ")):
			if needMarker && !marker {
				return 0, false
			}
			return integer(line[len("Exit Code: "):])
		case len(line) == 0:
		case bytes.HasPrefix(line, []byte("Signal: ")),
			bytes.HasPrefix(line, []byte("Background PIDs: ")),
			bytes.HasPrefix(line, []byte("Process Group PGID: ")),
			string(line) == "</untrusted_context>":
			marker = true
		default:
			return 0, false
		}
		if rest == nil {
			return 0, false
		}
	}
}

// lastNewline returns where the last escaped newline (\n, not the end of
// an escaped backslash followed by an n) starts in a literal's body, or -1.
func lastNewline(body []byte) int {
	for end := len(body); ; {
		i := bytes.LastIndex(body[:end], []byte(`\n`))
		if i < 0 {
			return -1
		}
		slashes := 0
		for j := i - 1; j >= 0 && body[j] == '\\'; j-- {
			slashes++
		}
		if slashes%2 == 0 {
			return i
		}
		end = i
	}
}

// integer reads b as a whole decimal integer, a sign allowed.
func integer(b []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	return n, err == nil
}
