package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUpRestartsOnMCPChange: an agent whose backend has no MCP file gets
// its MCP servers in session/new; changing them restarts it, and its
// primary session then has the new ones (the restart digest hashed a hand-picked
// list without them) (issue #26 item 6).
func TestUpRestartsOnMCPChange(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	config := func(server string) string {
		return `package actant
` + scriptedBackend(t, "") + `
mcpServers: fs: {command: "` + server + `"}
templates: emp: {backend: "scripted", archetype: "employee", mcpServers: ["fs"], schedule: heartbeat: {interval: "1h", prompt: "x"}}
agents: triage: template: "emp"
`
	}
	writeConfigTB(t, root, config("fs-one"))
	p := startUp(t, root, home, "--debounce", "10ms")
	first := p.started("triage")
	mcpOf := func() string {
		t.Helper()
		r := actctl(t, root, home, "prompt", "triage", "-p", "session")
		if r.Code != 0 {
			t.Fatalf("prompt: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		_, mcp, _ := strings.Cut(r.Stdout, " mcp ")
		return strings.TrimSpace(mcp)
	}
	if got := mcpOf(); !strings.Contains(got, "fs-one") {
		t.Fatalf("mcp servers %q, want fs-one", got)
	}
	writeConfigTB(t, root, config("fs-two"))
	p.waitLine(`up: triage: config changed: restarting`)
	if pid := p.started("triage"); pid == first {
		t.Fatalf("restarted with the same pid %d", pid)
	}
	if got := mcpOf(); !strings.Contains(got, "fs-two") || strings.Contains(got, "fs-one") {
		t.Fatalf("mcp servers after the change %q, want fs-two only", got)
	}
}
