//go:build !unix

package proxy

import (
	"os"
	"os/exec"
	"testing"
)

// requireGone: without /proc and process groups the tests cannot tell that
// a backend's processes are gone (see procs_unix_test.go); the tests that
// check it skip that part here.
func requireGone(t *testing.T, _ ...int) {
	t.Helper()
	t.Skip("checking that processes are gone needs a Unix system")
}

// killAll is a safety net so a failing test leaves no processes behind.
func killAll(pids []int) {
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	}
}

// newSession: sessions are a Unix notion.
func newSession(*exec.Cmd) {}
