package runrecord

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/actctl/actctl/launch"
)

// TestMarkStoppedStartTime: a record names one process, its pid and its
// start time. A record whose pid another process reuses is not live and
// is cleared; a late stop of this actctl's process leaves a record that
// another process with the same pid took meanwhile; a stop of the process
// recorded clears it. Only the test's own `sleep` is named.
func TestMarkStoppedStartTime(t *testing.T) {
	sleep := exec.Command("sleep", "1000")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleep.Process.Kill(); _ = sleep.Wait() })
	pid := sleep.Process.Pid
	start, err := launch.StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, pidStart uint64) string {
		p := filepath.Join(dir, name)
		body := fmt.Sprintf(`{"processOwnership": "managed", "status": "running", "pid": %d, "pidStart": %d}`, pid, pidStart)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	reused := write("reused.json", start+1) // a gone process whose pid the sleep took
	if rec, _ := Read(reused); rec.Live() {
		t.Errorf("a record of another process with the same pid is live")
	}
	if ok, err := MarkStopped(reused, 0, StatusStopped); !ok || err != nil {
		t.Errorf("MarkStopped of a record whose pid was reused = %v, %v; want cleared", ok, err)
	}

	taken := write("taken.json", start) // another actctl's process, same pid as ours was
	recorded.Store(taken, Record{PID: pid, PIDStart: start + 5})
	if ok, err := MarkStopped(taken, pid, StatusStopped); ok || err != nil {
		t.Errorf("a late stop of a process with the same pid = %v, %v; want the live record left", ok, err)
	}
	if rec, _ := Read(taken); rec.PID != pid || rec.Status != StatusRunning {
		t.Errorf("record after the late stop: %+v", rec)
	}

	ours := filepath.Join(dir, "ours.json")
	if err := MarkRunning(ours, pid); err != nil {
		t.Fatal(err)
	}
	if rec, _ := Read(ours); rec.PIDStart != start || !rec.Live() {
		t.Errorf("MarkRunning recorded %+v, want pidStart %d and live", rec, start)
	}
	if ok, err := MarkStopped(ours, pid, StatusStopped); !ok || err != nil {
		t.Errorf("MarkStopped of the process recorded = %v, %v; want cleared", ok, err)
	}
	if rec, _ := Read(ours); rec.PID != 0 || rec.PIDStart != 0 || rec.Status != StatusStopped {
		t.Errorf("record after the stop: %+v", rec)
	}
}
