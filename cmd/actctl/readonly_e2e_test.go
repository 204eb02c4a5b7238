//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOnlyCommandsKeepTheLock: validate, diff, status and get never
// create or rewrite actant.lock (nor actant.owned, nor any output); they
// use the hub source anyway and say the lock is missing or stale. apply
// writes it. A CI of `actctl validate && actctl apply --frozen` so catches
// a missing lock.
func TestReadOnlyCommandsKeepTheLock(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "hub")
	writeFiles(t, repo, map[string]string{
		"actant.json":             `{"name":"h","version":"1.0.0"}`,
		"prompts/sys.json":        `{"name":"sys","content":"You review."}`,
		"templates/reviewer.json": `{"name":"reviewer","version":"1.0.0","archetype":"tool","backend":{"type":"claude-code"},"domainContext":{"prompts":["sys"]}}`,
	})
	hubGit(t, repo, "init", "-q", "-b", "main")
	hubGit(t, repo, "add", "-A")
	hubGit(t, repo, "commit", "-q", "-m", "one")
	root, home := t.TempDir(), t.TempDir()
	cue := func(branch string) string {
		return "package actant\nhub: team: {url: \"file://" + repo + "\", ref: branch: \"" + branch + "\"}\nagents: rev: template: \"team@reviewer\"\n"
	}
	writeConfig(t, root, cue("main"))
	readOnly := [][]string{{"validate"}, {"diff"}, {"status"}, {"get", "agents"}, {"-o", "json", "get", "templates"}}
	for _, args := range readOnly {
		r := actctl(t, root, home, args...)
		if r.Code > 1 || !strings.Contains(r.Stderr, "actant.lock is missing; this command does not write it") {
			t.Errorf("%v: exit %d, stderr:\n%s", args, r.Code, r.Stderr)
		}
	}
	assertNotWritten(t, root, "read-only commands", "actant.lock", "actant.owned", "CLAUDE.md", ".actant")
	if r := actctl(t, root, home, "apply", "--frozen"); r.Code == 0 {
		t.Errorf("apply --frozen after validate succeeded without a lock")
	}
	if r := actctl(t, root, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %d %s", r.Code, r.Stderr)
	}
	lock, err := os.ReadFile(filepath.Join(root, "actant.lock"))
	if err != nil {
		t.Fatal(err)
	}
	// A ref changed in the config: the read-only commands say the lock
	// is stale and leave it as it is.
	hubGit(t, repo, "branch", "next")
	writeConfig(t, root, cue("next"))
	for _, args := range readOnly {
		r := actctl(t, root, home, args...)
		if !strings.Contains(r.Stderr, `actant.lock is stale: source "team" changed in the config`) {
			t.Errorf("%v: stderr:\n%s", args, r.Stderr)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(root, "actant.lock")); string(after) != string(lock) {
		t.Errorf("a read-only command rewrote actant.lock:\n%s", after)
	}
}
