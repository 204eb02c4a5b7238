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
	m1 := NewMark()
	left, reused, owned := sleeper(t, m1), sleeper(t, ""), sleeper(t, "")
	// Owner pid 0x7fffffff: no such process, so it is gone.
	dead := writeLedger(t, dir, fmt.Sprintf("%d-1%s", 0x7fffffff, ledgerSuffix), fmt.Sprintf("%d %d %s\n%d %d %s\n- - %s\n",
		left.Process.Pid, startOf(t, left), m1, reused.Process.Pid, startOf(t, reused)+1, NewMark(), NewMark()))
	// The owner runs (the process owned, with its own start time).
	alive := writeLedger(t, dir, fmt.Sprintf("%d-%d%s", owned.Process.Pid, startOf(t, owned), ledgerSuffix), fmt.Sprintf("%d %d %s\n", reused.Process.Pid, startOf(t, reused), NewMark()))
	n, err := Sweep(dir)
	if err != nil || n < 1 {
		t.Fatalf("Sweep = %d, %v; want the recorded process", n, err)
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

// TestSweepForgedLedger: a ledger line naming a process with its real
// start time is not enough: a process that does not carry the line's
// mark (one actctl did not start) is not signalled, whatever the line's
// mark looks like. Only the test's own sleep, in a session of its own,
// is named.
func TestSweepForgedLedger(t *testing.T) {
	dir := t.TempDir()
	victim := sleeper(t, "")
	pid, start := victim.Process.Pid, startOf(t, victim)
	writeLedger(t, dir, fmt.Sprintf("%d-1%s", 0x7fffffff, ledgerSuffix),
		fmt.Sprintf("%d %d m\n%d %d %s\n", pid, start, pid, start, NewMark()))
	n, err := Sweep(dir)
	if err != nil || n != 0 {
		t.Errorf("Sweep = %d, %v; want nothing ended", n, err)
	}
	if exitedChild(victim) {
		t.Fatalf("the sweep killed a process that does not carry the ledger's mark")
	}
}

// sleeper starts a `sleep` of the test's own in a session of its own
// (so it leads its group), with mark in its environment when not empty.
func sleeper(t *testing.T, mark string) *exec.Cmd {
	t.Helper()
	c := exec.Command("sleep", "1000")
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if mark != "" {
		c.Env = append(os.Environ(), MarkVar+"="+mark)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	return c
}

// startOf is the start time of a process the test started.
func startOf(t *testing.T, c *exec.Cmd) uint64 {
	t.Helper()
	s, err := startTime(c.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writeLedger writes a ledger file into dir.
func writeLedger(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// exitedChild reports whether c, a child of the test, has ended (a
// zombie counts: it is reaped here).
func exitedChild(c *exec.Cmd) bool {
	var ws syscall.WaitStatus
	pid, err := syscall.Wait4(c.Process.Pid, &ws, syscall.WNOHANG, nil)
	return err != nil || pid == c.Process.Pid
}

// TestProvenLeader: a ledger line's group is signalled only for a process
// that is not init nor the sweeper, started at the recorded time, leads
// its own group and carries the recorded mark.
func TestProvenLeader(t *testing.T) {
	mark := NewMark()
	env := "HOME=/h\x00" + MarkVar + "=" + mark + "\x00"
	procs := map[int]*fakeProc{
		1:  {env: env, start: 5, pgrp: 1},
		2:  {env: env, start: 5, pgrp: 2},
		3:  {env: env, start: 5, pgrp: 2},
		4:  {env: "HOME=/h\x00", start: 5, pgrp: 4},
		5:  {env: "HOME=/h\x00" + MarkVar + "=" + mark + "x\x00", start: 5, pgrp: 5},
		6:  {env: env, start: 5, pgrp: 6, state: 'Z'},
		99: {env: env, start: 5, pgrp: 99},
	}
	f := &fakeTable{t: t, procs: procs}
	for _, tc := range []struct {
		pid   int
		start uint64
		want  bool
	}{
		{1, 5, false},  // init, never
		{2, 5, true},   // ours
		{2, 6, false},  // a reused pid
		{2, 0, false},  // no start time recorded
		{3, 5, false},  // no group leader
		{4, 5, false},  // no mark
		{5, 5, false},  // another mark
		{6, 5, false},  // a zombie
		{7, 5, false},  // gone
		{-2, 5, false}, // a group, not a pid
	} {
		if got := provenLeader(f, tc.pid, tc.start, mark); got != tc.want {
			t.Errorf("provenLeader(%d, %d) = %v, want %v", tc.pid, tc.start, got, tc.want)
		}
	}
}

// TestValidMark: only marks shaped as NewMark makes them are swept.
func TestValidMark(t *testing.T) {
	if m := NewMark(); !validMark(m) {
		t.Errorf("NewMark() = %q: not valid", m)
	}
	for _, m := range []string{"", "m", "1-", "1-abc", "0-0123456789abcdef01234567", "-0123456789abcdef01234567",
		"x-0123456789abcdef01234567", "1-0123456789ABCDEF01234567", "1-0123456789abcdef0123456z", "1-0123456789abcdef012345678"} {
		if validMark(m) {
			t.Errorf("validMark(%q) = true", m)
		}
	}
}
