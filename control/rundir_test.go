//go:build unix

package control

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/testutil"
)

// TestRunDirTrust: RunDir refuses a link, a non-directory and (for a
// client) an open mode, on .actant and on .actant/run; up's RunDir
// tightens an open directory of its own; another owner is named.
func TestRunDirTrust(t *testing.T) {
	root := t.TempDir()
	if _, err := RunDir(root, false); !os.IsNotExist(err) {
		t.Fatalf("RunDir of a fresh root = %v, want not exist", err)
	}
	dir, err := RunDir(root, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o705); err != nil {
		t.Fatal(err)
	}
	if _, err := RunDir(root, false); err == nil || !strings.Contains(err.Error(), "its mode is 0705") {
		t.Errorf("client, open run = %v", err)
	}
	if _, err := RunDir(root, true); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("up left run %v", fi.Mode())
	}
	if err := os.Rename(dir, dir+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir+".real", dir); err != nil {
		t.Fatal(err)
	}
	for _, create := range []bool{false, true} {
		if _, err := RunDir(root, create); err == nil || !strings.Contains(err.Error(), "refusing "+dir+": it is a symbolic link") {
			t.Errorf("create %v, linked run = %v", create, err)
		}
	}
	fi, err := os.Lstat(filepath.Join(root, ".actant"))
	if err != nil {
		t.Fatal(err)
	}
	if why := notOurs(fi, os.Getuid()+1, 0); !strings.Contains(why, "belongs to uid") {
		t.Errorf("another owner: %q", why)
	}
}

// TestRunDirVolumeGroup: after a Kubernetes volume's fsGroup walk (group
// read and write, setgid directories, the group one of ours) the run
// directory, its locks and the ledger directory are still ours: a
// client reads them, a task takes its lock again. World bits, another
// user's group and links stay refused.
func TestRunDirVolumeGroup(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	l, err := LockAgent(root, "triage", "task")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := LedgerDir(home, root); err != nil {
		t.Fatal(err)
	}
	testutil.KubeletWalk(t, root, testutil.OwnGroup())
	testutil.KubeletWalk(t, home, testutil.OwnGroup())
	if _, err := RunDir(root, false); err != nil {
		t.Errorf("client after the walk: %v", err)
	}
	if _, err := LedgerDir(home, root); err != nil {
		t.Errorf("ledger directory after the walk: %v", err)
	}
	l, err = LockAgent(root, "triage", "task")
	if err != nil {
		t.Fatalf("the second task's lock after the walk: %v", err)
	}
	l.Close()

	lock := AgentLockPath(root, "triage")
	if err := os.Chmod(lock, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := LockAgent(root, "triage", "task"); err == nil || !strings.Contains(err.Error(), "its mode is 0666, writable or open to others") {
		t.Errorf("a world-writable lock: %v", err)
	}
	if err := os.Chmod(lock, 0o660); err != nil {
		t.Fatal(err)
	}
	const stranger = 54321 // no group of this process
	if err := os.Lchown(lock, -1, stranger); err != nil {
		t.Logf("chgrp to a group not ours (needs root): %v", err)
	} else if _, err := LockAgent(root, "triage", "task"); err == nil || !strings.Contains(err.Error(), "its group (gid 54321) is not one of yours") {
		t.Errorf("a lock writable by another group: %v", err)
	}
}

// TestLedgerDir: the ledgers of a workspace live in the actctl home, in a
// directory of their own per workspace root, 0700, and a link there is
// refused.
func TestLedgerDir(t *testing.T) {
	home := t.TempDir()
	a, err := LedgerDir(home, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := LedgerDir(home, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if a == b || filepath.Dir(a) != filepath.Join(home, "procs") {
		t.Errorf("ledger directories %s and %s", a, b)
	}
	if fi, err := os.Lstat(a); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v, %v", a, fi.Mode(), err)
	}
	if _, err := LedgerDir("", t.TempDir()); err == nil {
		t.Error("no home: no error")
	}
	linked := t.TempDir()
	top := filepath.Join(linked, "procs")
	if err := os.Symlink(t.TempDir(), top); err != nil {
		t.Fatal(err)
	}
	if _, err := LedgerDir(linked, t.TempDir()); err == nil || !strings.Contains(err.Error(), "refusing "+top+": it is a symbolic link") {
		t.Errorf("a linked procs: %v", err)
	}
}
