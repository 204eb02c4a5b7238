package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// agentWorkspace is a config with a tool agent whose backend's open and
// acp commands are small shell scripts, and an employee agent.
func agentWorkspace(t *testing.T) (dir, home string) {
	t.Helper()
	dir, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	bin := t.TempDir()
	writeFiles(t, bin, map[string]string{"opener": "#!/bin/sh\npwd > \"$OUT\"\necho \"$@\" >> \"$OUT\"\n"})
	os.Chmod(filepath.Join(bin, "opener"), 0o755)
	writeFiles(t, dir, map[string]string{"actant.cue": `package actant
backends: fake: {
	modes: ["acp", "open"]
	acp: {command: "fake-acp", args: ["--stdio"], env: FAKE: "1"}
	open: {command: "` + filepath.Join(bin, "opener") + `", args: ["--ui"], env: OUT: "` + filepath.Join(bin, "out") + `"}
	files: instructions: ["FAKE.md"]
}
templates: tool: backend: "fake"
templates: emp: {backend: "fake", archetype: "employee", schedule: heartbeat: {interval: "5m", prompt: "check"}}
archetypes: tool: interactionModes: ["open", "start", "proxy"]
agents: helper: {template: "tool", workDir: "proj"}
agents: worker: template: "emp"
`})
	os.MkdirAll(filepath.Join(dir, "proj"), 0o755)
	return dir, home
}

func TestResolve(t *testing.T) {
	dir, home := agentWorkspace(t)
	r := actctl(t, dir, home, "-o", "json", "resolve", "helper")
	if r.Code != 0 {
		t.Fatalf("resolve: %s", r.Stderr)
	}
	var l struct {
		Command, Cwd, Workspace, SessionCwd string
		Args                                []string
		Env                                 map[string]string
	}
	if err := json.Unmarshal([]byte(r.Stdout), &l); err != nil {
		t.Fatal(err)
	}
	if l.Command != "fake-acp" || len(l.Args) != 1 || l.Env["FAKE"] != "1" || l.Cwd != filepath.Join(dir, "proj") || l.SessionCwd != "client" {
		t.Errorf("resolve helper = %+v", l)
	}
	r = actctl(t, dir, home, "-o", "json", "resolve", "worker")
	if r.Code != 0 || !strings.Contains(r.Stdout, filepath.Join(home, "instances", "worker")) {
		t.Errorf("resolve worker: %s %s", r.Stdout, r.Stderr)
	}
	r = actctl(t, dir, home, "resolve", "helpr")
	if r.Code != 1 || !strings.Contains(r.Stderr, `unknown agent "helpr" (did you mean "helper"?)`) {
		t.Errorf("unknown agent: %d %s", r.Code, r.Stderr)
	}
}

func TestOpen(t *testing.T) {
	dir, home := agentWorkspace(t)
	r := actctl(t, dir, home, "open", "helper")
	if r.Code != 0 {
		t.Fatalf("open: %s", r.Stderr)
	}
	out := filepath.Join(filepath.Dir(strings.TrimSuffix(strings.Split(string(mustRead(t, filepath.Join(dir, "actant.cue"))), "OUT: \"")[1], "\"")), "out")
	out = strings.SplitN(out, "\"", 2)[0]
	var got []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got, _ = os.ReadFile(out); strings.Count(string(got), "\n") >= 2 {
			break
		}
	}
	if want := filepath.Join(dir, "proj") + "\n--ui\n"; string(got) != want {
		t.Errorf("open ran with %q, want %q", got, want)
	}
	r = actctl(t, dir, home, "open", "worker")
	if r.Code != 1 || !strings.Contains(r.Stderr, "does not exist; run `actctl apply worker` first") {
		t.Errorf("open before apply: %d %s", r.Code, r.Stderr)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAttachDetach(t *testing.T) {
	dir, home := agentWorkspace(t)
	rec := filepath.Join(dir, "proj", ".actant", "agents", "helper.json")
	r := actctl(t, dir, home, "attach", "helper", "--pid", "999999999")
	if r.Code != 1 || !strings.Contains(r.Stderr, "no process with pid 999999999") {
		t.Fatalf("attach dead pid: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(rec); err == nil {
		t.Fatal("a failed attach wrote the record")
	}
	pid := os.Getpid()
	if r := actctl(t, dir, home, "attach", "helper", "--pid", itoa(pid)); r.Code != 0 {
		t.Fatalf("attach: %s", r.Stderr)
	}
	var got map[string]any
	json.Unmarshal(mustRead(t, rec), &got)
	if got["processOwnership"] != "external" || got["pid"] != float64(pid) || got["status"] != "running" || got["createdAt"] == nil {
		t.Errorf("record after attach = %v", got)
	}
	if r := actctl(t, dir, home, "detach", "helper"); r.Code != 0 {
		t.Fatalf("detach: %s", r.Stderr)
	}
	got = nil
	json.Unmarshal(mustRead(t, rec), &got)
	if got["pid"] != nil || got["status"] != "stopped" {
		t.Errorf("record after detach = %v", got)
	}
	if r := actctl(t, dir, home, "detach", "helper", "--cleanup"); r.Code != 0 {
		t.Fatalf("detach --cleanup: %s", r.Stderr)
	}
	if b := mustRead(t, rec); strings.Join(strings.Fields(string(b)), "") != "{}" {
		t.Errorf("record after cleanup = %s", b)
	}
}

func TestZedWrite(t *testing.T) {
	dir, home := agentWorkspace(t)
	settings := filepath.Join(t.TempDir(), "settings.json")
	orig := "// Zed settings\n{\n  \"theme\": \"One Dark\", // mine\n  \"agent_servers\": {\"other\": {\"command\": \"x\"}},\n}\n"
	writeFiles(t, filepath.Dir(settings), map[string]string{"settings.json": orig})
	r := actctl(t, dir, home, "zed", "--write", "--settings", settings)
	if r.Code != 0 {
		t.Fatalf("zed --write: %s", r.Stderr)
	}
	b := string(mustRead(t, settings))
	if !strings.HasPrefix(b, "// Zed settings\n{\n  \"theme\": \"One Dark\", // mine\n") || !strings.Contains(b, `"other": {"command": "x"}`) {
		t.Errorf("user settings not kept:\n%s", b)
	}
	for _, w := range []string{`"helper"`, `"worker"`, `"custom"`, `"proxy"`, dir} {
		if !strings.Contains(b, w) {
			t.Errorf("settings lack %s:\n%s", w, b)
		}
	}
	again := actctl(t, dir, home, "zed", "--write", "--settings", settings)
	if again.Code != 0 || string(mustRead(t, settings)) != b {
		t.Errorf("second zed --write changed the file")
	}
	printed := actctl(t, dir, home, "zed")
	var out struct {
		AgentServers map[string]zedEntry `json:"agent_servers"`
	}
	if err := json.Unmarshal([]byte(printed.Stdout), &out); err != nil {
		t.Fatal(err)
	}
	e := out.AgentServers["helper"]
	if e.Type != "custom" || !filepath.IsAbs(e.Command) || strings.Join(e.Args, " ") != "proxy helper -C "+dir+" --home "+home {
		t.Errorf("entry = %+v", e)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
