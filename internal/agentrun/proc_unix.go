//go:build unix

package agentrun

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// supported: process groups exist here.
const supported = true

// sysProcAttr starts the agent as the leader of a new process group, so a
// signal reaches everything it started (tools, subagents, MCP servers).
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func signalGroup(pgid int, sig syscall.Signal) error { return syscall.Kill(-pgid, sig) }

// GroupAlive reports whether process group pgid has a member that is not a
// zombie. kill(-pgid, 0) alone counts zombies, and orphans stay zombies
// until init reaps them (seconds, in some containers), so where /proc can
// be read it is asked instead.
func GroupAlive(pgid int) bool {
	if alive, ok := procGroupAlive(pgid); ok {
		return alive
	}
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// procGroupAlive scans /proc; ok is false when /proc cannot be read.
func procGroupAlive(pgid int) (alive, ok bool) {
	d, err := os.Open("/proc")
	if err != nil {
		return false, false
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return false, false
	}
	seen := false
	buf := make([]byte, 0, 512)
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		seen = true
		stat, err := readSmall("/proc/"+n+"/stat", buf)
		if err != nil {
			continue // gone meanwhile
		}
		state, pg, ok := parseStat(stat)
		if ok && pg == pgid && state != 'Z' && state != 'X' {
			return true, true
		}
	}
	return false, seen
}

func readSmall(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n, err := f.Read(buf[:cap(buf)])
	return buf[:n], err
}

// parseStat reads the state and process group from /proc/PID/stat:
// "pid (comm) state ppid pgrp …", where comm may hold spaces and parentheses.
func parseStat(b []byte) (state byte, pgid int, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}
