package codexrollout

import (
	"io"
	"os"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

// Inputs reads a path given as FILE: a rollout file (plain, .zst or .gz),
// or a folder holding rollouts at any depth (~/.codex/sessions, a year, a
// day, archived_sessions). Each rollout is one dialog. A path that holds
// no rollout is not this format's (ok false); one whose entries are all
// unreadable is not either, with the first one's error.
func Inputs(path string) (inputs []adapter.Input, ok bool, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, false, err
	}
	claims := func(p string) (bool, error) { return sessionfile.Claims(p, Detect) }
	if !st.IsDir() {
		mine, err := claims(path)
		if err != nil || !mine {
			return nil, false, err
		}
		return []adapter.Input{rollout(path)}, true, nil
	}
	// A bad entry (a dangling symlink, an unreadable file) is one failed
	// input: the other rollouts still convert.
	entries, err := sessionfile.Find(path, nil, claims)
	if err != nil {
		return nil, false, err
	}
	return sessionfile.Inputs(entries, rollout)
}

// ClaimedInputs is Inputs for a rollout file whose first records the
// caller saw Detect claim: it is not read to ask again.
func ClaimedInputs(path string) ([]adapter.Input, error) {
	return []adapter.Input{rollout(path)}, nil
}

// rollout is the input of one rollout file.
func rollout(path string) adapter.Input {
	return adapter.Input{Name: path, Open: func() (io.ReadCloser, error) { return sessionfile.Open(path) }}
}
