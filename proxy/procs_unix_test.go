//go:build unix

package proxy

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

// The tests' process checks: signals and /proc, so Unix only (see
// procs_other_test.go).

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// state is the field after the parenthesized command name
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z' && b[i+2] != 'X'
	}
	return true
}

func requireGone(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		eventually(t, "process "+strconv.Itoa(pid)+" to be gone ("+procInfo(pid)+")", func() bool { return !alive(pid) })
	}
}

// procInfo describes pid for a failure message: its stat line and command
// line as they were when the wait began (a leftover process and a reused
// pid look different here).
func procInfo(pid int) string {
	stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return fmt.Sprintf("stat %q, cmdline %q", bytes.TrimSpace(stat), bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))
}

// killAll is a safety net so a failing test leaves no sleep processes.
func killAll(pids []int) {
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// newSession starts c in a new session, out of the backend's process
// group (a daemon).
func newSession(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
