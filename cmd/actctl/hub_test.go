//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func hubRun(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"actctl"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

// TestHubCommands drives hub sync, ls and update end to end over a local
// repository in the actant-hub layout.
func TestHubCommands(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required (.ci/run installs it)")
	}
	repo := filepath.Join(t.TempDir(), "hub")
	files := map[string]string{
		"actant.json":                       `{"name":"h","version":"1.0.0"}`,
		"skills/review.json":                `{"name":"review","version":"1.0.0","description":"Review code","content":"# Review"}`,
		"prompts/sys.json":                  `{"name":"sys","content":"You review."}`,
		"templates/reviewer.json":           `{"name":"reviewer","version":"1.0.0","archetype":"tool","backend":{"type":"claude-code"},"domainContext":{"skills":["review"],"prompts":["sys"]}}`,
		"skills/triage/SKILL.md":            "---\nname: triage\ndescription: Triage issues\nversion: 0.1.0\n---\nTriage.\n",
		"skills/triage/references/guide.md": "guide",
	}
	hubRepo(t, repo, files)

	root, home := t.TempDir(), t.TempDir()
	events := filepath.Join(t.TempDir(), "events.log")
	cue := "package actant\nhub: team: {url: \"file://" + repo + "\", ref: branch: \"main\"}\nagents: rev: template: \"team@reviewer\"\n" +
		`hooks: moved: {on: "source:updated", run: {command: "/bin/sh", args: ["-c", "printf '%s\\n' \"$ACTCTL_EVENT\" >> ` + events + `"]}}` + "\n"
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(cue), 0o644); err != nil {
		t.Fatal(err)
	}
	g := []string{"-C", root, "--home", home}

	out, errs, code := hubRun(t, append(g, "hub", "sync")...)
	if code != 0 || !strings.Contains(out, "team") || !strings.Contains(out, "fetched") || !strings.Contains(out, "wrote actant.lock") {
		t.Fatalf("sync: %d\n%s\n%s", code, out, errs)
	}
	lock, err := os.ReadFile(filepath.Join(root, "actant.lock"))
	if err != nil || !strings.Contains(string(lock), `"commit"`) {
		t.Fatalf("lock: %s %v", lock, err)
	}

	out, errs, code = hubRun(t, append(g, "-o", "json", "hub", "ls", "team")...)
	var rows []map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 4 {
		t.Fatalf("ls: %d %s %s", code, out, errs)
	}
	if rows[0]["ref"] != "team@sys" && rows[0]["kind"] != "prompt" {
		t.Errorf("ls rows: %v", rows)
	}
	out, _, code = hubRun(t, append(g, "hub", "ls")...)
	if code != 0 || !strings.Contains(out, "team@triage") {
		t.Errorf("ls text: %s", out)
	}

	// A new commit: sync keeps the pin, update moves it and reports.
	if err := os.WriteFile(filepath.Join(repo, "skills/review.json"), []byte(`{"name":"review","version":"1.1.0","content":"# Review v2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "prompts/new.json"), []byte(`{"name":"new","content":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	hubGit(t, repo, "add", "-A")
	hubGit(t, repo, "commit", "-q", "-m", "two")
	out, _, code = hubRun(t, append(g, "hub", "sync")...)
	if code != 0 || strings.Contains(out, "wrote") {
		t.Errorf("sync after a remote commit must keep the lock: %s", out)
	}
	out, errs, code = hubRun(t, append(g, "hub", "update")...)
	if code != 0 || !strings.Contains(out, "~ skill team@review 1.0.0 -> 1.1.0") || !strings.Contains(out, "+ prompt team@new") {
		t.Errorf("update: %d\n%s\n%s", code, out, errs)
	}
	if b, _ := os.ReadFile(events); strings.Count(string(b), `"name":"source:updated"`) != 1 || !strings.Contains(string(b), `"source":"team"`) {
		t.Errorf("hub update fired %q, want one source:updated for team", b)
	}
	out, _, _ = hubRun(t, append(g, "hub", "update", "team")...)
	if !strings.Contains(out, "up to date") {
		t.Errorf("second update: %s", out)
	}
	_, errs, code = hubRun(t, append(g, "hub", "update", "tema")...)
	if code == 0 || !strings.Contains(errs, `did you mean "team"`) {
		t.Errorf("unknown source: %d %s", code, errs)
	}
	_, _, code = hubRun(t, append(g, "hub", "sync", "extra")...)
	if code != 2 {
		t.Errorf("usage error exit %d", code)
	}
	if _, errs, code = hubRun(t, append(g, "hub", "sync", "--frozen")...); code != 0 {
		t.Errorf("frozen with a fresh lock: %s", errs)
	}
}
