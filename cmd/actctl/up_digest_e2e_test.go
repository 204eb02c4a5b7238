package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
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

// TestUpDigestAcrossCycles: a cycle that changes none of an agent's
// files nor its launch keeps its digest (the next cycle after one that
// changed its files restarted it); a change of its MCP servers, its
// launch env or its permission rule changes it.
func TestUpDigestAcrossCycles(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	load := func(server, env, perms string) *schema.Config {
		t.Helper()
		writeConfigTB(t, root, `package actant
backends: scripted: {modes: ["acp"], acp: {command: "agent", env: {K: "`+env+`"}}, files: instructions: ["SCRIPTED.md"]}
mcpServers: fs: {command: "`+server+`"}
templates: emp: {backend: "scripted", archetype: "employee", mcpServers: ["fs"], permissions: "`+perms+`", schedule: heartbeat: {interval: "1h", prompt: "x"}}
agents: triage: template: "emp"
`)
		g := &globals{Dir: root, Home: home, Stdout: io.Discard, Stderr: io.Discard}
		cfg, err := g.Load()
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	u := &upRun{g: &globals{Stderr: io.Discard}, filesAt: map[string]int{}, logged: map[string]bool{}}
	digest := func(cfg *schema.Config, res *reconcile.Result) string {
		t.Helper()
		specs := u.cycleSpecs(cfg, res)
		if len(specs) != 1 {
			t.Fatalf("specs %+v", specs)
		}
		return specs[0].Digest
	}
	cfg := load("fs-one", "v", "standard")
	created := &reconcile.Result{Items: []reconcile.Item{{Path: "SCRIPTED.md", Action: reconcile.ActCreate, Agents: []string{"triage"}}}}
	first := digest(cfg, created)
	if d := digest(cfg, &reconcile.Result{}); d != first {
		t.Error("a cycle that changed nothing changed the digest")
	}
	for _, c := range []struct{ what, server, env, perms string }{
		{"mcp server", "fs-two", "v", "standard"},
		{"launch env", "fs-two", "w", "standard"},
		{"permissions", "fs-two", "w", "readonly"},
	} {
		before := digest(cfg, nil)
		cfg = load(c.server, c.env, c.perms)
		if digest(cfg, &reconcile.Result{}) == before {
			t.Errorf("%s changed: the digest did not", c.what)
		}
	}
}
