//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMCPSubscribeE2E: an employee subscribes through `actctl mcp` to
// another agent's task:done and is prompted with the filled prompt;
// `get hooks` lists the subscription with its origin; a subscription to
// its own task:done runs 8 prompts from one event and is then dropped
// with one warning; unsubscribe removes it, and a restart of the
// employee removes the rest.
func TestMCPSubscribeE2E(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	promptLog := filepath.Join(root, "prompts.log")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, `ACTCTL_TEST_PROMPT_LOG: "`+promptLog+`"`)+`
templates: emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "24h", prompt: "rest"}}
agents: worker: template: "emp"
agents: other: template: "emp"
`)
	p := startUp(t, root, home)
	for seen := map[string]bool{}; len(seen) < 2; {
		seen[p.waitLine(`up: (worker|other): process:start`)[1]] = true
	}
	cs := mcpConnect(t, root, home, "worker")
	var sub struct{ ID, Agent, Event string }
	if text, isErr := callTool(t, cs, "subscribe", map[string]any{"event": "task:done", "agents": []string{"other"},
		"prompt": "other finished task {{event.data.task}}"}, &sub); isErr || sub.ID == "" || sub.Agent != "worker" {
		t.Fatalf("subscribe: %s %+v", text, sub)
	}
	p.waitLine(`up: worker: subscribed to task:done \(` + sub.ID + `\)`)
	r := actctl(t, root, home, "get", "hooks")
	if want := sub.ID + "  task:done  other   prompt worker  agent worker (runtime)"; r.Code != 0 || !strings.Contains(r.Stdout, "worker/"+want) {
		t.Errorf("get hooks:\n%s%s\nwant a row worker/%s", r.Stdout, r.Stderr, want)
	}
	r = actctl(t, root, home, "get", "hooks", "-o", "json")
	var hs []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &hs); err != nil || len(hs) != 1 || hs[0]["origin"] != "agent worker (runtime)" || hs[0]["name"] != "worker/"+sub.ID {
		t.Errorf("get hooks -o json: %v %s", err, r.Stdout)
	}
	logs, stdout, stderr := startLogs(t, root, home, "worker", "-f")
	if r := actctl(t, root, home, "prompt", "other", "-p", "hello"); r.Code != 0 {
		t.Fatalf("prompt other: %s", r.Stderr)
	}
	if !stdout.WaitFor("other finished task 1") {
		t.Fatalf("worker was not prompted:\n%s\n%s", stdout, p.stderr())
	}
	interrupt(t, logs, stderr)

	var self struct{ ID string }
	if text, isErr := callTool(t, cs, "subscribe", map[string]any{"event": "task:done", "agents": []string{"worker"}, "prompt": "again"}, &self); isErr {
		t.Fatalf("subscribe to its own task:done: %s", text)
	}
	if r := actctl(t, root, home, "prompt", "worker", "-p", "go"); r.Code != 0 {
		t.Fatalf("prompt worker: %s", r.Stderr)
	}
	p.waitLine(`warning: hook loop: a prompt to worker caused through 9 hooks \(worker/` + self.ID + `( -> worker/` + self.ID + `){8}\) was dropped: more than 8`)
	if text, isErr := callTool(t, cs, "unsubscribe", map[string]any{"id": self.ID}, nil); isErr {
		t.Fatalf("unsubscribe: %s", text)
	}
	if text, isErr := callTool(t, cs, "unsubscribe", map[string]any{"id": self.ID}, nil); !isErr || !strings.Contains(text, "no such subscription") {
		t.Errorf("unsubscribe twice: %v %s", isErr, text)
	}
	if r := actctl(t, root, home, "restart", "worker"); r.Code != 0 {
		t.Fatalf("restart: %s", r.Stderr)
	}
	p.waitLine(`up: worker: 1 subscription\(s\) removed \(process:stop\)`)
	if r := actctl(t, root, home, "get", "hooks", "-o", "json"); strings.TrimSpace(r.Stdout) != "[]" {
		t.Errorf("after the restart: %s", r.Stdout)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up: %v\n%s", err, p.stderr())
	}
	b, _ := os.ReadFile(promptLog)
	if n := strings.Count(string(b), "\tagain"); n != 8 {
		t.Errorf("%d prompts from the self-subscription, want 8:\n%s", n, b)
	}
	if n := strings.Count(p.stderr(), "hook loop"); n != 1 {
		t.Errorf("%d loop warnings, want 1:\n%s", n, p.stderr())
	}
}
