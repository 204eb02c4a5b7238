package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLockPidUnchanged: taking the lock again in the same process leaves
// the lock file alone (no write, no mtime change); a file naming another
// pid is rewritten with ours.
func TestLockPidUnchanged(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, MetaDir, LockFile)
	want := strconv.Itoa(os.Getpid()) + "\n"
	take := func() {
		t.Helper()
		l, err := Lock(context.Background(), root, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != want {
			t.Fatalf("lock file holds %q, want %q", b, want)
		}
		l.Unlock()
	}
	take()
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	take()
	if fi, _ := os.Stat(path); !fi.ModTime().Equal(old) {
		t.Errorf("lock file rewritten with the same pid: mtime %v, was %v", fi.ModTime(), old)
	}
	for _, other := range []string{"1\n", want + "junk", strconv.Itoa(os.Getpid()), ""} {
		if err := os.WriteFile(path, []byte(other), 0o644); err != nil {
			t.Fatal(err)
		}
		take()
	}
}

// TestLockMessageShowsOnlyAPid: while the lock is held, the message
// names the pid the lock file holds, and only a number: text put there
// by something else (escape sequences) is never printed.
func TestLockMessageShowsOnlyAPid(t *testing.T) {
	root := t.TempDir()
	l, err := Lock(context.Background(), root, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	path := filepath.Join(root, MetaDir, LockFile)
	for content, want := range map[string]string{"4242\n": "by pid 4242 ", "\x1b[2J4242\n": "by pid unknown ", "-1\n": "by pid unknown "} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Lock(context.Background(), root, time.Nanosecond)
		if err == nil || !strings.Contains(err.Error(), want) || strings.ContainsRune(err.Error(), 0x1b) {
			t.Errorf("lock file %q: %v, want %q", content, err, want)
		}
	}
}
