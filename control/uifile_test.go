//go:build unix

package control

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUIFile: ui.json is written 0600, read back, refused when it is a
// link or open to others, and removed.
func TestUIFile(t *testing.T) {
	root := t.TempDir()
	if _, err := ReadUI(root); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no up: %v", err)
	}
	p, err := WriteUI(root, UI{URL: "http://127.0.0.1:1/?token=x", Pid: 7})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
	if ui, err := ReadUI(root); err != nil || ui.Pid != 7 || ui.URL != "http://127.0.0.1:1/?token=x" {
		t.Fatalf("read %+v %v", ui, err)
	}
	os.Chmod(p, 0o644)
	if _, err := ReadUI(root); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("open mode: %v", err)
	}
	os.Remove(p)
	other := filepath.Join(t.TempDir(), "ui.json")
	os.WriteFile(other, []byte(`{"url":"http://evil"}`), 0o600)
	if err := os.Symlink(other, p); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadUI(root); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("link: %v", err)
	}
	if _, err := WriteUI(root, UI{URL: "u"}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("write over a link: %v", err)
	}
	if b, _ := os.ReadFile(other); string(b) != `{"url":"http://evil"}` {
		t.Fatalf("the link's target was written: %s", b)
	}
	if err := RemoveUI(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("not removed: %v", err)
	}
	if err := RemoveUI(root); err != nil {
		t.Fatalf("remove twice: %v", err)
	}
}
