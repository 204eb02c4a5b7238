//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// checkoutWorkspace declares employee triage working on a local git
// repository (url as given, at ref) and returns the repository.
func checkoutWorkspace(t *testing.T, url func(root, repo string) string, ref string) (root, home, repo string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	repo = filepath.Join(t.TempDir(), "app")
	writeFiles(t, repo, map[string]string{"README": "one"})
	hubGit(t, repo, "init", "-q", "-b", "main")
	hubGit(t, repo, "add", "-A")
	hubGit(t, repo, "commit", "-q", "-m", "one")
	hubGit(t, repo, "tag", "v1")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
templates: emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "x"}}
agents: triage: {template: "emp", checkout: {url: "`+url(root, repo)+`", ref: "`+ref+`"}}
`)
	return root, home, repo
}

// TestTaskCheckout: before each task the repository is cloned, then
// fetched and reset to its ref, in <instance>/checkout, the session's
// cwd; a ref that names nothing fails the task (logged, exit 1).
func TestTaskCheckout(t *testing.T) {
	root, home, repo := checkoutWorkspace(t, func(_, r string) string { return "file://" + r }, "main")
	co := filepath.Join(home, "instances", "triage", "checkout")
	r := actctl(t, root, home, "task", "triage", "-p", "session")
	if r.Code != 0 || !strings.Contains(r.Stdout, " cwd "+co+" ") {
		t.Fatalf("task: exit %d, want the session in %s\n%s%s", r.Code, co, r.Stdout, r.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(co, "README")); err != nil || string(b) != "one" {
		t.Fatalf("checkout: %q, %v", b, err)
	}
	writeFiles(t, repo, map[string]string{"README": "two"})
	hubGit(t, repo, "commit", "-q", "-am", "two")
	writeFiles(t, co, map[string]string{"README": "the agent's edit"})
	if r := actctl(t, root, home, "task", "triage", "-p", "hello"); r.Code != 0 {
		t.Fatalf("second task: exit %d\n%s", r.Code, r.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(co, "README")); string(b) != "two" {
		t.Errorf("after a fetch: %q, want two", b)
	}
	// The tag, then a ref that names nothing.
	cfg, _ := os.ReadFile(filepath.Join(root, "actant.cue"))
	writeConfigTB(t, root, strings.Replace(string(cfg), `ref: "main"`, `ref: "v1"`, 1))
	if r := actctl(t, root, home, "task", "triage", "-p", "hello"); r.Code != 0 {
		t.Fatalf("tag: exit %d\n%s", r.Code, r.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(co, "README")); string(b) != "one" {
		t.Errorf("at v1: %q, want one", b)
	}
	writeConfigTB(t, root, strings.Replace(string(cfg), `ref: "main"`, `ref: "nope"`, 1))
	r = actctl(t, root, home, "task", "triage", "-p", "hello")
	if want := `ref "nope" is no branch, tag or commit of it`; r.Code != 1 || !strings.Contains(r.Stderr, want) {
		t.Fatalf("bad ref: exit %d\n%s(want %q)", r.Code, r.Stderr, want)
	}
	if sums, _ := taskLogs(t, home); len(sums) != 4 || !strings.Contains(sums[3].Error, "nope") {
		t.Errorf("the failed checkout is not a logged task: %+v", sums)
	}
}

// TestUpCheckout: up clones an employee's repository (a local path
// relative to the root here) before it starts it, in the session's cwd,
// and syncs it before each task.
func TestUpCheckout(t *testing.T) {
	root, home, repo := checkoutWorkspace(t, func(root, r string) string {
		rel, err := filepath.Rel(root, r)
		if err != nil {
			t.Fatal(err)
		}
		return rel
	}, "main")
	co := filepath.Join(home, "instances", "triage", "checkout")
	p := startUp(t, root, home)
	p.started("triage")
	if r := actctl(t, root, home, "prompt", "triage", "-p", "session"); r.Code != 0 || !strings.Contains(r.Stdout, " cwd "+co+" ") {
		t.Fatalf("prompt: exit %d, want the session in %s\n%s%s", r.Code, co, r.Stdout, r.Stderr)
	}
	writeFiles(t, repo, map[string]string{"README": "two"})
	hubGit(t, repo, "commit", "-q", "-am", "two")
	if r := actctl(t, root, home, "prompt", "triage", "-p", "hello"); r.Code != 0 {
		t.Fatalf("prompt: exit %d\n%s", r.Code, r.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(co, "README")); string(b) != "two" {
		t.Errorf("after a task: %q, want two", b)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.waitLine(`up: stopped$`)
}
