package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
