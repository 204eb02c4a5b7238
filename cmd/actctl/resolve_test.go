package main

import (
	"encoding/json"
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
