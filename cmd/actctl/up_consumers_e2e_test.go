package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPromptServiceSessionMCP: a prompt to a service runs in a new session
// on its warm process with the agent's MCP servers, as its primary session
// has them (the new session had none: `mcp []`).
func TestPromptServiceSessionMCP(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
mcpServers: fs: {command: "fs-one"}
mcpServers: docs: {command: "docs-two"}
templates: svc: {backend: "scripted", archetype: "service", mcpServers: ["fs", "docs"]}
agents: api: template: "svc"
`)
	p := startUp(t, root, home)
	p.started("api")
	r := actctl(t, root, home, "prompt", "api", "-p", "session")
	if r.Code != 0 {
		t.Fatalf("prompt: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	_, mcp, _ := strings.Cut(r.Stdout, " mcp ")
	if !strings.Contains(mcp, "fs-one") || !strings.Contains(mcp, "docs-two") {
		t.Fatalf("the prompt's session has mcp %q, want fs-one and docs-two\n%s", strings.TrimSpace(mcp), r.Stdout)
	}
}
