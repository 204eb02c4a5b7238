package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/testutil"
)

// proxyWorkspace declares one agent per archetype on a backend whose acp
// command is this test binary acting as an ACP agent that logs the cwds it
// sees to out.
func proxyWorkspace(t *testing.T) (root, home, out string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	out = filepath.Join(t.TempDir(), "agent.log")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{"actant.cue": `package actant
backends: fake: {
	modes: ["acp"]
	acp: {command: "` + self + `", env: ACTCTL_TEST_AGENT_OUT: "` + out + `"}
	install: "go build ./fake-agent"
	files: instructions: ["FAKE.md"]
}
backends: missing: {
	modes: ["acp"]
	acp: command: "actctl-no-such-backend"
	install: "npm install -g no-such-backend"
	files: instructions: ["MISSING.md"]
}
prompts: p: content: "Be helpful."
templates: {
	tool: {backend: "fake", prompts: ["p"], permissions: "standard"}
	repo: {backend: "fake", archetype: "repo", prompts: ["p"], permissions: "standard"}
	emp: {backend: "fake", archetype: "employee", prompts: ["p"], schedule: heartbeat: {interval: "1h", prompt: "check"}}
	svc: {backend: "fake", archetype: "service", prompts: ["p"]}
	broken: {backend: "missing"}
}
agents: {
	helper: template: "tool"
	builder: template: "repo"
	worker: template: "emp"
	server: template: "svc"
	ghost: {template: "broken", workDir: "ghost"}
}
`})
	if err := os.MkdirAll(filepath.Join(root, "ghost"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, home, out
}

// acpSession drives `actctl proxy` like an editor: initialize, then one
// session/new per cwd, then EOF. It returns the responses by id.
type acpClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *testutil.Buffer
}

func startProxy(t *testing.T, dir, home string, args ...string) *acpClient {
	t.Helper()
	return startActctl(t, dir, home, append([]string{"proxy"}, args...)...)
}

// startActctl is startProxy with the whole command line given (global
// flags before the command, as some clients put them).
func startActctl(t *testing.T, dir, home string, args ...string) *acpClient {
	t.Helper()
	cmd := exec.Command(actctlBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	c := &acpClient{t: t, cmd: cmd, in: in, out: bufio.NewReader(stdout), stderr: &testutil.Buffer{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return c
}

// call sends one request and returns its response line (decoded).
func (c *acpClient) call(id int, method string, params any) map[string]json.RawMessage {
	c.t.Helper()
	return c.callSeeing(id, method, params, nil)
}

// callSeeing is call with seen, if set, given every line read before the
// response.
func (c *acpClient) callSeeing(id int, method string, params any, seen func(line []byte)) map[string]json.RawMessage {
	c.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("write %s: %v (stderr: %s)", method, err, c.stderr)
	}
	done := make(chan map[string]json.RawMessage, 1)
	go func() {
		for {
			line, err := c.out.ReadBytes('\n')
			if err != nil {
				done <- nil
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) == nil && string(m["id"]) == jsonInt(id) {
				done <- m
				return
			}
			if seen != nil {
				seen(line)
			}
		}
	}()
	select {
	case m := <-done:
		if m == nil {
			c.t.Fatalf("%s: proxy closed stdout; stderr:\n%s", method, c.stderr)
		}
		return m
	case <-time.After(20 * time.Second):
		c.t.Fatalf("%s: no answer; stderr:\n%s", method, c.stderr)
	}
	return nil
}

func jsonInt(i int) string { b, _ := json.Marshal(i); return string(b) }

func (c *acpClient) initialize() {
	c.t.Helper()
	m := c.call(0, acp.AgentMethodInitialize, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	if m["error"] != nil {
		c.t.Fatalf("initialize: %s\nstderr: %s", m["error"], c.stderr)
	}
}

func (c *acpClient) newSession(id int, cwd string) {
	c.t.Helper()
	m := c.call(id, acp.AgentMethodSessionNew, acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
	if m["error"] != nil {
		c.t.Fatalf("session/new: %s\nstderr: %s", m["error"], c.stderr)
	}
}

// close ends the session like an editor closing: EOF, then the proxy
// must exit 0.
func (c *acpClient) close() {
	c.t.Helper()
	c.in.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			c.t.Fatalf("proxy exit: %v\nstderr: %s", err, c.stderr)
		}
	case <-time.After(20 * time.Second):
		c.t.Fatalf("proxy did not exit after EOF; stderr:\n%s", c.stderr)
	}
}

func agentLog(t *testing.T, out string) []string {
	t.Helper()
	b, _ := os.ReadFile(out)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// TestProxyArchetypePolicies checks the process cwd and the session cwds
// the backend sees for each archetype (README, "Archetypes").
func TestProxyArchetypePolicies(t *testing.T) {
	root, home, out := proxyWorkspace(t)
	project := t.TempDir()
	other := t.TempDir()
	inst := func(n string) string { return filepath.Join(home, "instances", n) }
	tests := []struct {
		agent string
		dir   string // client's project (the proxy's cwd)
		cwds  []string
		want  []string
	}{
		// tool: the workspace is the client's project; session cwd passes.
		{"helper", root, []string{root}, []string{"process " + root, "session session/new " + root}},
		// tool, editor in another project: a per-project copy lives there.
		{"helper", project, []string{project}, []string{"process " + project, "session session/new " + project}},
		// employee: process in its instance; the client's cwd is passed on.
		{"worker", project, []string{project}, []string{"process " + inst("worker"), "session session/new " + project}},
		// service: process in its instance; each session keeps its own cwd.
		{"server", project, []string{project, other}, []string{"process " + inst("server"), "session session/new " + project, "session session/new " + other}},
		// repo: process and sessions in the instance workspace.
		{"builder", project, []string{project}, []string{"process " + inst("builder"), "session session/new " + inst("builder")}},
	}
	for _, tt := range tests {
		t.Run(tt.agent+filepath.Base(tt.dir), func(t *testing.T) {
			os.Remove(out)
			c := startProxy(t, tt.dir, home, tt.agent, "-C", root)
			c.initialize()
			for i, cwd := range tt.cwds {
				c.newSession(i+1, cwd)
			}
			c.close()
			if got := agentLog(t, out); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("backend saw\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			// The agent was materialized before its backend started.
			r := actctl(t, root, home, "-o", "json", "status")
			dir := strings.TrimPrefix(tt.want[0], "process ")
			var sts []struct{ Name, Status, Dir string }
			json.Unmarshal([]byte(r.Stdout), &sts)
			synced := false
			for _, st := range sts {
				if strings.HasPrefix(st.Name, tt.agent) && st.Status == "Synced" && st.Dir == dir {
					synced = true
				}
			}
			if !synced {
				t.Errorf("no Synced agent in %s after proxy:\n%s%s", dir, r.Stdout, r.Stderr)
			}
		})
	}
}

// TestProxyRelativeCwd: a relative cwd from the client is refused with
// -32602 and never reaches the backend.
func TestProxyRelativeCwd(t *testing.T) {
	root, home, out := proxyWorkspace(t)
	c := startProxy(t, root, home, "helper", "-C", root)
	c.initialize()
	m := c.call(1, acp.AgentMethodSessionNew, map[string]any{"cwd": "relative/dir", "mcpServers": []any{}})
	if !strings.Contains(string(m["error"]), "-32602") {
		t.Errorf("relative cwd answered %s", m["error"])
	}
	c.close()
	if strings.Contains(strings.Join(agentLog(t, out), "\n"), "session") {
		t.Error("the backend received the relative cwd")
	}
}

// TestProxyTemplateIntoProject: -t creates an undeclared tool agent in the
// client's project, next to the user's own CLAUDE.md-like file, which keeps
// its bytes; the agent is recorded in the workspace.
func TestProxyTemplateIntoProject(t *testing.T) {
	root, home, out := proxyWorkspace(t)
	project := t.TempDir()
	userText := "# My notes\r\nkeep me exactly\r\n"
	writeFiles(t, project, map[string]string{"FAKE.md": userText})
	c := startProxy(t, project, home, "scratch", "-t", "tool", "-C", root)
	c.initialize()
	c.newSession(1, project)
	c.close()
	if got := agentLog(t, out); got[0] != "process "+project {
		t.Errorf("backend process cwd: %v", got)
	}
	b, _ := os.ReadFile(filepath.Join(project, "FAKE.md"))
	if !strings.HasPrefix(string(b), userText) || !strings.Contains(string(b), "BEGIN actctl agent=scratch") || !strings.Contains(string(b), "Be helpful.") {
		t.Errorf("FAKE.md =\n%q", b)
	}
	r := actctl(t, root, home, "-o", "json", "get", "agents")
	if !strings.Contains(r.Stdout, `"scratch"`) || !strings.Contains(r.Stdout, project) {
		t.Errorf("scratch not recorded in the workspace: %s %s", r.Stdout, r.Stderr)
	}
	// An unknown template is refused with a suggestion, and so is an
	// unknown agent without -t; the editor gets the reason as an answer.
	for _, args := range [][]string{{"other", "-t", "tol", "-C", root}, {"nobody", "-C", root}} {
		c := startProxy(t, project, home, args...)
		m := c.call(0, acp.AgentMethodInitialize, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
		if !strings.Contains(string(m["error"]), "unknown") {
			t.Errorf("%v: initialize answered %s", args, m)
		}
		c.in.Close()
		if err := c.cmd.Wait(); err == nil {
			t.Errorf("%v: exit 0", args)
		}
	}

	// delete: a declared agent is refused with its position, an unknown
	// one by name, and nothing is written either way.
	before := stamps(t, project)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"delete", "helper"}, 1, "actant.cue:"},
		{[]string{"delete", "nobody"}, 1, `"nobody"`},
		{[]string{"delete"}, 2, "name the agent"},
	} {
		r := actctl(t, root, home, c.args...)
		if r.Code != c.code || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s", c.args, r.Code, c.code, c.want, r.Stderr)
		}
	}
	if r := actctl(t, root, home, "delete", "scratch", "--dry-run"); r.Code != 0 || !strings.Contains(r.Stdout, "FAKE.md") {
		t.Errorf("delete --dry-run: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if after := stamps(t, project); !reflect.DeepEqual(before, after) {
		t.Error("a refused delete or a dry run changed the project")
	}
	// An agent a live process serves is not deleted under it.
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	if r := actctl(t, root, home, "attach", "scratch", "--pid", jsonInt(sleeper.Process.Pid)); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	if r := actctl(t, root, home, "delete", "scratch"); r.Code != 1 || !strings.Contains(r.Stderr, "served by pid "+jsonInt(sleeper.Process.Pid)) {
		t.Errorf("delete of a served agent: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := actctl(t, root, home, "detach", "scratch"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	// delete scratch: the user's file returns to its exact bytes, the
	// agent is gone from the workspace, and agent:destroyed fires.
	events := filepath.Join(t.TempDir(), "events.log")
	cfgPath := filepath.Join(root, "actant.cue")
	cfg, _ := os.ReadFile(cfgPath)
	hook := `hooks: gone: {on: "agent:destroyed", run: {command: "/bin/sh", args: ["-c", "printf '%s\\n' \"$ACTCTL_EVENT\" >> ` + events + `"]}}` + "\n"
	writeFiles(t, root, map[string]string{"actant.cue": string(cfg) + hook})
	if r := actctl(t, root, home, "delete", "scratch"); r.Code != 0 {
		t.Fatalf("delete scratch: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if b, _ := os.ReadFile(events); !strings.Contains(string(b), `"name":"agent:destroyed","agent":"scratch"`) {
		t.Errorf("delete fired %q, want agent:destroyed for scratch", b)
	}
	if b, _ := os.ReadFile(filepath.Join(project, "FAKE.md")); string(b) != userText {
		t.Errorf("FAKE.md after delete = %q, want the user's original", b)
	}
	if got := listFiles(t, project); strings.Join(got, ",") != "FAKE.md" {
		t.Errorf("project after delete holds %v, want only the user's FAKE.md", got)
	}
	if r := actctl(t, root, home, "-o", "json", "get", "agents"); strings.Contains(r.Stdout, `"scratch"`) {
		t.Errorf("scratch still listed after delete: %s", r.Stdout)
	}
	if r := actctl(t, root, home, "apply", "--dry-run"); strings.Contains(r.Stdout, project) || strings.Contains(r.Stdout, "scratch") {
		t.Errorf("apply would bring scratch back:\n%s", r.Stdout)
	}
}

// TestProxyEphemeralCopy: an agent already served by a live process gets
// an ephemeral copy, removed when the client disconnects.
func TestProxyEphemeralCopy(t *testing.T) {
	root, home, out := proxyWorkspace(t)
	if r := actctl(t, root, home, "apply", "builder"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	if r := actctl(t, root, home, "attach", "builder", "--pid", jsonInt(sleeper.Process.Pid)); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	c := startProxy(t, root, home, "builder", "-C", root)
	c.initialize()
	c.newSession(1, root)
	c.close()
	got := agentLog(t, out)
	if len(got) < 1 || !strings.HasPrefix(got[0], "process "+filepath.Join(home, "instances", "builder-eph-")) {
		t.Fatalf("backend ran in %v, want an ephemeral instance", got)
	}
	ephDir := strings.TrimPrefix(got[0], "process ")
	if _, err := os.Stat(ephDir); err == nil {
		t.Errorf("ephemeral instance %s not removed", ephDir)
	}
	if !strings.Contains(c.stderr.String(), "ephemeral copy") {
		t.Errorf("stderr: %s", c.stderr)
	}
	if _, err := os.Stat(filepath.Join(home, "instances", "builder", ".actant.json")); err != nil {
		t.Errorf("the live agent's instance was touched: %v", err)
	}
}

// TestProxyMissingBackend: the editor's initialize gets an error naming the
// command and the install hint, quickly, and the proxy exits non-zero.
func TestProxyMissingBackend(t *testing.T) {
	root, home, _ := proxyWorkspace(t)
	c := startProxy(t, root, home, "ghost", "-C", root)
	m := c.call(0, acp.AgentMethodInitialize, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	e := string(m["error"])
	if !strings.Contains(e, "actctl-no-such-backend") || !strings.Contains(e, "npm install -g no-such-backend") {
		t.Errorf("initialize answered %s", m)
	}
	c.in.Close()
	if err := c.cmd.Wait(); err == nil {
		t.Error("proxy exited 0 with a missing backend")
	}
}
