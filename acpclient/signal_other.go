//go:build !unix

package acpclient

import "github.com/actctl/actctl/launch"

// terminateGroup: without signals to ask a process to end, the backend is
// killed (see launch.KillGroup).
func terminateGroup(pid int) error { return launch.KillGroup(pid) }
