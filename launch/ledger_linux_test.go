package launch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSweepChecksStartTimes: a ledger whose owner is gone is swept: a
// recorded process still running with its recorded start time is killed
// with its group; one whose pid now belongs to a process that started at
// another time (a reused pid) is left alone. A ledger whose owner runs is
// not touched.
func TestSweepChecksStartTimes(t *testing.T) {
	dir := t.TempDir()
	sleep := func() *exec.Cmd {
		c := exec.Command("sleep", "1000")
		SetProcessGroup(c)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
		return c
	}
	left, reused, owned := sleep(), sleep(), sleep()
	start := func(c *exec.Cmd) uint64 {
		s, err := startTime(c.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Owner pid 0x7fffffff: no such process, so it is gone.
	dead := write(fmt.Sprintf("%d-1%s", 0x7fffffff, ledgerSuffix), fmt.Sprintf("%d %d m1\n%d %d m2\n- - m3\n",
		left.Process.Pid, start(left), reused.Process.Pid, start(reused)+1))
	// The owner runs (the process owned, with its own start time).
	alive := write(fmt.Sprintf("%d-%d%s", owned.Process.Pid, start(owned), ledgerSuffix), fmt.Sprintf("%d %d m4\n", reused.Process.Pid, start(reused)))
	n, err := Sweep(dir)
	if err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1", n, err)
	}
	waitErr := left.Wait()
	if ws, ok := left.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Errorf("the recorded process: %v, want killed", waitErr)
	}
	if !PIDAlive(reused.Process.Pid) || !PIDAlive(owned.Process.Pid) {
		t.Errorf("a reused pid or a live owner's process was killed")
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the swept ledger stays: %v", err)
	}
	if _, err := os.Stat(alive); err != nil {
		t.Errorf("the live owner's ledger: %v", err)
	}
}
