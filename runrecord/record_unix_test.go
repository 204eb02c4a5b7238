//go:build unix

package runrecord

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadRecordNotRegular: a record that is a named pipe, a link to a
// device or too large (a checkout can bring links, another program the
// rest) is refused at once, never read until it ends.
func TestReadRecordNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, maxRecord+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, zero, big} {
		if _, err := Read(p); err == nil {
			t.Errorf("%s: read", p)
		}
		if _, err := MarkStopped(p, 0, StatusStopped); err == nil {
			t.Errorf("%s: marked", p)
		}
	}
}
