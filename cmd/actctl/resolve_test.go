package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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

// TestResolvePrepares: with a fresh ACTANT_HOME, the directory resolve
// prints exists and holds the agent's files (it is materialized under the
// workspace lock before it is printed, as proxy does); an agent whose
// every client gets a copy is refused with the reason, and nothing is
// written for it.
func TestResolvePrepares(t *testing.T) {
	dir, home := agentWorkspace(t)
	for _, name := range []string{"worker", "helper"} {
		r := actctl(t, dir, home, "-o", "json", "resolve", name)
		if r.Code != 0 {
			t.Fatalf("resolve %s: %s", name, r.Stderr)
		}
		var l struct{ Cwd string }
		if err := json.Unmarshal([]byte(r.Stdout), &l); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(l.Cwd, "FAKE.md")); err != nil {
			t.Errorf("resolve %s printed %s, not prepared: %v", name, l.Cwd, err)
		}
	}
	cue := filepath.Join(dir, "actant.cue")
	src := string(mustRead(t, cue)) + "templates: pad: {backend: \"fake\", archetype: \"repo\", workspacePolicy: \"ephemeral\"}\nagents: pad: template: \"pad\"\n"
	writeFiles(t, dir, map[string]string{"actant.cue": src})
	r := actctl(t, dir, home, "resolve", "pad")
	want := "resolve: pad has workspacePolicy \"ephemeral\": each client gets a copy of its own, which only `actctl proxy pad` makes and removes"
	if r.Code != 1 || !strings.Contains(r.Stderr, want) || r.Stdout != "" {
		t.Errorf("resolve pad: %d %q %q, want %q", r.Code, r.Stdout, r.Stderr, want)
	}
	if _, err := os.Stat(filepath.Join(home, "instances", "pad")); !os.IsNotExist(err) {
		t.Errorf("resolve pad made its instance: %v", err)
	}
}
