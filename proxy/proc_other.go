//go:build !unix

package proxy

import (
	"os"
	"os/exec"
)

// setProcessGroup: process groups are a Unix notion. On other systems only
// the backend process itself is supervised (see killGroup).
func setProcessGroup(*exec.Cmd) {}

// killGroup kills the backend process. Without process groups, children it
// started are not reached; this is a known limitation outside Unix.
func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	_ = p.Kill()
	return nil
}

// Signals are the signals on which the CLI should cancel Run's context.
var Signals = []os.Signal{os.Interrupt}

// killMarked: see the Unix variants; not available here.
func killMarked(string) int { return 0 }
