//go:build !unix

package launch

import (
	"fmt"
	"os"
	"os/exec"
)

// SetProcessGroup: process groups are a Unix notion. On other systems only
// the backend process itself is supervised (see KillGroup).
func SetProcessGroup(*exec.Cmd) {}

// KillGroup kills the backend process. Without process groups, children it
// started are not reached; this is a known limitation outside Unix.
func KillGroup(pid int) error {
	if pid <= 1 {
		return fmt.Errorf("refusing to kill process %d: actctl did not start it", pid)
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	_ = p.Kill()
	return nil
}

// TerminateGroup: without signals to ask a process to end, it is killed
// (see KillGroup).
func TerminateGroup(pid int) error { return KillGroup(pid) }

// Signals are the signals on which the CLI should cancel a supervisor's context.
var Signals = []os.Signal{os.Interrupt}

// KillMarked: see the Unix variants; not available here.
func KillMarked(string) (int, error) { return 0, nil }
