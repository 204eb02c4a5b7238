package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeTrustNoteOnceE2E: two Claude Code agents whose apply writes
// only .mcp.json get one note, naming both files and not the
// .claude/settings.json that was not written (new-user review).
func TestClaudeTrustNoteOnceE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(filepath.Join(dir, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, dir, `package actant
mcpServers: fs: {command: "npx", args: ["server-filesystem"]}
templates: cl: {backend: "claude-code", mcpServers: ["fs"]}
agents: {a: template: "cl", b: {template: "cl", workDir: "b"}}
`)
	r := actctlEnv(t, dir, home, []string{"HOME=" + t.TempDir()}, "apply")
	if r.Code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if n := strings.Count(r.Stderr, "actctl: note:"); n != 1 {
		t.Errorf("%d notes, want 1:\n%s", n, r.Stderr)
	}
	want := "Claude Code asks once to approve each MCP server in " + dir + "/.mcp.json, " + dir + "/b/.mcp.json when you start claude there"
	if !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
	}
	if strings.Contains(r.Stderr, "settings.json") {
		t.Errorf("note names .claude/settings.json, which apply did not write:\n%s", r.Stderr)
	}
}
