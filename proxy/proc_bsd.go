//go:build unix && !linux

package proxy

import "syscall"

// setParentDeathSignal: there is no parent-death signal outside Linux; the
// proxy's own paths (EOF, signals, crash) still kill the group.
func setParentDeathSignal(*syscall.SysProcAttr) {}

// killMarked: other Unix systems have no portable way to read another
// process's environment, so descendants that left the backend's process
// group are not found there (a known limitation).
func killMarked(string) int { return 0 }
