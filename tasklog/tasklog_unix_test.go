//go:build unix

package tasklog

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLogsReadOnlyRegular: an actctl.log that is a named pipe or a link
// to a device (a checkout can bring a link) is refused at once by
// Summaries and Last, never read without end.
func TestLogsReadOnlyRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "logs")
	zero := filepath.Join(t.TempDir(), "logs")
	for _, d := range []string{fifo, zero} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(SummaryPath(fifo), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", SummaryPath(zero)); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{fifo, zero} {
		if _, err := Summaries(dir); err == nil || !strings.Contains(err.Error(), "task summaries") {
			t.Errorf("Summaries: %v", err)
		}
		if s := Last(dir); s != nil {
			t.Errorf("Last: %+v", s)
		}
	}
}
