//go:build unix

package acpclient

import (
	"syscall"

	"github.com/actctl/actctl/launch"
)

// terminateGroup sends SIGTERM to the process group led by pid.
func terminateGroup(pid int) error { return launch.SignalGroup(pid, syscall.SIGTERM) }
