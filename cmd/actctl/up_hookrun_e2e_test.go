package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpHookPromptsRepoAgent: a prompt hook aimed at a repo agent (which
// up never holds) runs its prompt as `actctl run` would, one session on
// a backend of its own, and up logs the run; it was validated, then
// refused at run time ("agent rp is not run by this actctl up").
func TestUpHookPromptsRepoAgent(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	prompts := filepath.Join(root, "prompts.log")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, `ACTCTL_TEST_PROMPT_LOG: "`+prompts+`"`)+`
templates: {
	emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check the queue"}}
	rt: {backend: "scripted", archetype: "repo"}
}
agents: {
	triage: template: "emp"
	rp: template: "rt"
}
hooks: "tell-rp": {on: "task:done", agents: ["triage"], prompt: {agent: "rp", text: "triage finished task {{event.data.task}}"}}
`)
	p := startUp(t, root, home)
	p.started("triage")
	if r := actctl(t, root, home, "prompt", "triage", "-p", "hello"); r.Code != 0 {
		t.Fatalf("prompt triage: exit %d\n%s", r.Code, r.Stderr)
	}
	p.waitLine(`up: hook tell-rp: prompting rp \(a repo agent up does not hold: one session, as actctl run; its reply in .*proxy\.log\)`)
	m := p.waitLine(`up: hook tell-rp: rp: (\S+) \(session (\S+)\)`)
	if m[1] != "end_turn" {
		t.Fatalf("the hook's turn ended %s\n%s", m[1], p.stderr())
	}
	b, err := os.ReadFile(prompts)
	if err != nil || !strings.Contains(string(b), m[2]+"\ttriage finished task ") {
		t.Errorf("rp was not prompted in session %s: %v\n%s", m[2], err, b)
	}
	if s := p.stop(); strings.Contains(s, "not run by this actctl up") || strings.Contains(s, "warning: hook tell-rp") {
		t.Errorf("up reported the hook as failed:\n%s", s)
	}
}
