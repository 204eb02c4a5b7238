package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUpDeepWorkspace: a workspace too deep for a socket in .actant/run
// runs up all the same, its socket in a private directory of
// $XDG_RUNTIME_DIR (docs/runtime.md, "Control socket"), where status and
// prompt find it; SIGTERM removes it.
func TestUpDeepWorkspace(t *testing.T) {
	rundir, err := os.MkdirTemp("", "rt") // t.TempDir's can be too long itself
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rundir) })
	t.Setenv("XDG_RUNTIME_DIR", rundir) // up and the commands inherit it
	root := filepath.Join(t.TempDir(), strings.Repeat("deep", 30))
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, "package actant\n"+scriptedBackend(t, "")+`
templates: svc: {backend: "scripted", archetype: "service"}
agents: api: template: "svc"
`)
	p := startUp(t, root, home)
	sock := p.waitLine(`control socket (\S+);`)[1]
	if filepath.Dir(filepath.Dir(sock)) != rundir || !strings.HasSuffix(sock, ".sock") {
		t.Fatalf("control socket %s, want one in %s", sock, rundir)
	}
	pid := p.started("api")
	if st := upStatus(t, root, home)["api"].Process; st == nil || st.Status != "running" || st.PID != pid {
		t.Fatalf("status of api: %+v", st)
	}
	if r := actctl(t, root, home, "prompt", "api", "-p", "hello"); r.Code != 0 || !strings.Contains(r.Stdout, "Hello from the test agent") {
		t.Fatalf("prompt api: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up after SIGTERM: %v\n%s", err, p.stderr())
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
	if r := actctl(t, root, home, "prompt", "api", "-p", "x"); r.Code != 1 || !strings.Contains(r.Stderr, upNoUp) {
		t.Errorf("prompt without up: %d\n%s", r.Code, r.Stderr)
	}
}

// TestUpLogsOfDotLogAgent: in a project workspace, agent x's proxy log is
// .actant/logs/x.log; agent x.log's tasks are logged all the same, apart
// from it, and `actctl logs x.log` shows them.
func TestUpLogsOfDotLogAgent(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, "package actant\n"+scriptedBackend(t, "")+`
archetypes: service: {workspace: "project", workDirConflict: "append", interactionModes: ["start", "run", "proxy"]}
templates: svc: {backend: "scripted", archetype: "service"}
agents: x: template: "svc"
agents: "x.log": template: "svc"
`)
	if r := actctl(t, root, home, "run", "x", "-p", "hello"); r.Code != 0 {
		t.Fatalf("run x: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	proxyLog := filepath.Join(root, ".actant", "logs", "x.log")
	before, err := os.ReadFile(proxyLog)
	if err != nil {
		t.Fatalf("x's proxy log: %v", err)
	}
	p := startUp(t, root, home)
	started := map[string]bool{}
	for range 2 { // in either order
		started[p.waitLine(`up: (x|x\.log): process:start pid \d+`)[1]] = true
	}
	if !started["x"] || !started["x.log"] {
		t.Fatalf("started %v, want x and x.log", started)
	}
	if r := actctl(t, root, home, "prompt", "x.log", "-p", "hello"); r.Code != 0 {
		t.Fatalf("prompt x.log: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if strings.Contains(p.stderr(), "not logged") {
		t.Errorf("a task was not logged:\n%s", p.stderr())
	}
	if r := actctl(t, root, home, "logs", "x.log"); r.Code != 0 || !strings.Contains(r.Stdout, "hello") {
		t.Fatalf("logs x.log: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if after, err := os.ReadFile(proxyLog); err != nil || !strings.HasPrefix(string(after), string(before)) {
		t.Errorf("x's proxy log changed: %v\n%s", err, after)
	}
}
