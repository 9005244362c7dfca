package inputs

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxPromptFile bounds --prompt-file: a prompt is text a person or a
// harness wrote, and /dev/zero given by mistake must not fill memory.
const MaxPromptFile = 16 << 20

// ReadPromptFile reads --prompt-file as it is, its trailing newline kept:
// a regular file, or a pipe (--prompt-file <(…)), no larger than
// MaxPromptFile. A device, a folder or a socket is refused before it is
// read.
func ReadPromptFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if m := st.Mode(); !m.IsRegular() && m.Type() != fs.ModeNamedPipe {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxPromptFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > MaxPromptFile {
		return "", fmt.Errorf("%s is larger than %d MiB", path, MaxPromptFile>>20)
	}
	return string(b), nil
}
