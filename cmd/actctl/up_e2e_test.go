package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

const upNoUp = "no actctl up is running for this workspace; start it with `actctl up`"

// upWorkspace declares a service, an employee and a tool agent on the
// scripted test agent, which logs every prompt it receives to prompts.log,
// and two hooks on process:start (one failing).
func upWorkspace(t testing.TB) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, `ACTCTL_TEST_PROMPT_LOG: "`+filepath.Join(root, "prompts.log")+`"`)+`
templates: {
	svc: {backend: "scripted", archetype: "service"}
	emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check the queue"}}
	tl: {backend: "scripted"}
}
agents: {
	api: template: "svc"
	triage: template: "emp"
	helper: template: "tl"
}
hooks: "log-start": {on: "process:start", run: {command: "sh", args: ["-c", "printf '%s\\n' \"$ACTCTL_EVENT\" >> events.log"]}}
hooks: "fail-start": {on: "process:start", run: {command: "false"}}
hooks: "tell-triage": {on: "process:start", agents: ["api"], prompt: {agent: "triage", text: "api started as {{event.data.pid}}"}}
`)
	return root, home
}

// upProc is a running `actctl up` whose stderr is read line by line.
type upProc struct {
	t     testing.TB
	cmd   *exec.Cmd
	lines chan string
	mu    sync.Mutex
	all   strings.Builder
}

func startUp(t testing.TB, root, home string, args ...string) *upProc {
	t.Helper()
	return runUp(t, exec.Command(actctlBin, append([]string{"up", "--grace", "2s"}, args...)...), root, home)
}

// runUp starts cmd, an `actctl up` (or a command that execs one), in
// root with home as ACTANT_HOME, and collects its stderr.
func runUp(t testing.TB, cmd *exec.Cmd, root, home string) *upProc {
	t.Helper()
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &upProc{t: t, cmd: cmd, lines: make(chan string, 1000)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.all.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return p
}

// waitLine returns the submatches of the next stderr line matching re.
func (p *upProc) waitLine(re string) []string {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("actctl up ended before %q; stderr:\n%s", re, p.stderr())
			}
			if m := rx.FindStringSubmatch(l); m != nil {
				return m
			}
		case <-deadline.C:
			p.t.Fatalf("no line %q; stderr:\n%s", re, p.stderr())
		}
	}
}

func (p *upProc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.all.String()
}

// started waits for agent's next process:start and returns its pid.
func (p *upProc) started(agent string) int {
	p.t.Helper()
	m := p.waitLine(`up: ` + agent + `: process:start pid (\d+)`)
	pid, _ := strconv.Atoi(m[1])
	return pid
}

func upStatus(t *testing.T, root, home string) map[string]agentStatusJSON {
	t.Helper()
	r := actctl(t, root, home, "status", "-o", "json")
	var out []agentStatusJSON
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("status -o json: %v\n%s%s", err, r.Stdout, r.Stderr)
	}
	m := map[string]agentStatusJSON{}
	for _, s := range out {
		m[s.Name] = s
	}
	return m
}

// TestUpLifecycle drives one `actctl up` through what a user does:
// status, prompts, a killed service, stop/start/restart, a config edit,
// hooks, a second up, and SIGTERM leaving no process behind.
func TestUpLifecycle(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home)
	pids := map[string]int{}
	for range 2 {
		m := p.waitLine(`up: (api|triage): process:start pid (\d+)`)
		pids[m[1]], _ = strconv.Atoi(m[2])
	}
	st := upStatus(t, root, home)
	for _, name := range []string{"api", "triage"} {
		pr := st[name].Process
		if pr == nil || pr.Status != "running" || pr.PID != pids[name] || pr.Up == nil {
			t.Fatalf("status of %s: %+v", name, pr)
		}
	}
	if st["helper"].Process != nil {
		t.Errorf("helper (no autoStart) runs: %+v", st["helper"].Process)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "instances", "triage", ".heartbeat")); string(b) != "check the queue" {
		t.Errorf(".heartbeat = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "instances", "api", ".actant.json")); !strings.Contains(string(b), `"pid": `+strconv.Itoa(pids["api"])) {
		t.Errorf("api's .actant.json lacks its pid:\n%s", b)
	}

	// A second up names the first.
	if r := actctl(t, root, home, "up"); r.Code != 1 || !strings.Contains(r.Stderr, "already running for this workspace (pid "+strconv.Itoa(p.cmd.Process.Pid)+")") {
		t.Fatalf("second up: %d\n%s", r.Code, r.Stderr)
	}

	// Prompts: an employee's task, a service's new session.
	if r := actctl(t, root, home, "prompt", "triage", "-p", "hello"); r.Code != 0 || !strings.Contains(r.Stdout, "Hello from the test agent") {
		t.Fatalf("prompt triage: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r := actctl(t, root, home, "prompt", "api", "-p", "session", "-o", "json")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"type":"summary"`) || !strings.Contains(r.Stdout, `"stopReason":"end_turn"`) {
		t.Fatalf("prompt api -o json: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := actctl(t, root, home, "prompt", "api", "-p", "refuse"); r.Code != exitRefusal {
		t.Fatalf("prompt refuse: %d, want %d\n%s", r.Code, exitRefusal, r.Stderr)
	}
	r = actctl(t, root, home, "prompt", "triage", "--no-wait", "-p", "later")
	if r.Code != 0 || !regexp.MustCompile(`^queued task \d+ for triage\n$`).MatchString(r.Stdout) {
		t.Fatalf("prompt --no-wait: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := actctl(t, root, home, "logs", "triage"); r.Code != 0 || !strings.Contains(r.Stdout, "prompt") || !strings.Contains(r.Stdout, "hello") {
		t.Fatalf("logs triage: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// A tool agent up holds on demand: the prompt's turn runs on a
	// process started for it (docs/dashboard.md, "Repo and tool agents").
	if r := actctl(t, root, home, "prompt", "helper", "-p", "session"); r.Code != 0 || !strings.Contains(r.Stdout, "turn 1") {
		t.Fatalf("prompt helper: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := actctl(t, root, home, "prompt", "nope", "-p", "hi"); r.Code != 1 || !strings.Contains(r.Stderr, "not run by this actctl up") {
		t.Fatalf("prompt nope: %d\n%s", r.Code, r.Stderr)
	}

	// A killed service is restarted and counts it.
	if err := killProcess(pids["api"]); err != nil {
		t.Fatal(err)
	}
	p.waitLine(`up: api: process:crash`)
	newAPI := p.started("api")
	if st := upStatus(t, root, home)["api"].Process; st.Up == nil || st.Up.Restarts != 1 || st.PID != newAPI {
		t.Fatalf("after the kill: %+v", st)
	}

	// stop, start, restart.
	if r := actctl(t, root, home, "stop", "api"); r.Code != 0 || !strings.Contains(r.Stdout, "api: stopped") {
		t.Fatalf("stop: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	requireExited(t, "stopped api", newAPI)
	if r := actctl(t, root, home, "start", "api"); r.Code != 0 || !strings.Contains(r.Stdout, "api: running pid") {
		t.Fatalf("start: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	newAPI = p.started("api")
	if r := actctl(t, root, home, "restart", "triage"); r.Code != 0 {
		t.Fatalf("restart: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	requireExited(t, "restarted triage", pids["triage"])
	triage := p.started("triage")

	// A config edit that changes triage restarts it (between tasks).
	cfg, _ := os.ReadFile(filepath.Join(root, "actant.cue"))
	edited := strings.Replace(string(cfg), `archetype: "employee",`, `archetype: "employee", permissions: "readonly",`, 1)
	if edited == string(cfg) {
		t.Fatal("config edit did not apply")
	}
	writeConfigTB(t, root, edited)
	p.waitLine(`up: triage: config changed: restarting`)
	requireExited(t, "triage after the config change", triage)
	triage = p.started("triage")

	// The prompt hook queued a task for triage on each start of api.
	if b, _ := os.ReadFile(filepath.Join(root, "prompts.log")); !strings.Contains(string(b), "api started as "+strconv.Itoa(pids["api"])) {
		t.Errorf("prompt hook: triage's prompts:\n%s", b)
	}
	// Hooks ran, the failing one changed nothing.
	b, _ := os.ReadFile(filepath.Join(root, "events.log"))
	if n := strings.Count(string(b), `"name":"process:start"`); n < 5 {
		t.Errorf("process:start hook ran %d times, want >= 5:\n%s", n, b)
	}

	// SIGTERM stops everything, removes the socket, exits 0.
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up after SIGTERM: %v\n%s", err, p.stderr())
	}
	requireExited(t, "agents after SIGTERM", newAPI, triage)
	if _, err := os.Stat(filepath.Join(root, ".actant", "run", "up.sock")); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
	for _, args := range [][]string{{"start", "api"}, {"stop", "api"}, {"restart", "api"}, {"prompt", "api", "-p", "x"}} {
		if r := actctl(t, root, home, args...); r.Code != 1 || !strings.Contains(r.Stderr, upNoUp) {
			t.Errorf("%v without up: %d\n%s", args, r.Code, r.Stderr)
		}
	}
	if r := actctl(t, root, home, "status"); r.Code != 0 {
		t.Errorf("status without up: %d\n%s", r.Code, r.Stderr)
	}
}

// TestUpBadInput: unknown and non-ACP agents are refused before anything
// runs.
func TestUpBadInput(t *testing.T) {
	root, home := upWorkspace(t)
	r := actctl(t, root, home, "up", "nope")
	if r.Code != 1 || !strings.Contains(r.Stderr, `unknown agent "nope"`) {
		t.Fatalf("up nope: %d\n%s", r.Code, r.Stderr)
	}
	r = actctl(t, root, home, "up", "helper")
	if r.Code != 1 || !strings.Contains(r.Stderr, `agent "helper" does not offer start: its launch mode "direct"`) {
		t.Fatalf("up helper: %d\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(root, ".actant")); !os.IsNotExist(err) {
		t.Errorf("a refused up wrote .actant: %v", err)
	}
}

// TestProxyLease: `proxy --lease` without up answers initialize with the
// reason; with up, two editors get sessions on the one warm process, each
// in its own cwd, and the warm agent is not started again.
func TestProxyLease(t *testing.T) {
	root, home := upWorkspace(t)
	c := startProxy(t, root, home, "api", "--lease")
	m := c.call(0, acp.AgentMethodInitialize, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	if !strings.Contains(string(m["error"]), "no actctl up is running for this workspace") {
		t.Fatalf("initialize without up: %s", m)
	}
	c.in.Close()
	if err := c.cmd.Wait(); err == nil {
		t.Error("proxy --lease exited 0 without up")
	}

	p := startUp(t, root, home)
	var pid int
	for range 2 {
		if m := p.waitLine(`up: (api|triage): process:start pid (\d+)`); m[1] == "api" {
			pid, _ = strconv.Atoi(m[2])
		}
	}
	for i, cwd := range []string{t.TempDir(), t.TempDir()} {
		e := startProxy(t, root, home, "api", "--lease")
		e.initialize()
		m := e.call(1, acp.AgentMethodSessionNew, acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
		var s acp.NewSessionResponse
		if err := json.Unmarshal(m["result"], &s); err != nil || !strings.HasPrefix(string(s.SessionId), "sess-"+strconv.Itoa(pid)+"-") {
			t.Fatalf("editor %d: session/new on pid %d: %s", i, pid, m)
		}
		e.close()
	}
	if st := upStatus(t, root, home)["api"].Process; st == nil || st.PID != pid || st.Up.Restarts != 0 {
		t.Errorf("api after two leases: %+v", st)
	}
	// A stopped agent is refused with the reason.
	actctl(t, root, home, "stop", "api")
	e := startProxy(t, root, home, "api", "--lease")
	if m := e.call(0, acp.AgentMethodInitialize, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); !strings.Contains(string(m["error"]), "agent api is stopped") {
		t.Errorf("initialize on a stopped agent: %s", m)
	}
}

// killProcess kills pid as a crash would (SIGKILL).
func killProcess(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// TestUpNamedAppliesOnlyThose: up AGENT... materializes, as it runs, only
// the agents named (a pod of deploy: kubernetes holds the resident ones;
// the cron-shaped employees live in their own jobs); apply then adds the
// rest.
func TestUpNamedAppliesOnlyThose(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home, "api")
	p.started("api")
	p.stop()
	triage := filepath.Join(home, "instances", "triage")
	if _, err := os.Stat(filepath.Join(home, "instances", "api")); err != nil {
		t.Fatalf("api not materialized: %v", err)
	}
	if _, err := os.Stat(triage); !os.IsNotExist(err) {
		t.Fatalf("up api materialized triage: %v", err)
	}
	if r := actctl(t, root, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %+v", r)
	}
	if _, err := os.Stat(triage); err != nil {
		t.Fatalf("apply after up api: %v", err)
	}
}
