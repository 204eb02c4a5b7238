package control

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockAgent: one holder at a time, the busy error names the holder
// and its pid, Close lets the next one in; a link in its place is
// refused and left alone.
func TestLockAgent(t *testing.T) {
	root := t.TempDir()
	l, err := LockAgent(root, "triage", "up")
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockAgent(root, "triage", "task")
	var be *AgentBusyError
	if !errors.As(err, &be) || be.Holder != "up" || be.Pid != os.Getpid() {
		t.Fatalf("second lock: %v, want busy held by up (pid %d)", err, os.Getpid())
	}
	if want := "agent triage is busy: actctl up (pid "; !strings.Contains(err.Error(), want) {
		t.Errorf("message %q lacks %q", err, want)
	}
	other, err := LockAgent(root, "other", "task")
	if err != nil {
		t.Fatalf("another agent's lock: %v", err)
	}
	other.Close()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l2, err := LockAgent(root, "triage", "task")
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	l2.Close()

	link := AgentLockPath(root, "linked")
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := LockAgent(root, "linked", "task"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("a link: %v, want refused", err)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Errorf("the link was followed: %v", err)
	}
}
