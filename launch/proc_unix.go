//go:build unix

package launch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// SetProcessGroup starts the backend as the leader of a new process group,
// so that everything it forks (language servers, shells, `sleep`) can be
// signalled at once and none of it outlives its supervisor. It also keeps a
// terminal's Ctrl-C (sent to the foreground group) from reaching the backend
// behind the supervisor's back: the supervisor decides when the group dies.
func SetProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
}

// KillGroup sends SIGKILL to the process group led by pid. ESRCH (the group
// is already empty) is not an error.
func KillGroup(pid int) error { return SignalGroup(pid, syscall.SIGKILL) }

// TerminateGroup asks the process group led by pid to end (SIGTERM).
func TerminateGroup(pid int) error { return SignalGroup(pid, syscall.SIGTERM) }

// SignalGroup sends sig to the process group led by pid. ESRCH (the group
// is already empty) is not an error. A pid below 2 names no group of a
// process actctl started (kill(2) would read -1 as every process and 0 as
// our own group): refused.
func SignalGroup(pid int, sig syscall.Signal) error {
	if pid <= 1 {
		return fmt.Errorf("refusing to signal process group %d: no process actctl started leads it", pid)
	}
	err := syscall.Kill(-pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// Signals are the signals on which the CLI should cancel a supervisor's context
// (SIGINT, SIGTERM and SIGHUP kill the backend's group).
var Signals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
