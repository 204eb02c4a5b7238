package up

import (
	"errors"
	"testing"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/schedule"
)

// TestTaskLockAcrossReplacement: an employee declared again while its
// old agent still stops (Sync removes in the background) gets the lock
// the old one holds: the process's own lock is never busy to itself;
// it is released when the last of them goes, and a task is refused
// until then.
func TestTaskLockAcrossReplacement(t *testing.T) {
	m := New(Options{})
	s := employee(t, "emp", schedule.Spec{})
	s.Root = t.TempDir()
	old, err := newAgent(m, s)
	if err != nil {
		t.Fatal(err)
	}
	repl, err := newAgent(m, s)
	if err != nil {
		t.Fatalf("the replacement: %v", err)
	}
	busy := func() bool {
		l, err := control.LockAgent(s.Root, "emp", "task")
		if err == nil {
			l.Close()
			return false
		}
		var be *control.AgentBusyError
		if !errors.As(err, &be) || be.Holder != "up" {
			t.Fatalf("lock: %v", err)
		}
		return true
	}
	if !busy() {
		t.Fatal("a task can take the lock of an employee up runs")
	}
	old.releaseLock()
	old.releaseLock() // once only
	if !busy() {
		t.Fatal("the old agent's release freed the replacement's lock")
	}
	repl.releaseLock()
	if busy() {
		t.Fatal("the lock is held after the last release")
	}
}
