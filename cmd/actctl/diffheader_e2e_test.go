package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffHeadersAbsoluteE2E: a file under $ACTANT_HOME is shown as git
// diff --no-index shows an absolute path (a/tmp/..., not a//tmp/...); a
// project file keeps its relative header (new-user review item 2).
func TestDiffHeadersAbsoluteE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, `package actant
templates: {
	svc: {backend: "claude-code", archetype: "service"}
	prj: {backend: "claude-code"}
}
agents: {s: template: "svc", p: template: "prj"}
`)
	r := actctl(t, dir, home, "diff")
	if r.Code != 1 {
		t.Fatalf("diff: exit %d, want 1\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	abs := filepath.ToSlash(filepath.Join(home, "instances", "s", "CLAUDE.md"))
	for _, want := range []string{"--- /dev/null\n+++ b" + abs + "\n", "--- /dev/null\n+++ b/CLAUDE.md\n"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("diff lacks %q:\n%s", want, r.Stdout)
		}
	}
	if strings.Contains(r.Stdout, "b//") || strings.Contains(r.Stdout, "a//") {
		t.Errorf("diff has a doubled slash:\n%s", r.Stdout)
	}
}
