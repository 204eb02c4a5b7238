package inputs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// forgetKeys empties the process's memo of keys, as a new process starts.
func forgetKeys(t *testing.T) {
	t.Helper()
	keys.Lock()
	keys.byHome = nil
	keys.Unlock()
	t.Cleanup(func() {
		keys.Lock()
		keys.byHome = nil
		keys.Unlock()
	})
}

// TestCacheKey: the key is made on first use (mode 0600, keySize bytes,
// no temporary file left) and read back by the next process; one that
// others may read, of the wrong size or inside the workspace is not
// trusted; a home that cannot be written gives no key (no cache), and a
// read never creates one.
func TestCacheKey(t *testing.T) {
	forgetKeys(t)
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	if k, why := cacheKey(root, home, false); k != nil || !strings.Contains(why, "no usable cache key") {
		t.Fatalf("read of a missing key: %x %q", k, why)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Fatalf("a read made the home: %v", err)
	}
	k, why := cacheKey(root, home, true)
	if len(k) != keySize {
		t.Fatalf("made key %x: %s", k, why)
	}
	p := filepath.Join(home, keyFile)
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 1 {
		t.Fatalf("home holds %v", entries)
	}
	forgetKeys(t)
	if k2, why := cacheKey(root, home, false); string(k2) != string(k) {
		t.Fatalf("key read back %x, want %x: %s", k2, k, why)
	}

	for name, spoil := range map[string]func(){
		"open to others": func() { os.Chmod(p, 0o644) },
		"wrong size":     func() { os.WriteFile(p, []byte("short"), 0o600) },
	} {
		forgetKeys(t)
		spoil()
		if k, why := cacheKey(root, home, false); k != nil {
			t.Errorf("%s: key trusted (%q)", name, why)
		}
		if k, _ := cacheKey(root, home, true); len(k) != keySize {
			t.Errorf("%s: not replaced", name)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: replaced key: %v %v", name, fi, err)
		}
	}

	forgetKeys(t)
	if k, why := cacheKey(filepath.Dir(home), home, true); k != nil || !strings.Contains(why, "inside the workspace") {
		t.Errorf("key inside the workspace: %x %q", k, why)
	}
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
		if k, why := cacheKey(root, h, true); k != nil || !strings.Contains(why, "no usable cache key") {
			t.Errorf("unwritable home %s: %x %q", h, k, why)
		}
	}
}
