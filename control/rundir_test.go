//go:build unix

package control

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if _, err := RunDir(root, false); err == nil || !strings.Contains(err.Error(), "its mode is 0750") {
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
