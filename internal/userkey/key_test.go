package userkey

import (
	"os"
	"path/filepath"
	"testing"
)

// forgetKeys empties the process's memo of keys, as a new process starts.
func forgetKeys(t *testing.T) {
	t.Helper()
	forget := func() {
		keys.Lock()
		keys.byHome = nil
		keys.Unlock()
	}
	forget()
	t.Cleanup(forget)
}

// TestKey: the key is made on first use (mode 0600, Size bytes, no
// temporary file left) and read back by the next process; one that others
// may read or of the wrong size is not trusted; a home that cannot be
// written gives no key, and a read never creates one.
func TestKey(t *testing.T) {
	forgetKeys(t)
	home := filepath.Join(t.TempDir(), "home")
	if k, err := Key(home, false); k != nil || err == nil {
		t.Fatalf("read of a missing key: %x %v", k, err)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Fatalf("a read made the home: %v", err)
	}
	k, err := Key(home, true)
	if len(k) != Size {
		t.Fatalf("made key %x: %v", k, err)
	}
	p := filepath.Join(home, File)
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 1 {
		t.Fatalf("home holds %v", entries)
	}
	forgetKeys(t)
	if k2, err := Key(home, false); string(k2) != string(k) {
		t.Fatalf("key read back %x, want %x: %v", k2, k, err)
	}

	for name, spoil := range map[string]func(){
		"open to others": func() { os.Chmod(p, 0o644) },
		"wrong size":     func() { os.WriteFile(p, []byte("short"), 0o600) },
	} {
		forgetKeys(t)
		spoil()
		if k, _ := Key(home, false); k != nil {
			t.Errorf("%s: key trusted", name)
		}
		if k, _ := Key(home, true); len(k) != Size {
			t.Errorf("%s: not replaced", name)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: replaced key: %v %v", name, fi, err)
		}
	}

	// The kubelet's fsGroup walk (group rw, our own group): the same key,
	// closed to the group again.
	forgetKeys(t)
	k, _ = Key(home, true)
	forgetKeys(t)
	if err := os.Chown(p, -1, os.Getgid()); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o660)
	if k2, err := Key(home, false); string(k2) != string(k) {
		t.Errorf("key after the volume walk: %x, want %x: %v", k2, k, err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key after the volume walk: %v %v", fi, err)
	}

	forgetKeys(t)
	// A home below a file cannot be made, whoever runs the test (root
	// writes a directory of mode 0500).
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	unwritable := []string{filepath.Join(file, "home")}
	if os.Getuid() != 0 {
		ro := filepath.Join(t.TempDir(), "ro")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		unwritable = append(unwritable, ro)
	}
	for _, h := range unwritable {
		if k, err := Key(h, true); k != nil || err == nil {
			t.Errorf("unwritable home %s: %x %v", h, k, err)
		}
	}
}
