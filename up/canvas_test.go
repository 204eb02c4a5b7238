package up

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/schedule"
)

func TestCanvasStore(t *testing.T) {
	dir := t.TempDir()
	if html, err := ReadCanvas(dir); err != nil || html != "" {
		t.Fatalf("no canvas: %q %v", html, err)
	}
	if err := WriteCanvas(dir, "<h1>v1</h1>"); err != nil {
		t.Fatal(err)
	}
	err := WriteCanvas(dir, strings.Repeat("x", MaxCanvas+1))
	if err == nil || !strings.Contains(err.Error(), "over the bound") {
		t.Fatalf("oversized canvas: %v", err)
	}
	if html, _ := ReadCanvas(dir); html != "<h1>v1</h1>" {
		t.Fatalf("after a refused update: %q", html)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != CanvasFile {
		t.Fatalf("left behind: %v", ents)
	}
	if err := os.WriteFile(filepath.Join(dir, CanvasFile), []byte(strings.Repeat("y", MaxCanvas+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCanvas(dir); err == nil {
		t.Fatal("an oversized canvas file was read")
	}
}

// TestSetCanvas: an employee's canvas is kept in its workspace and
// announced; a service's is refused, with nothing written or announced.
func TestSetCanvas(t *testing.T) {
	h := newHarness(t, nil)
	var told []string
	h.m.opts.Canvas = func(a string) { told = append(told, a) }
	emp, svc := employee(t, "emp", schedule.Spec{}), service(t, "svc")
	h.m.Sync([]Spec{emp, svc})
	h.wait("process:start", "emp")
	h.wait("process:start", "svc")
	if err := h.m.SetCanvas("emp", "<p>v1</p>"); err != nil {
		t.Fatal(err)
	}
	if html, err := h.m.Canvas("emp"); err != nil || html != "<p>v1</p>" {
		t.Fatalf("canvas %q %v", html, err)
	}
	err := h.m.SetCanvas("svc", "<p>x</p>")
	if err == nil || !strings.Contains(err.Error(), "svc is a service: only employees have a live canvas") {
		t.Fatalf("service canvas: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(svc.Workspace, CanvasFile)); err == nil {
		t.Fatal("a service's canvas was written")
	}
	if err := h.m.SetCanvas("nobody", "x"); err == nil || !strings.Contains(err.Error(), "not run by this actctl up") {
		t.Fatalf("unknown agent: %v", err)
	}
	if len(told) != 1 || told[0] != "emp" {
		t.Fatalf("announced %v", told)
	}
}
