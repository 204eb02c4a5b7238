package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actctl/actctl/launch"
)

// mcpWorkspace declares one agent of each archetype on the scripted ACP
// test agent (internal/acptestagent), one template that lists the
// reserved MCP server actctl, and a readonly agent.
func mcpWorkspace(t *testing.T) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
archetypes: tool: interactionModes: ["open", "start", "chat", "run", "proxy"]
templates: {
	std: {backend: "scripted", mcpServers: ["actctl"]}
	ro: {backend: "scripted", permissions: "readonly"}
	inst: {backend: "scripted", archetype: "repo"}
	svc: {backend: "scripted", archetype: "service"}
	emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check"}}
}
agents: {
	helper: template: "std"
	reader: template: "ro"
	builder: template: "inst"
	server: template: "svc"
	worker: template: "emp"
}
`)
	return root, home
}

// mcpConnect starts `actctl mcp -C root [--as caller]` as a real process
// and connects the go-sdk's client to it over stdio.
func mcpConnect(t *testing.T, root, home, caller string) *mcp.ClientSession {
	t.Helper()
	return mcpConnectEnv(t, root, home, caller, nil)
}

// mcpConnectEnv is mcpConnect with extra environment variables.
func mcpConnectEnv(t *testing.T, root, home, caller string, env []string) *mcp.ClientSession {
	t.Helper()
	args := []string{"mcp", "-C", root}
	if caller != "" {
		args = append(args, "--as", caller)
	}
	cmd := exec.Command(actctlBin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(launch.WithoutVar(os.Environ(), launch.AgentVar), "ACTANT_HOME="+home, "NO_COLOR=1"), env...)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to actctl %s: %v", strings.Join(args, " "), err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and returns its text content and whether it is an
// error; structured output, if any, is decoded into out.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	if out != nil && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured output %s: %v", name, b, err)
		}
	}
	return strings.Join(text, "\n"), res.IsError
}

// TestMCPToolsByArchetype: a person (no --as), tool and employee agents get
// every tool; a service list, status and prompt; a repo agent and an
// unknown caller none; a refused call is a tool error naming what the
// caller may use.
func TestMCPToolsByArchetype(t *testing.T) {
	root, home := mcpWorkspace(t)
	all := "agent_status,list_agents,prompt_agent,run_agent,subscribe,unsubscribe"
	tool := "agent_status,list_agents,prompt_agent,run_agent"
	for _, tc := range []struct {
		caller, tools, refused, msg string
		env                         []string
	}{
		{"", all, "", "", nil},
		// The environment of a backend actctl started names its agent;
		// --as wins over it.
		{"", "", "list_agents", `tool list_agents is not available to agent "builder"`, []string{launch.AgentVar + "=builder"}},
		{"helper", tool, "", "", []string{launch.AgentVar + "=builder"}},
		{"helper", tool, "subscribe", `tool subscribe is not available to agent "helper": its archetype allows only list_agents, agent_status, run_agent, prompt_agent`, nil},
		{"worker", "agent_status,canvas_update,list_agents,prompt_agent,run_agent,subscribe,unsubscribe", "", "", nil},
		{"server", "agent_status,list_agents,prompt_agent", "run_agent",
			`tool run_agent is not available to agent "server": its archetype allows only list_agents, agent_status, prompt_agent`, nil},
		{"builder", "", "list_agents", `tool list_agents is not available to agent "builder": its archetype allows no tools`, nil},
		{"nobody", "", "agent_status", `tool agent_status is not available to agent "nobody"`, nil},
	} {
		cs := mcpConnectEnv(t, root, home, tc.caller, tc.env)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatalf("%q: list tools: %v", tc.caller, err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		sort.Strings(names)
		if got := strings.Join(names, ","); got != tc.tools {
			t.Errorf("caller %q: tools %q, want %q", tc.caller, got, tc.tools)
		}
		if tc.refused == "" {
			continue
		}
		text, isErr := callTool(t, cs, tc.refused, map[string]any{"agent": "helper", "prompt": "hello"}, nil)
		if !isErr || !strings.Contains(text, tc.msg) {
			t.Errorf("caller %q calling %s: error %v, %q; want %q", tc.caller, tc.refused, isErr, text, tc.msg)
		}
	}
}

// TestMCPListAndStatus: list_agents names each agent's template, backend,
// archetype and offered modes; agent_status is what status reports.
func TestMCPListAndStatus(t *testing.T) {
	root, home := mcpWorkspace(t)
	cs := mcpConnect(t, root, home, "")
	var list listAgentsOut
	if text, isErr := callTool(t, cs, "list_agents", nil, &list); isErr {
		t.Fatalf("list_agents: %s", text)
	}
	got := map[string]string{}
	for _, a := range list.Agents {
		got[a.Name] = strings.Join([]string{a.Template, a.Backend, a.Archetype, strings.Join(a.Modes, "+")}, " ")
	}
	want := map[string]string{
		"helper":  "std scripted tool chat+run+proxy",
		"reader":  "ro scripted tool chat+run+proxy",
		"builder": "inst scripted repo chat+run+proxy",
		"server":  "svc scripted service start+proxy",
		"worker":  "emp scripted employee start+run+proxy",
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("list_agents %s = %q, want %q", n, got[n], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("list_agents = %v", got)
	}

	var st agentStatusJSON
	if text, isErr := callTool(t, cs, "agent_status", map[string]any{"agent": "helper"}, &st); isErr || st.Status != "Missing" || st.Dir != root {
		t.Errorf("before apply: %+v (%s)", st, text)
	}
	if r := actctl(t, root, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %+v", r)
	}
	st = agentStatusJSON{}
	if text, isErr := callTool(t, cs, "agent_status", map[string]any{"agent": "helper"}, &st); isErr || st.Status != "Synced" {
		t.Errorf("after apply: %+v (%s)", st, text)
	}
	if text, isErr := callTool(t, cs, "agent_status", map[string]any{"agent": "helpr"}, nil); !isErr || !strings.Contains(text, `unknown agent "helpr" (did you mean "helper"?)`) {
		t.Errorf("unknown agent: %v %q", isErr, text)
	}
}

// TestMCPRunAgent: run_agent is one `actctl run` turn: the reply text and
// stop reason, the preset's permission policy, a template's ephemeral
// agent (whose session gets the reserved actctl MCP server), and tool
// errors for turns that never completed and for bad arguments.
func TestMCPRunAgent(t *testing.T) {
	root, home := mcpWorkspace(t)
	cs := mcpConnect(t, root, home, "helper")
	for _, tc := range []struct {
		args              map[string]any
		reply, stop, erro string
		code              int
	}{
		{map[string]any{"agent": "helper", "prompt": "hello"}, "Hello from the test agent.\n", "end_turn", "", 0},
		{map[string]any{"agent": "helper", "prompt": "refuse"}, "", "refusal", "the agent refused", 3},
		{map[string]any{"agent": "reader", "prompt": "perm edit"}, "permission: no", "end_turn", "every permission request (1) was denied", 5},
		{map[string]any{"agent": "reader", "prompt": "perm read"}, "permission: yes", "end_turn", "", 0},
		{map[string]any{"template": "std", "prompt": "session", "cwd": root}, "cwd " + root + " turn 1 mcp [stdio:actctl:actctl]", "end_turn", "", 0},
	} {
		var out runAgentOut
		text, isErr := callTool(t, cs, "run_agent", tc.args, &out)
		// The agent that ran: the one asked for (a per-project copy
		// where the cwd is another project), or the template's ephemeral one.
		want, _ := tc.args["agent"].(string)
		if want == "" {
			want = tc.args["template"].(string) + "-run-"
		}
		if !strings.HasPrefix(out.Agent, want) {
			t.Errorf("run_agent %v: agent %q", tc.args, out.Agent)
		}
		if isErr || !strings.Contains(out.Reply, tc.reply) || out.StopReason != tc.stop || out.ExitCode != tc.code || !strings.Contains(out.Error, tc.erro) || (tc.erro == "") != (out.Error == "") {
			t.Errorf("run_agent %v: %+v (error %v: %s)", tc.args, out, isErr, text)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "instances")); !os.IsNotExist(err) {
		t.Errorf("the template's ephemeral agent left an instance: %v", err)
	}
	for _, tc := range []struct {
		args map[string]any
		msg  string
	}{
		{map[string]any{"agent": "helper", "prompt": "crash"}, "test agent: crashing on purpose"},
		{map[string]any{"agent": "server", "prompt": "hello"}, `does not offer run`},
		{map[string]any{"agent": "nobody", "prompt": "hello"}, `unknown agent "nobody"`},
		{map[string]any{"agent": "helper", "template": "std", "prompt": "hello"}, "give exactly one of agent or template"},
		{map[string]any{"prompt": "hello"}, "give exactly one of agent or template"},
		{map[string]any{"agent": "helper", "prompt": " "}, "the prompt is empty"},
	} {
		if text, isErr := callTool(t, cs, "run_agent", tc.args, nil); !isErr || !strings.Contains(text, tc.msg) {
			t.Errorf("run_agent %v: error %v %q, want %q", tc.args, isErr, text, tc.msg)
		}
	}
}

// TestMCPPromptAgentNeedsUp: prompt_agent goes through actctl up; without
// one it says so plainly.
func TestMCPPromptAgentNeedsUp(t *testing.T) {
	root, home := mcpWorkspace(t)
	cs := mcpConnect(t, root, home, "server")
	text, isErr := callTool(t, cs, "prompt_agent", map[string]any{"agent": "worker", "prompt": "hello"}, nil)
	if !isErr || text != "no actctl up is running for this workspace; start it with `actctl up`" {
		t.Errorf("prompt_agent: error %v %q", isErr, text)
	}
	if text, isErr := callTool(t, cs, "prompt_agent", map[string]any{"agent": "nobody", "prompt": "hello"}, nil); !isErr || !strings.Contains(text, `unknown agent "nobody"`) {
		t.Errorf("prompt_agent unknown: error %v %q", isErr, text)
	}
	// With up running, the employee answers through its task queue and
	// the service in a new session.
	p := startUp(t, root, home)
	for range 2 {
		p.waitLine(`up: (server|worker): process:start`)
	}
	for _, agent := range []string{"worker", "server"} {
		text, isErr := callTool(t, cs, "prompt_agent", map[string]any{"agent": agent, "prompt": "hello"}, nil)
		if isErr || !strings.Contains(text, `"stopReason":"end_turn"`) || !strings.Contains(text, `"reply":"Hello`) {
			t.Errorf("prompt_agent %s with up: error %v %q", agent, isErr, text)
		}
	}
}

// TestMCPReservedServerApplied: apply writes the reserved server into the
// backend's MCP file; a definition of that name is a positioned error and
// nothing is written.
func TestMCPReservedServerApplied(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, "package actant\ntemplates: t: {backend: \"claude-code\", mcpServers: [\"actctl\"]}\nagents: a: template: \"t\"\n")
	if r := actctl(t, root, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %+v", r)
	}
	b, err := os.ReadFile(filepath.Join(root, ".mcp.json"))
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
		t.Fatal(err)
	}
	s := f.MCPServers["actctl"]
	if got, want := s.Command+" "+strings.Join(s.Args, " "), "actctl mcp -C "+root+" --home "+home+" --as a"; got != want {
		t.Errorf(".mcp.json actctl = %q, want %q", got, want)
	}

	bad := t.TempDir()
	writeConfigTB(t, bad, "package actant\nmcpServers: actctl: command: \"mine\"\ntemplates: t: {backend: \"claude-code\", mcpServers: [\"actctl\"]}\nagents: a: template: \"t\"\n")
	r := actctl(t, bad, home, "apply")
	if r.Code != 1 || !strings.Contains(r.Stderr, `actant.cue:2:13: mcpServers.actctl: the MCP server name "actctl" is reserved`) {
		t.Errorf("reserved name defined: %+v", r)
	}
	if entries, _ := os.ReadDir(bad); len(entries) != 1 {
		t.Errorf("apply wrote %d entries in a refused workspace", len(entries)-1)
	}
}

// TestMCPRunAgentProgressAndShutdown: run_agent streams the reply as
// progress notifications when asked, and other calls are served meanwhile;
// a turn ends, and neither the agent nor its child outlives it, when the
// caller cancels the call, when the server is told to stop (SIGTERM) and
// when its client goes away (stdin closed).
func TestMCPRunAgentProgressAndShutdown(t *testing.T) {
	root, home := mcpWorkspace(t)
	for _, how := range []string{"cancel", "sigterm", "close"} {
		progress := make(chan string, 100)
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { progress <- r.Params.Message },
		})
		cmd := exec.Command(actctlBin, "mcp", "-C", root)
		cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
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
		cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			p := &mcp.CallToolParams{Name: "run_agent", Arguments: map[string]any{"agent": "helper", "prompt": "stream", "cwd": root}}
			p.SetProgressToken("t1")
			_, err := cs.CallTool(ctx, p)
			done <- err
		}()
		var pid, child int
		for pid == 0 {
			m := regexp.MustCompile(`streaming pid=(\d+) child=(\d+)`).FindStringSubmatch(<-progress)
			if m != nil {
				pid, _ = strconv.Atoi(m[1])
				child, _ = strconv.Atoi(m[2])
			}
		}
		switch how {
		case "cancel":
			// Calls are served while a turn runs.
			if text, isErr := callTool(t, cs, "list_agents", nil, nil); isErr || !strings.Contains(text, `"helper"`) {
				t.Errorf("list_agents during a turn: %v %s", isErr, text)
			}
			cancel()
		case "sigterm":
			cmd.Process.Signal(syscall.SIGTERM)
		case "close":
			stdin.Close()
		}
		if how != "cancel" {
			<-done
			if err := cmd.Wait(); err != nil {
				t.Errorf("%s: actctl mcp: %v", how, err)
			}
		}
		requireExited(t, how+": after the turn", pid, child)
		cancel()
		if how == "cancel" {
			stdin.Close()
			cmd.Wait()
		}
	}
}

// TestMCPUsage: arguments are a usage error, and a directory without a
// workspace fails before serving; neither writes anything.
func TestMCPUsage(t *testing.T) {
	root, home := mcpWorkspace(t)
	if r := actctl(t, root, home, "mcp", "helper"); r.Code != 2 || !strings.Contains(r.Stderr, "mcp: takes no arguments") {
		t.Errorf("argument: %+v", r)
	}
	empty := t.TempDir()
	if r := actctl(t, empty, filepath.Join(empty, "home"), "mcp"); r.Code != 1 || !strings.Contains(r.Stderr, "no actant.cue found") {
		t.Errorf("no workspace: %+v", r)
	}
	for _, dir := range []string{root, empty} {
		if entries, _ := os.ReadDir(dir); len(entries) != map[string]int{root: 1, empty: 0}[dir] {
			t.Errorf("%s: %d entries written", dir, len(entries))
		}
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("home created: %v", err)
	}
}

// TestMCPDelegationChain: an agent's actctl mcp (its chain in
// ACTCTL_CHAIN) refuses to run or prompt an agent already in the chain
// and a chain deeper than launch.MaxChain, before anything starts; an
// agent outside the chain runs (launch's TestResolveExtendsTheChain: the
// chain reaches the backend).
func TestMCPDelegationChain(t *testing.T) {
	root, home := mcpWorkspace(t)
	cs := mcpConnectEnv(t, root, home, "helper", []string{launch.ChainVar + "=worker,helper"})
	for _, tc := range []struct {
		tool string
		args map[string]any
		msg  string
	}{
		{"run_agent", map[string]any{"agent": "helper", "prompt": "hello"}, `run_agent: agent "helper" is already in this delegation chain (worker -> helper -> helper)`},
		{"prompt_agent", map[string]any{"agent": "worker", "prompt": "hello"}, `prompt_agent: agent "worker" is already in this delegation chain (worker -> helper -> worker)`},
	} {
		if text, isErr := callTool(t, cs, tc.tool, tc.args, nil); !isErr || !strings.Contains(text, tc.msg) {
			t.Errorf("%s %v: error %v %q, want %q", tc.tool, tc.args, isErr, text, tc.msg)
		}
	}
	deep := mcpConnectEnv(t, root, home, "helper", []string{launch.ChainVar + "=a,b,c,d"})
	if text, isErr := callTool(t, deep, "run_agent", map[string]any{"template": "std", "prompt": "hello"}, nil); !isErr ||
		!strings.Contains(text, "the delegation chain a -> b -> c -> d -> (new agent) would be 5 agents deep; actctl allows 4") {
		t.Errorf("run_agent four deep: error %v %q", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(root, ".actant")); !os.IsNotExist(err) {
		t.Errorf("a refused delegation wrote: %v", err)
	}
	var out runAgentOut
	if text, isErr := callTool(t, cs, "run_agent", map[string]any{"agent": "reader", "prompt": "hello"}, &out); isErr || out.StopReason != "end_turn" {
		t.Errorf("run_agent reader in the chain worker,helper: %v %s", isErr, text)
	}
}
