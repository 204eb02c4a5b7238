package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestZedAgentE2E: an agent on Zed's own agent gets .rules, its MCP
// servers as context_servers in .zed/settings.json beside the user's
// settings, the trust note, and a warning that .rules hides the user's
// AGENTS.md from Zed (which reads only its first rules file); an SSE
// server is left out, warned. Prune gives the user's files back.
func TestZedAgentE2E(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	writeTree(t, dir, map[string]string{
		"AGENTS.md":          "# Team notes\n",
		".zed/settings.json": "{\n  \"tab_size\": 2\n}\n",
	})
	writeConfig(t, dir, `package actant
prompts: rules: content: "Be brief."
mcpServers: {
	fs: command: "fs-mcp"
	old: url: "https://old.example/sse"
}
templates: z: {backend: "zed", prompts: ["rules"], mcpServers: ["fs", "old"]}
agents: z: template: "z"
`)
	r := actctl(t, dir, home, "apply")
	if r.Code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	out := r.Stdout + r.Stderr
	for _, want := range []string{
		`reads only one instruction file, .rules first: once it exists, AGENTS.md (your text) is no longer read by it`,
		`mcp server "old": Zed does not support the SSE transport; it is not written`,
		"only in a trusted worktree",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("apply output lacks %q:\n%s", want, out)
		}
	}
	if rules := read(t, filepath.Join(dir, ".rules")); !strings.Contains(rules, "Be brief.") {
		t.Errorf(".rules:\n%s", rules)
	}
	settings := read(t, filepath.Join(dir, ".zed/settings.json"))
	if !strings.Contains(settings, `"tab_size": 2`) || !strings.Contains(settings, `"context_servers"`) || !strings.Contains(settings, `"command": "fs-mcp"`) || strings.Contains(settings, "old.example") {
		t.Errorf(".zed/settings.json:\n%s", settings)
	}
	writeConfig(t, dir, "package actant\n")
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("prune: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := read(t, filepath.Join(dir, ".zed/settings.json")); got != "{\n  \"tab_size\": 2\n}\n" {
		t.Errorf("after prune .zed/settings.json:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rules")); !os.IsNotExist(err) {
		t.Errorf(".rules after prune: %v", err)
	}
}
