package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actctl/actctl/launch"
)

// mcpTrustWorkspace declares, on the scripted ACP test agent with a Claude
// Code style .mcp.json, one agent of each archetype whose template lists
// the reserved MCP server actctl: helper (tool, in the root), lead
// (employee), svc (service) and builder (repo).
func mcpTrustWorkspace(t *testing.T) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+strings.Replace(scriptedBackend(t, ""), `files: instructions: ["SCRIPTED.md"]`,
		`files: {instructions: ["SCRIPTED.md"], mcp: {path: ".mcp.json", format: "json", key: "mcpServers", dialect: "claude"}}`, 1)+`
archetypes: tool: interactionModes: ["open", "start", "chat", "run", "proxy"]
templates: {
	std: {backend: "scripted", mcpServers: ["actctl"]}
	inst: {backend: "scripted", archetype: "repo", mcpServers: ["actctl"]}
	svc: {backend: "scripted", archetype: "service", mcpServers: ["actctl"]}
	emp: {backend: "scripted", archetype: "employee", mcpServers: ["actctl"], schedule: heartbeat: {interval: "1h", prompt: "check"}}
}
agents: {
	helper: template: "std"
	lead: template: "emp"
	svc: template: "svc"
	builder: template: "inst"
}
`)
	return root, home
}

// actctlEntry reads the reserved actctl entry of the .mcp.json in dir.
func actctlEntry(t *testing.T, dir string) (command string, args []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s/.mcp.json: %v", dir, err)
	}
	s, ok := f.MCPServers["actctl"]
	if !ok {
		t.Fatalf("%s/.mcp.json has no actctl entry: %s", dir, b)
	}
	return s.Command, s.Args
}

// listToolsOf starts the actctl mcp that args (an entry's arguments) run
// and lists the tools it offers.
func listToolsOf(t *testing.T, home string, args []string) string {
	t.Helper()
	cmd := exec.Command(actctlBin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(launch.WithoutVar(os.Environ(), launch.AgentVar), "ACTANT_HOME="+home, "NO_COLOR=1")
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to actctl %s: %v", strings.Join(args, " "), err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// TestMCPEntryNamesItsAgent: the reserved actctl entry that apply writes
// for agents of different archetypes in one dialect names each agent
// itself, so each gets its archetype's tools (a repo agent none, a service
// no run_agent); and a run leaves the entry as apply wrote it, so diff
// stays clean after a local run (issue #20 item 22).
func TestMCPEntryNamesItsAgent(t *testing.T) {
	root, home := mcpTrustWorkspace(t)
	if r := actctl(t, root, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %+v", r)
	}
	for _, tc := range []struct{ agent, dir, tools string }{
		{"helper", root, "agent_status,list_agents,prompt_agent,run_agent"},
		{"lead", filepath.Join(home, "instances", "lead"), "agent_status,list_agents,prompt_agent,run_agent"},
		{"svc", filepath.Join(home, "instances", "svc"), "agent_status,list_agents,prompt_agent"},
		{"builder", filepath.Join(home, "instances", "builder"), ""},
	} {
		cmd, args := actctlEntry(t, tc.dir)
		want := "actctl mcp -C " + root + " --home " + home + " --as " + tc.agent
		if got := cmd + " " + strings.Join(args, " "); got != want {
			t.Errorf("%s: actctl entry %q, want %q", tc.agent, got, want)
			continue
		}
		if got := listToolsOf(t, home, args); got != tc.tools {
			t.Errorf("%s: its entry's server offers %q, want %q", tc.agent, got, tc.tools)
		}
	}
	for _, agent := range []string{"helper", "builder"} {
		if r := actctl(t, root, home, "run", agent, "-p", "hello"); r.Code != 0 {
			t.Fatalf("run %s: %+v", agent, r)
		}
		if r := actctl(t, root, home, "diff"); r.Code != 0 {
			t.Errorf("diff after run %s: %+v", agent, r)
		}
	}
}
