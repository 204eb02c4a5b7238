package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validHeader starts every test config.
const validHeader = "package actant\n\n"

func TestUnreadableConfig(t *testing.T) {
	dir := t.TempDir()
	// A symlink loop cannot be read, even by root (chmod 000 can).
	if err := os.Symlink("actant.cue", filepath.Join(dir, "actant.cue")); err != nil {
		t.Fatal(err)
	}
	r := actctl(t, dir, "", "validate")
	if r.Code != 1 || !strings.Contains(r.Stderr, "read "+filepath.Join(dir, "actant.cue")) {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if os.Geteuid() != 0 {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"actant.cue": validHeader})
		os.Chmod(filepath.Join(dir, "actant.cue"), 0)
		r := actctl(t, dir, "", "validate")
		if r.Code != 1 || !strings.Contains(r.Stderr, "permission denied") {
			t.Fatalf("chmod 000: exit %d: %s", r.Code, r.Stderr)
		}
	}
}

// TestQuickstart runs validate and get on the bundled example, as the
// README tells a newcomer to.
func TestQuickstart(t *testing.T) {
	root, _ := filepath.Abs("../../examples/quickstart")
	r := actctl(t, t.TempDir(), "", "-C", root, "validate")
	if r.Code != 0 {
		t.Fatalf("validate quickstart: %s", r.Stderr)
	}
	r = actctl(t, t.TempDir(), "", "-C", root, "-o", "json", "get", "agents")
	if r.Code != 0 {
		t.Fatalf("get agents: %s", r.Stderr)
	}
	var agents []agentJSON
	if err := json.Unmarshal([]byte(r.Stdout), &agents); err != nil {
		t.Fatalf("get agents -o json: %v\n%s", err, r.Stdout)
	}
	if len(agents) != 2 || agents[0].Name != "fixer" || agents[0].Backend != "codex" || agents[1].Backend != "claude-code" || agents[1].Dir != root {
		t.Fatalf("agents = %+v", agents)
	}
	for _, kind := range []string{"templates", "backends", "skills", "prompts", "mcp"} {
		if r := actctl(t, t.TempDir(), "", "-C", root, "get", kind); r.Code != 0 || r.Stdout == "" {
			t.Errorf("get %s: exit %d: %s", kind, r.Code, r.Stderr)
		}
	}
}
