package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actctl/actctl/internal/userkey"
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

// mcpServe starts actctl with args (an mcp command line) in dir, as a
// person's: no agent in its environment, and connects to it.
func mcpServe(t *testing.T, dir, home string, args []string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(actctlBin, args...)
	cmd.Dir = dir
	cmd.Env = append(launch.WithoutVar(os.Environ(), launch.AgentVar), "ACTANT_HOME="+home, "NO_COLOR=1")
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to actctl %s: %v", strings.Join(args, " "), err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// listToolsOf starts the actctl mcp that args (an entry's arguments) run
// and lists the tools it offers.
func listToolsOf(t *testing.T, home string, args []string) string {
	t.Helper()
	cs := mcpServe(t, t.TempDir(), home, args)
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
		{"lead", filepath.Join(home, "instances", "lead"), "agent_status,canvas_update,list_agents,prompt_agent,run_agent,subscribe,unsubscribe"},
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

// TestMCPRunAgentCwdInsideRoot: run_agent's cwd must lie inside the
// workspace root, judged on the resolved path: a directory outside, a
// symlink inside the root that leads out, ".." and a missing directory are
// refused before anything is written or recorded; without a cwd, a server
// started outside the root runs the agent in the root, placing nothing
// where it runs; a directory inside the root (also through a link) runs
// (issue #20 item 8).
func TestMCPRunAgentCwdInsideRoot(t *testing.T) {
	root, home := mcpTrustWorkspace(t)
	outside, elsewhere := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{"sub/keep.txt": "mine\n"})
	for link, target := range map[string]string{"out": outside, "in": filepath.Join(root, "sub")} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	cs := mcpServe(t, elsewhere, home, []string{"mcp", "-C", root})
	for _, tc := range []struct{ cwd, msg string }{
		{outside, "cwd " + outside + " is outside the workspace root " + root},
		{"out", "cwd out is outside the workspace root " + root + " (it resolves to " + outside + ")"},
		{filepath.Join(root, "out"), "is outside the workspace root"},
		{"sub/../..", `a ".." component is not allowed`},
		{root + "/sub/../../" + filepath.Base(outside), `a ".." component is not allowed`},
		{"missing", "run_agent: cwd missing: "},
	} {
		text, isErr := callTool(t, cs, "run_agent", map[string]any{"agent": "helper", "prompt": "hello", "cwd": tc.cwd}, nil)
		if !isErr || !strings.Contains(text, tc.msg) {
			t.Errorf("run_agent cwd %s: error %v %q, want %q", tc.cwd, isErr, text, tc.msg)
		}
	}
	for _, d := range []string{outside, root} {
		if got := strings.Join(listFiles(t, d), " "); got != map[string]string{outside: "", root: "actant.cue in out sub/keep.txt"}[d] {
			t.Errorf("refused run_agent calls wrote in %s: %s", d, got)
		}
	}
	for _, cwd := range []string{"", "sub", "in", filepath.Join(root, "sub")} {
		var out runAgentOut
		text, isErr := callTool(t, cs, "run_agent", map[string]any{"agent": "helper", "prompt": "hello", "cwd": cwd}, &out)
		if isErr || out.StopReason != "end_turn" || out.Agent != "helper" {
			t.Errorf("run_agent cwd %q: %v %s", cwd, isErr, text)
		}
	}
	if got := listFiles(t, elsewhere); len(got) != 0 {
		t.Errorf("run_agent without a cwd placed files where the server runs: %v", got)
	}
	if _, err := os.Stat(filepath.Join(root, ".actant", "adhoc.json")); !os.IsNotExist(err) {
		t.Errorf("a copy was recorded: %v", err)
	}
}

// TestFailedCopyLeavesNothing: a per-project copy that fails to
// materialize (the project's MCP file is not JSON; on Linux also a
// directory nothing can be written in, /proc) leaves no record, no
// journal and no file, and every later apply and run works (issue #20
// items 8 and 17).
func TestFailedCopyLeavesNothing(t *testing.T) {
	root, home := mcpTrustWorkspace(t)
	bad := t.TempDir()
	writeFiles(t, bad, map[string]string{".mcp.json": "{not json"})
	dirs := []string{bad}
	if runtime.GOOS == "linux" {
		dirs = append(dirs, "/proc")
	}
	for _, dir := range dirs {
		r := actctl(t, root, home, "run", "helper", "--cwd", dir, "-p", "hello")
		if r.Code != 1 || !strings.Contains(r.Stderr, "materialize helper-p") {
			t.Errorf("run --cwd %s: %+v", dir, r)
		}
		if got := strings.Join(listFiles(t, root), " "); got != "actant.cue" {
			t.Errorf("run --cwd %s left in the workspace: %s", dir, got)
		}
		if _, err := os.Stat(filepath.Join(root, ".actant")); !os.IsNotExist(err) {
			t.Errorf("run --cwd %s left .actant: %v", dir, err)
		}
	}
	if got := strings.Join(listFiles(t, bad), " "); got != ".mcp.json" {
		t.Errorf("the failed copy left in its project: %s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(bad, ".mcp.json")); string(b) != "{not json" {
		t.Errorf("the project's .mcp.json changed: %q", b)
	}
	if r := actctl(t, root, home, "apply"); r.Code != 0 {
		t.Errorf("apply after the failed copies: %+v", r)
	}
	if r := actctl(t, root, home, "run", "helper", "-p", "hello"); r.Code != 0 {
		t.Errorf("run after the failed copies: %+v", r)
	}
	if r := actctl(t, root, home, "get", "agents"); strings.Contains(r.Stdout, "helper-p") {
		t.Errorf("get agents lists a failed copy:\n%s", r.Stdout)
	}
}

// TestDeleteBrokenRecord: ad-hoc records that break every apply — a copy
// that never materialized (its directory cannot be written), one whose
// template is gone, and a kept -t agent, applied, whose template was then
// removed — are deleted: their files pruned, their records forgotten, and
// apply works again (issue #20 item 17).
func TestDeleteBrokenRecord(t *testing.T) {
	root, home := mcpTrustWorkspace(t)
	cfg, err := os.ReadFile(filepath.Join(root, "actant.cue"))
	if err != nil {
		t.Fatal(err)
	}
	withExtra := strings.Replace(string(cfg), "templates: {", "templates: {\n\textra: {backend: \"scripted\", archetype: \"repo\"}", 1)
	writeConfigTB(t, root, withExtra)
	r := actctl(t, root, home, "run", "-t", "extra", "--keep", "-p", "hello")
	if r.Code != 0 {
		t.Fatalf("run -t extra --keep: %+v", r)
	}
	kept := regexp.MustCompile(`extra-run-[0-9a-f]+`).FindString(r.Stderr)
	instance := filepath.Join(home, "instances", kept)
	if _, err := os.Stat(instance); kept == "" || err != nil {
		t.Fatalf("kept agent %q: %v (%s)", kept, err, r.Stderr)
	}
	writeConfigTB(t, root, string(cfg))
	adhoc := filepath.Join(root, ".actant", "adhoc.json")
	b, err := os.ReadFile(adhoc)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := userkey.SplitJSON(b)
	broken := strings.Replace(string(body), `"agents": {`, `"agents": {"helper-pdeadbeef": {"template": "std", "workDir": "`+filepath.Join(t.TempDir(), "gone")+`", "workDirConflict": "append"}, "orphan-x": {"template": "gone"},`, 1)
	if err := os.WriteFile(adhoc, sealRecord(t, home, "actctl adhoc "+root, []byte(broken)), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := actctl(t, root, home, "apply"); r.Code != 1 {
		t.Fatalf("apply with broken records: %+v", r)
	}
	r = actctl(t, root, home, "delete", "helper-pdeadbeef", "orphan-x", kept)
	if r.Code != 0 || !strings.Contains(r.Stdout, "1 pruned") {
		t.Fatalf("delete the broken records: %+v", r)
	}
	if _, err := os.Stat(instance); !os.IsNotExist(err) {
		t.Errorf("the kept agent's instance is left: %v", err)
	}
	if _, err := os.Stat(adhoc); !os.IsNotExist(err) {
		t.Errorf("adhoc.json is left: %v", err)
	}
	if r := actctl(t, root, home, "apply"); r.Code != 0 {
		t.Errorf("apply after delete: %+v", r)
	}
	// Records with no files at all are deleted alone too, saying so.
	if err := os.WriteFile(adhoc, sealRecord(t, home, "actctl adhoc "+root, []byte(`{"agents": {"orphan-y": {"template": "gone"}}}`)), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := actctl(t, root, home, "delete", "orphan-y"); r.Code != 0 || r.Stdout != "deleted orphan-y (it had no files to prune)\n" {
		t.Errorf("delete orphan-y: %+v", r)
	}
}

// TestMCPOversizeRequest: a request over the line limit (20 MB) is
// answered with a JSON-RPC error for its id and said on stderr, and the
// server goes on serving; it exits 0 when its client closes stdin (issue
// #20 item 20: it used to exit 0 at once, without a word).
func TestMCPOversizeRequest(t *testing.T) {
	root, home := mcpTrustWorkspace(t)
	cmd := exec.Command(actctlBin, "mcp", "-C", root)
	cmd.Env = append(launch.WithoutVar(os.Environ(), launch.AgentVar), "ACTANT_HOME="+home, "NO_COLOR=1")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	send := func(msg string) {
		t.Helper()
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	answer := func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("no answer: %v (stderr %s)", lines.Err(), stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("answer %q: %v", lines.Bytes(), err)
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := answer(); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	big := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_agent","arguments":{"agent":"helper","prompt":"` + strings.Repeat("x", 20<<20) + `"}}}`
	send(big)
	m := answer()
	e, _ := m["error"].(map[string]any)
	if m["id"] != 2.0 || e == nil || e["code"] != -32600.0 || !strings.Contains(e["message"].(string), fmt.Sprintf("message of %d bytes refused: the limit is 16777216 bytes", len(big)+1)) {
		t.Errorf("the 20 MB request: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if m := answer(); m["id"] != 3.0 || !strings.Contains(fmt.Sprint(m["result"]), "run_agent") {
		t.Errorf("tools/list after it: %v", m)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("actctl mcp: %v", err)
	}
	if want := fmt.Sprintf("actctl: mcp: refused a message of %d bytes (the limit is 16777216): answered with a JSON-RPC error\n", len(big)+1); stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

// delegationWorkspace declares employees a to e on the scripted test
// agent, each with the reserved actctl server in its .mcp.json, and actctl
// on the backends' PATH: the agents' delegate op (internal/acptestagent)
// starts that server as Codex does, without passing the environment on.
func delegationWorkspace(t *testing.T) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	backend := strings.Replace(scriptedBackend(t, `PATH: "`+filepath.Dir(actctlBin)+`:`+os.Getenv("PATH")+`"`), `files: instructions: ["SCRIPTED.md"]`,
		`files: {instructions: ["SCRIPTED.md"], mcp: {path: ".mcp.json", format: "json", key: "mcpServers", dialect: "claude"}}`, 1)
	writeConfigTB(t, root, "package actant\n"+backend+`
templates: emp: {backend: "scripted", archetype: "employee", mcpServers: ["actctl"], schedule: heartbeat: {interval: "1h", prompt: "check"}}
agents: {a: template: "emp", b: template: "emp", c: template: "emp", d: template: "emp", e: template: "emp"}
`)
	return root, home
}

// TestDelegationBoundWithoutTheEnvironment: when the backend starts its
// MCP servers without passing ACTCTL_CHAIN on (Codex), actctl mcp still
// knows its delegation chain (from the process tree): a chain deeper than
// launch.MaxChain and a cycle are refused, and the refused agent never
// starts (issue #20 item 11). Linux only: elsewhere another process's
// environment is not read, and the chain relies on the variable.
func TestDelegationBoundWithoutTheEnvironment(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the chain is read from the process tree on Linux only")
	}
	root, home := delegationWorkspace(t)
	for _, tc := range []struct{ prompt, want, never string }{
		{"delegate b c d e", "delegate b: delegate c: delegate d: delegate e: error: run_agent: the delegation chain a -> b -> c -> d -> e would be 5 agents deep; actctl allows 4", "e"},
		{"delegate b a", `delegate b: delegate a: error: run_agent: agent "a" is already in this delegation chain (a -> b -> a): its turn would wait on itself`, ""},
		{"delegate b c", "delegate b: delegate c: delegate: done", ""},
	} {
		r := actctl(t, root, home, "run", "a", "-p", tc.prompt)
		if r.Code != 0 || strings.TrimSpace(r.Stdout) != tc.want {
			t.Errorf("run a -p %q: code %d, stdout %q\nwant %q\nstderr %s", tc.prompt, r.Code, r.Stdout, tc.want, r.Stderr)
		}
		if tc.never != "" {
			if _, err := os.Stat(filepath.Join(home, "instances", tc.never)); !os.IsNotExist(err) {
				t.Errorf("%s: the refused agent %s was materialized: %v", tc.prompt, tc.never, err)
			}
		}
	}
}
