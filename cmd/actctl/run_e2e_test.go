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
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/acptestagent"
	"github.com/actctl/actctl/internal/testutil"
	"github.com/actctl/actctl/internal/userkey"
	"github.com/actctl/actctl/launch"
)

// runWorkspace declares agents on a backend whose acp command is this test
// binary acting as the scripted ACP agent (internal/acptestagent), one per
// permission preset, plus an instance agent and a missing backend.
func runWorkspace(t testing.TB) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
backends: missing: {
	modes: ["acp"]
	acp: command: "actctl-no-such-backend"
	install: "npm install -g no-such-backend"
	files: instructions: ["MISSING.md"]
}
mcpServers: gh: {command: "gh-mcp", env: TOKEN: "x"}
mcpServers: web: url: "https://example.invalid/mcp"
templates: {
	std: {backend: "scripted", mcpServers: ["gh", "web"]}
	ro: {backend: "scripted", permissions: "readonly"}
	all: {backend: "scripted", permissions: "permissive"}
	edits: {backend: "scripted", permissions: {defaultMode: "acceptEdits", allow: ["Read"]}}
	inst: {backend: "scripted", archetype: "repo"}
	broken: {backend: "missing"}
	svc: {backend: "scripted", archetype: "service"}
	once: {backend: "scripted", archetype: "repo", workspacePolicy: "ephemeral"}
	emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check"}}
}
agents: {
	helper: template: "std"
	reader: template: "ro"
	boss: template: "all"
	editor: template: "edits"
	builder: template: "inst"
	ghost: {template: "broken", workDir: "ghost"}
	server: template: "svc"
	oneshot: template: "once"
	worker: template: "emp"
}
`)
	if err := os.MkdirAll(filepath.Join(root, "ghost"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, home
}

// scriptedBackend is the CUE of backend "scripted", whose acp command is
// this test binary acting as the scripted ACP agent (internal/acptestagent),
// with env, if not empty, added to its environment (CUE fields).
func scriptedBackend(t testing.TB, env string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if env != "" {
		env = ", " + env
	}
	return `backends: scripted: {
	modes: ["acp"]
	acp: {command: "` + self + `", env: {` + acptestagent.Var + `: "1"` + env + `}}
	files: instructions: ["SCRIPTED.md"]
}`
}

// writeConfigTB writes dir/actant.cue (for tests and benchmarks).
func writeConfigTB(t testing.TB, dir, cfg string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "actant.cue"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunExitCodes: every exit code of run, each preset and flag through
// the permission policy, usage errors, a crash and a missing backend.
func TestRunExitCodes(t *testing.T) {
	root, home := runWorkspace(t)
	for _, tc := range []struct {
		args      []string
		code      int
		out, diag string
	}{
		{[]string{"helper", "-p", "hello"}, 0, "Hello from the test agent.\n", ""},
		{[]string{"helper", "-p", "refuse"}, 3, "", "the agent refused"},
		{[]string{"helper", "-p", "maxtokens"}, 4, "", "max_tokens"},
		{[]string{"helper", "-p", "maxturns"}, 4, "", "max_turn_requests"},
		// standard: edits yes, execute no
		{[]string{"helper", "-p", "perm edit"}, 0, "permission: yes", `permission allowed: Tool of kind edit (edit), option "yes"`},
		{[]string{"helper", "-p", "perm execute"}, 5, "permission: no", "every permission request (1) was denied"},
		// readonly: reads only
		{[]string{"reader", "-p", "perm read"}, 0, "permission: yes", ""},
		{[]string{"reader", "-p", "perm edit"}, 5, "permission: no", `permission denied: Tool of kind edit (edit), option "no"`},
		// permissive, explicit defaultMode acceptEdits
		{[]string{"boss", "-p", "perm execute"}, 0, "permission: yes", ""},
		{[]string{"editor", "-p", "perm delete"}, 0, "permission: yes", ""},
		{[]string{"editor", "-p", "perm execute"}, 5, "permission: no", ""},
		// flags override the preset
		{[]string{"helper", "--deny-all", "-p", "perm read"}, 5, "permission: no", ""},
		{[]string{"helper", "--approve-all", "-p", "perm execute"}, 0, "permission: yes", ""},
		{[]string{"boss", "--approve-reads", "-p", "perm edit"}, 5, "permission: no", ""},
		// no reject option offered: answered cancelled, never an invented id
		{[]string{"helper", "--deny-all", "-p", "perm-only-allow edit"}, 5, "permission: cancelled", ""},
		{[]string{"helper", "-p", "crash"}, 1, "about to crash", "test agent: crashing on purpose"},
		{[]string{"ghost", "-p", "hello"}, 1, "", `backend "actctl-no-such-backend" could not be started`},
		{[]string{"helper", "-p", "stream", "--timeout", "50ms"}, 124, "", "timed out after 50ms"},
		{[]string{"helper", "--approve-all", "--deny-all", "-p", "x"}, 2, "", "exclude each other"},
		{[]string{"helper", "-p", "x", "--prompt-file", "f"}, 2, "", "exclude each other"},
		{[]string{"helper", "-p", " "}, 2, "", "the prompt is empty"},
		{[]string{}, 2, "", "want AGENT"},
		{[]string{"nobody", "-p", "x"}, 1, "", "nobody"},
	} {
		r := actctl(t, root, home, append([]string{"run"}, tc.args...)...)
		name := strings.Join(tc.args, " ")
		if r.Code != tc.code || !strings.Contains(r.Stdout, tc.out) || !strings.Contains(r.Stderr, tc.diag) {
			t.Errorf("run %s: exit %d (want %d)\nstdout: %q (want %q)\nstderr: %s(want %q)", name, r.Code, tc.code, r.Stdout, tc.out, r.Stderr, tc.diag)
		}
	}
	r := actctl(t, root, home, "run", "ghost", "-p", "hello")
	if !strings.Contains(r.Stderr, "npm install -g no-such-backend") {
		t.Errorf("missing backend: no install hint:\n%s", r.Stderr)
	}
}

// TestRunJSON: -o json prints every ACP message received, one object a
// line, then the summary object.
func TestRunJSON(t *testing.T) {
	root, home := runWorkspace(t)
	r := actctl(t, root, home, "-o", "json", "run", "helper", "-p", "perm edit")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
	var methods []string
	for _, l := range lines[:len(lines)-1] {
		var m struct {
			JSONRPC string `json:"jsonrpc"`
			Method  string `json:"method"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.JSONRPC != "2.0" {
			t.Fatalf("not a JSON-RPC message: %q (%v)", l, err)
		}
		methods = append(methods, m.Method)
	}
	if got := strings.Join(methods, ","); !strings.Contains(got, "session/update,session/request_permission") {
		t.Errorf("messages: %s", got)
	}
	var sum struct {
		Type, StopReason, SessionID string
		DurationMs                  *int64
		ExitCode                    int
		Permissions                 struct{ Allowed, Denied int }
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Type != "summary" || sum.StopReason != "end_turn" || !strings.HasPrefix(sum.SessionID, "sess-") || sum.DurationMs == nil ||
		sum.Permissions.Allowed != 1 || sum.Permissions.Denied != 0 || sum.ExitCode != 0 {
		t.Errorf("summary %+v from %s", sum, lines[len(lines)-1])
	}
	r = actctl(t, root, home, "-o", "json", "run", "reader", "-p", "perm edit")
	last := r.Stdout[strings.LastIndex(strings.TrimSuffix(r.Stdout, "\n"), "\n")+1:]
	if r.Code != 5 || !strings.Contains(last, `"permissions":{"allowed":0,"denied":1`) || !strings.Contains(last, `"exitCode":5`) {
		t.Errorf("denied: exit %d, summary %s", r.Code, last)
	}
}

// TestRunSessionCwdAndMCP: the session cwd follows the archetype (tool:
// the client's project, --cwd; repo: the agent's workspace), and the
// template's MCP servers arrive in session/new.
func TestRunSessionCwdAndMCP(t *testing.T) {
	root, home := runWorkspace(t)
	proj := t.TempDir()
	r := actctl(t, root, home, "run", "helper", "--cwd", proj, "-p", "session")
	if r.Code != 0 || !strings.Contains(r.Stdout, "cwd "+proj+" ") {
		t.Errorf("tool agent: session cwd not the client's project %s:\n%s%s", proj, r.Stdout, r.Stderr)
	}
	if want := "mcp [stdio:gh:gh-mcp,http:web:https://example.invalid/mcp]"; !strings.Contains(r.Stdout, want) {
		t.Errorf("mcp servers: %q, want %q", r.Stdout, want)
	}
	r = actctl(t, root, home, "run", "builder", "--cwd", proj, "-p", "session")
	if want := "cwd " + filepath.Join(home, "instances", "builder") + " "; r.Code != 0 || !strings.Contains(r.Stdout, want) {
		t.Errorf("repo agent: %q, want %q\n%s", r.Stdout, want, r.Stderr)
	}
	// The backend's stderr is kept in the agent's log, as proxy keeps it.
	if log := read(t, filepath.Join(home, "instances", "builder", "logs", "proxy.log")); !strings.Contains(log, "test agent: session/new cwd="+filepath.Join(home, "instances", "builder")) {
		t.Errorf("backend stderr not logged:\n%s", log)
	}
}

// TestRunFileSystem: the agent reads and writes the client's project
// through actctl; a path outside it and the workspace is refused; a
// permissive agent runs a terminal.
func TestRunFileSystem(t *testing.T) {
	root, home := runWorkspace(t)
	proj, outside := t.TempDir(), t.TempDir()
	r := actctl(t, root, home, "run", "helper", "--cwd", proj, "--approve-all", "-p", "write "+filepath.Join(proj, "notes.txt")+" from the agent")
	if b, _ := os.ReadFile(filepath.Join(proj, "notes.txt")); r.Code != 0 || string(b) != "from the agent" {
		t.Errorf("write inside: exit %d, file %q\n%s", r.Code, b, r.Stdout)
	}
	r = actctl(t, root, home, "run", "helper", "--cwd", proj, "-p", "write "+filepath.Join(outside, "x.txt")+" no")
	if !strings.Contains(r.Stdout, "outside the session's directories") {
		t.Errorf("write outside not refused: %s", r.Stdout)
	}
	assertNotWritten(t, outside, "a write outside the roots", "x.txt")
	r = actctl(t, root, home, "run", "boss", "--cwd", proj, "-p", "term echo from a terminal")
	if !strings.Contains(r.Stdout, "terminal: exit 0 truncated false: from a terminal") || !strings.Contains(r.Stderr, "terminal term-1") {
		t.Errorf("terminal: %s%s", r.Stdout, r.Stderr)
	}
}

// snapshot lists every path under dirs with its size (directories too),
// except the workspace's lock file, which any apply creates and which stays.
func snapshot(t *testing.T, dirs ...string) string {
	t.Helper()
	var b strings.Builder
	for _, d := range dirs {
		filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
			// The user's key (internal/userkey), made by the first
			// write of a record, is the user's, not the run's.
			if err == nil && p != filepath.Join(dirs[0], ".actant") && p != filepath.Join(dirs[0], ".actant", "lock") && p != filepath.Join(d, userkey.File) {
				b.WriteString(p + " " + strconv.FormatInt(fi.Size(), 10) + "\n")
			}
			return nil
		})
	}
	return b.String()
}

// TestRunEphemeralTemplate: run -t leaves nothing behind in the workspace,
// the client's project or ACTANT_HOME; --keep keeps the agent.
func TestRunEphemeralTemplate(t *testing.T) {
	root, home := runWorkspace(t)
	proj := t.TempDir()
	writeFiles(t, proj, map[string]string{"SCRIPTED.md": "# the user's own\n"})
	os.MkdirAll(home, 0o755)
	for _, tmpl := range []string{"std", "inst"} {
		before := snapshot(t, root, home, proj)
		r := actctl(t, root, home, "run", "-t", tmpl, "--cwd", proj, "-p", "session")
		if r.Code != 0 || !strings.Contains(r.Stdout, "turn 1") {
			t.Fatalf("run -t %s: exit %d\n%s%s", tmpl, r.Code, r.Stdout, r.Stderr)
		}
		if after := snapshot(t, root, home, proj); after != before {
			t.Errorf("run -t %s left something behind:\nbefore:\n%safter:\n%s", tmpl, before, after)
		}
	}
	r := actctl(t, root, home, "run", "-t", "inst", "kept", "--keep", "-p", "hello")
	if r.Code != 0 {
		t.Fatalf("--keep: exit %d\n%s", r.Code, r.Stderr)
	}
	if r = actctl(t, root, home, "-o", "json", "get", "agents"); !strings.Contains(r.Stdout, `"kept"`) {
		t.Errorf("--keep: agent not kept:\n%s", r.Stdout)
	}
	if _, err := os.Stat(filepath.Join(home, "instances", "kept")); err != nil {
		t.Errorf("--keep: instance removed: %v", err)
	}
	if r = actctl(t, root, home, "run", "-t", "std", "helper", "-p", "x"); r.Code != 2 || !strings.Contains(r.Stderr, "is declared") {
		t.Errorf("-t with a declared name: exit %d %s", r.Code, r.Stderr)
	}
}

// TestChatOneSession: two lines on stdin are two turns of one session.
func TestChatOneSession(t *testing.T) {
	root, home := runWorkspace(t)
	cmd := exec.Command(actctlBin, "chat", "helper")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
	cmd.Stdin = strings.NewReader("session\n\nsession\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chat: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`session (\S+) cwd \S+ turn (\d)`).FindAllStringSubmatch(string(out), -1)
	if len(m) != 2 || m[0][1] != m[1][1] || m[0][2] != "1" || m[1][2] != "2" {
		t.Errorf("want turns 1 and 2 of one session:\n%s", out)
	}
}

// startRun starts `actctl run` with a streaming prompt and returns the
// command and the pids the agent reports once it streams.
func startRun(t *testing.T, root, home string, args ...string) (*exec.Cmd, *strings.Builder, int, int) {
	t.Helper()
	cmd := exec.Command(actctlBin, append([]string{"run"}, args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	re := regexp.MustCompile(`streaming pid=(\d+) child=(\d+)`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[2])
			go func() { // drain
				for sc.Scan() {
				}
			}()
			return cmd, stderr, a, b
		}
	}
	cmd.Wait()
	t.Fatalf("no streaming line; stderr:\n%s", stderr)
	return nil, nil, 0, 0
}

// exited reports whether pid is gone (a zombie awaiting its reaper counts).
func exited(pid int) bool {
	if !launch.PIDAlive(pid) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return err != nil || (i > 0 && i+2 < len(s) && s[i+2] == 'Z')
}

// requireExited fails the test for each of pids still running once a
// bounded poll gives up, and kills it. The poll is for init's asynchronous
// reaping of processes that were already killed, not a timed wait.
func requireExited(t *testing.T, what string, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range pids {
		for !exited(p) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if !exited(p) {
			t.Errorf("%s: process %d is still running", what, p)
			killPid(p)
		}
	}
}

// killPid kills a process a failed test left behind.
func killPid(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// TestRunSIGINT: SIGINT during a streaming turn sends session/cancel and
// exits 130; an agent ignoring the cancel is killed after the grace
// period. Neither the agent nor its child outlives actctl.
func TestRunSIGINT(t *testing.T) {
	root, home := runWorkspace(t)
	for _, prompt := range []string{"stream", "stubborn"} {
		cmd, stderr, pid, child := startRun(t, root, home, "helper", "--grace", "100ms", "-p", prompt)
		cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
			t.Errorf("%s: %v, want exit 130\n%s", prompt, err, stderr)
		}
		if !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%s: stderr %s", prompt, stderr)
		}
		// The agent and its child are gone once actctl exited.
		requireExited(t, prompt+": after actctl exited", pid, child)
	}
}

// TestRunSDKExampleAgent: a full turn with the ACP SDK's example agent,
// its edit permission allowed by the standard preset, rejected by
// --deny-all (exit 5).
func TestRunSDKExampleAgent(t *testing.T) {
	bin := testutil.SDKExamples(t)
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, root, map[string]string{"actant.cue": `package actant
backends: sdk: {
	modes: ["acp"]
	acp: command: "` + filepath.Join(bin, "agent") + `"
	files: instructions: ["AGENTS.md"]
}
templates: t: backend: "sdk"
archetypes: tool: interactionModes: ["run", "proxy"]
agents: helper: template: "t"
`})
	r := actctl(t, root, home, "run", "helper", "-p", "change the config")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Perfect! I've successfully updated the configuration.") ||
		!strings.Contains(r.Stderr, "permission allowed: Modifying critical configuration file (edit)") {
		t.Errorf("allowed: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	r = actctl(t, root, home, "run", "helper", "--deny-all", "-p", "change the config")
	if r.Code != 5 || !strings.Contains(r.Stdout, "I understand you prefer not to make that change.") {
		t.Errorf("denied: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestRunTerminalNoOrphans: processes a terminal of a permissive agent
// leaves running, in its group or escaped with setsid, do not outlive the
// run.
func TestRunTerminalNoOrphans(t *testing.T) {
	root, home := runWorkspace(t)
	r := actctl(t, root, home, "run", "boss", "-p", "term sleep 1000 & echo bg=$!; setsid sleep 1001 & echo sid=$!")
	m := regexp.MustCompile(`bg=(\d+)\s+sid=(\d+)`).FindStringSubmatch(r.Stdout)
	if r.Code != 0 || m == nil {
		t.Fatalf("exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	bg, _ := strconv.Atoi(m[1])
	sid, _ := strconv.Atoi(m[2])
	requireExited(t, "terminal processes after the run", bg, sid)
}

// TestRunPromptSources: the prompt from stdin, from --prompt-file, and
// from --prompt-file - (stdin).
func TestRunPromptSources(t *testing.T) {
	root, home := runWorkspace(t)
	writeFiles(t, root, map[string]string{"prompt.txt": "hello\n"})
	for _, tc := range []struct {
		args  []string
		stdin string
	}{
		{[]string{"run", "helper"}, "hello\n"},
		{[]string{"run", "helper", "--prompt-file", "prompt.txt"}, ""},
		{[]string{"run", "helper", "--prompt-file", "-"}, "hello"},
	} {
		cmd := exec.Command(actctlBin, tc.args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
		cmd.Stdin = strings.NewReader(tc.stdin)
		out, err := cmd.Output()
		if err != nil || string(out) != "Hello from the test agent.\n" {
			t.Errorf("%v: %v %q", tc.args, err, out)
		}
	}
	r := actctl(t, root, home, "run", "helper", "--prompt-file", "nope.txt")
	if r.Code != 1 || !strings.Contains(r.Stderr, "nope.txt") {
		t.Errorf("missing prompt file: exit %d %s", r.Code, r.Stderr)
	}
}

// TestRunBadInputWritesNothing: usage errors, an unknown agent or
// template, and a missing prompt file are reported before anything is
// materialized.
func TestRunBadInputWritesNothing(t *testing.T) {
	root, home := runWorkspace(t)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", "helper", "--approve-all", "--approve-reads", "-p", "x"}, 2, "exclude each other"},
		{[]string{"run", "helper", "-p", "x", "--prompt-file", "f"}, 2, "exclude each other"},
		{[]string{"run", "helper", "-p", ""}, 2, "the prompt is empty"},
		{[]string{"run", "a", "b", "-p", "x"}, 2, "want AGENT"},
		{[]string{"run", "helper", "--prompt-file", "nope.txt"}, 1, "nope.txt"},
		{[]string{"run", "nobody", "-p", "x"}, 1, `"nobody"`},
		{[]string{"run", "-t", "stdd", "-p", "x"}, 1, `run -t: unknown template "stdd" (did you mean "std"?)`},
		{[]string{"run", "helper", "--timeout", "soon", "-p", "x"}, 2, "soon"},
		{[]string{"chat", "helper", "--deny-all", "--approve-all"}, 2, "exclude each other"},
		{[]string{"chat"}, 2, "want AGENT"},
		{[]string{"run", "server", "-p", "x"}, 1, `agent "server" does not offer run: its archetype "service" allows start, proxy`},
		{[]string{"chat", "worker"}, 1, `agent "worker" does not offer chat: its archetype "employee" allows start, run, proxy`},
		{[]string{"run", "-t", "svc", "-p", "x"}, 1, `does not offer run`},
	} {
		r := actctl(t, root, home, tc.args...)
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.msg) {
			t.Errorf("%v: exit %d (want %d), stderr %q (want %q)", tc.args, r.Code, tc.code, r.Stderr, tc.msg)
		}
	}
	if got := listFiles(t, root); len(got) != 1 || got[0] != "actant.cue" {
		t.Errorf("bad input wrote files: %v", got)
	}
	if _, err := os.Stat(home); err == nil {
		t.Errorf("bad input created ACTANT_HOME")
	}
}

// TestChatJSON: from a pipe the preset answers permissions; -o json gives
// a summary after each turn; the exit code is the last turn's.
func TestChatJSON(t *testing.T) {
	root, home := runWorkspace(t)
	cmd := exec.Command(actctlBin, "-o", "json", "chat", "helper")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
	cmd.Stdin = strings.NewReader("perm edit\nperm execute\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 5 {
		t.Fatalf("chat: %v, want exit 5\n%s", err, out)
	}
	if n := strings.Count(stderr.String(), "was denied"); n != 1 {
		t.Errorf("the denial is reported %d times, want once:\n%s", n, stderr.String())
	}
	var sums []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		if m["type"] == "summary" {
			sums = append(sums, l)
		}
	}
	if len(sums) != 2 || !strings.Contains(sums[0], `"allowed":1,"denied":0`) || !strings.Contains(sums[0], `"exitCode":0`) ||
		!strings.Contains(sums[1], `"allowed":0,"denied":1`) || !strings.Contains(sums[1], `"exitCode":5`) {
		t.Errorf("summaries:\n%s", strings.Join(sums, "\n"))
	}
}

// TestRunBusyAndEphemeralPolicy: while one run streams, a second run of
// the same agent gets an ephemeral copy, removed afterwards; a template
// with workspacePolicy "ephemeral" always runs as such a copy, and its
// instance is gone after the run.
func TestRunBusyAndEphemeralPolicy(t *testing.T) {
	root, home := runWorkspace(t)
	cmd, stderr, _, _ := startRun(t, root, home, "builder", "-p", "stream")
	r := actctl(t, root, home, "run", "builder", "-p", "session")
	if r.Code != 0 || !regexp.MustCompile(`ephemeral copy builder-eph-[0-9a-f]{8}`).MatchString(r.Stderr) ||
		!regexp.MustCompile(`cwd \S+/instances/builder-eph-[0-9a-f]{8} `).MatchString(r.Stdout) {
		t.Errorf("second run of a busy agent: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err == nil {
		t.Errorf("first run: no error after SIGINT\n%s", stderr)
	}
	r = actctl(t, root, home, "run", "oneshot", "-p", "session")
	if r.Code != 0 || !strings.Contains(r.Stdout, "/instances/oneshot-eph-") {
		t.Errorf("ephemeral policy: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	ents, _ := os.ReadDir(filepath.Join(home, "instances"))
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "builder" {
		t.Errorf("instances left: %v, want only builder", names)
	}
}
