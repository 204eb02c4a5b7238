//go:build unix && !linux

package proxy

import "syscall"

// setParentDeathSignal: there is no parent-death signal outside Linux; the
// proxy's own paths (EOF, signals, crash) still kill the group.
func setParentDeathSignal(*syscall.SysProcAttr) {}
