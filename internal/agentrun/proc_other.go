//go:build !unix

package agentrun

import "syscall"

// Process groups are a Unix notion: elsewhere run is not supported.

const supported = false

func sysProcAttr() *syscall.SysProcAttr { return nil }

func signalGroup(int, syscall.Signal) error { return errUnsupported }

// GroupAlive always reports false where there are no process groups.
func GroupAlive(int) bool { return false }
