//go:build unix

package convert

import (
	"errors"
	"syscall"
)

// processRuns reports whether a process with this id exists (another
// user's counts: it is not ours to judge).
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
