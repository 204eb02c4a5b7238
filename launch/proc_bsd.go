//go:build unix && !linux

package launch

import "syscall"

// setParentDeathSignal: there is no parent-death signal outside Linux; the
// supervisor's own paths (EOF, signals, crash) still kill the group.
func setParentDeathSignal(*syscall.SysProcAttr) {}

// KillMarked: other Unix systems have no portable way to read another
// process's environment, so descendants that left the backend's process
// group are not found there (a known limitation).
func KillMarked(string) (int, error) { return 0, nil }
