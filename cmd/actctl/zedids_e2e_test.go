package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestZedRegistryIDWarningE2E: an agent named like one of Zed's own agent
// ids (an ACP registry id, or a key older Zed read as its built-in agent)
// takes that id in agent_servers: zed warns, naming it and --prefix, when
// printing and when writing; with a prefix, and for other names, it says
// nothing; the entries are written as before (issue #23 item 11).
func TestZedRegistryIDWarningE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, `package actant
templates: {
	gm: {backend: "gemini", archetype: "repo"}
	p: {backend: "pi", archetype: "repo"}
}
agents: {gemini: template: "gm", pi: template: "p", reviewer: template: "gm"}
`)
	want := []string{`zed: agent_servers."gemini" is Zed's own id for Gemini CLI`, `zed: agent_servers."pi" is Zed's own id for Pi (ACP registry)`}
	r := actctl(t, dir, home, "zed")
	if r.Code != 0 {
		t.Fatalf("zed: exit %d\n%s", r.Code, r.Stderr)
	}
	for _, w := range want {
		if strings.Count(r.Stderr, "actctl: warning: "+w) != 1 {
			t.Errorf("stderr lacks %q once:\n%s", w, r.Stderr)
		}
	}
	if strings.Contains(r.Stderr, `"reviewer" is Zed's own id`) || !strings.Contains(r.Stderr, "--prefix") {
		t.Errorf("stderr:\n%s", r.Stderr)
	}
	settings := filepath.Join(t.TempDir(), "settings.json")
	w := actctl(t, dir, home, "zed", "--write", "--settings", settings)
	if w.Code != 0 || !strings.Contains(w.Stderr, want[0]) || !strings.Contains(string(mustRead(t, settings)), `"gemini"`) {
		t.Errorf("zed --write: exit %d\n%s", w.Code, w.Stderr)
	}
	if p := actctl(t, dir, home, "zed", "--prefix", "actctl-"); p.Code != 0 || strings.Contains(p.Stderr, "Zed's own id") {
		t.Errorf("zed --prefix actctl-: exit %d\n%s", p.Code, p.Stderr)
	}
}
