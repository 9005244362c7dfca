package cli

import (
	"io"
	"os"

	"golang.org/x/term"
)

// Streams is what a command gets from its process, as values: its standard
// streams, whether each is a terminal, the size of the terminal it writes
// to, and its environment. main takes them from the process (System); a
// test sets what it needs, a terminal or a variable, without a pty or
// t.Setenv.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// InTerminal and ErrTerminal: the stream is a terminal (IsTerminal).
	InTerminal, ErrTerminal bool
	// OutTerminal: Out is a terminal, OutWidth by OutHeight (0 when its
	// size is unknown).
	OutTerminal         bool
	OutWidth, OutHeight int

	// Getenv returns an environment variable's value, "" when unset.
	Getenv func(string) string
}

// System is the process's streams and environment.
func System() *Streams { return NewStreams(os.Stdin, os.Stdout, os.Stderr) }

// NewStreams returns in, out and errOut with what their files say of
// themselves (a stream that is no *os.File is no terminal), and the
// process's environment.
func NewStreams(in io.Reader, out, errOut io.Writer) *Streams {
	s := &Streams{In: in, Out: out, ErrOut: errOut, InTerminal: IsTerminal(in), ErrTerminal: IsTerminal(errOut), Getenv: os.Getenv}
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		s.OutTerminal = true
		if w, h, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			s.OutWidth, s.OutHeight = w, h
		}
	}
	return s
}

// Env returns a Getenv that reads env alone: an environment given as a value.
func Env(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}
