package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestNotesAboutOtherAgents: a command that acts on one agent says
// nothing about another's template (the Gemini note of a Gemini agent
// while running a scripted one); validate, which acts on every agent,
// still says it; nor does up about an agent it does not run (issue 32
// item 13).
func TestNotesAboutOtherAgents(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
templates: {
	tl: {backend: "scripted"}
	gem: {backend: "gemini"}
	emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check"}}
}
agents: {
	helper: template: "tl"
	g: template: "gem"
	triage: template: "emp"
}
`)
	const note = "Gemini CLI stopped serving"
	if r := actctl(t, root, home, "run", "helper", "-p", "hello"); r.Code != 0 || strings.Contains(r.Stderr, note) {
		t.Errorf("run helper: exit %d, a note about agent g:\n%s", r.Code, r.Stderr)
	}
	p := startUp(t, root, home) // runs triage alone
	p.started("triage")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil || strings.Contains(p.stderr(), note) {
		t.Errorf("up: %v, a note about agent g:\n%s", err, p.stderr())
	}
	if r := actctl(t, root, home, "validate"); !strings.Contains(r.Stderr, note) {
		t.Errorf("validate lost the note:\n%s%s", r.Stdout, r.Stderr)
	}
}
