//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own, so it outlives actctl and
// receives none of the terminal's signals.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
