package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainSiblingFieldE2E: explain templates.checkout says which field
// is meant and exits 1 instead of explaining templates.<name> (new-user
// review item 3).
func TestExplainSiblingFieldE2E(t *testing.T) {
	r := actctl(t, t.TempDir(), filepath.Join(t.TempDir(), "home"), "explain", "templates.checkout")
	if r.Code != 1 || r.Stdout != "" || !strings.Contains(r.Stderr, "did you mean agents.<name>.checkout?") {
		t.Errorf("exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}
