//go:build unix

package control

import (
	"os/exec"
	"syscall"
)

// ownGroup starts kubectl in a process group of its own: a Ctrl-C at the
// terminal reaches actctl alone, which ends the request and then kills
// kubectl (Close), instead of kubectl dying first and the request ending
// as if up had gone away.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
