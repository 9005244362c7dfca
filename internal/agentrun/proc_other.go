//go:build !unix

package agentrun

import (
	"errors"
	"syscall"
)

// Process groups are a Unix notion: elsewhere run is not supported.

const supported = false

var errUnsupported = errors.New("run needs process groups, which this system lacks")

func sysProcAttr() *syscall.SysProcAttr { return nil }

func signalGroup(int, syscall.Signal) error { return errUnsupported }

// GroupAlive always reports false where there are no process groups.
func GroupAlive(int) bool { return false }
