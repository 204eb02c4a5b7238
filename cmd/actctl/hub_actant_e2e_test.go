//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHubActantHooksAndSandbox: an actant-hub template's event hooks
// become actctl hooks where actctl has the event (source:sync-complete is
// source:updated), its sandbox becomes Claude Code's settings sandbox, and
// what has no equivalent (a hook on user:message, a Codex template's
// sandbox) is said by validate, for the agents concerned, and by hub ls;
// both were dropped and the note printed by no command.
func TestHubActantHooksAndSandbox(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required (.ci/run installs it)")
	}
	repo := filepath.Join(t.TempDir(), "hub")
	files := map[string]string{
		"actant.json": `{"name":"h","version":"1.0.0"}`,
		"templates/upd.json": `{"name":"upd","version":"1.0.0","archetype":"employee","backend":{"type":"claude-code"},
			"permissions":{"defaultMode":"default","sandbox":{"enabled":false}},
			"schedule":{"cron":[{"pattern":"0 6 * * *","prompt":"check"}],"hooks":[{"eventName":"source:sync-complete","prompt":"the hub moved: check for breaking changes"}]}}`,
		"templates/stw.json": `{"name":"stw","version":"1.0.0","archetype":"service","backend":{"type":"claude-code"},
			"permissions":{"defaultMode":"default","sandbox":{"enabled":true,"network":{"allowLocalBinding":false}}},
			"schedule":{"hooks":[{"eventName":"user:message","prompt":"route the user's intent"}]}}`,
		"templates/cdx.json": `{"name":"cdx","version":"1.0.0","archetype":"tool","backend":{"type":"codex"},"permissions":{"allow":["Read"],"sandbox":{"enabled":true}}}`,
	}
	hubRepo(t, repo, files)
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
hub: team: {url: "file://`+repo+`", ref: branch: "main"}
agents: {
	updater: template: "team@upd"
	steward: template: "team@stw"
	coder: template: "team@cdx"
}
`)
	if r := actctl(t, root, home, "hub", "sync"); r.Code != 0 {
		t.Fatalf("hub sync: exit %d\n%s", r.Code, r.Stderr)
	}
	r := actctl(t, root, home, "validate")
	for _, want := range []string{
		`actctl: note: agent steward (template team@stw): hook on user:message dropped: a person's messages reach the agent itself`,
		`actctl: note: agent coder (template team@cdx): permissions.sandbox dropped: backend codex has no sandbox setting`,
	} {
		if r.Code != 0 || !strings.Contains(r.Stderr, want) {
			t.Errorf("validate: exit %d, want %q:\n%s", r.Code, want, r.Stderr)
		}
	}
	if strings.Contains(r.Stderr, "updater") {
		t.Errorf("validate notes an agent that lost nothing:\n%s", r.Stderr)
	}
	if r := actctl(t, root, home, "hub", "ls"); r.Code != 0 || !strings.Contains(r.Stderr, "actctl: note: hub team: ") || !strings.Contains(r.Stderr, "templates/stw.json: hook on user:message dropped") {
		t.Errorf("hub ls: exit %d\n%s", r.Code, r.Stderr)
	}
	r = actctl(t, root, home, "get", "hooks", "-o", "json")
	var hs []hookJSON
	if err := json.Unmarshal([]byte(r.Stdout), &hs); err != nil || len(hs) != 1 {
		t.Fatalf("get hooks: %v\n%s%s", err, r.Stdout, r.Stderr)
	}
	if h := hs[0]; h.Name != "updater.source-updated" || h.On != "source:updated" || h.Prompt == nil || h.Prompt.Agent != "updater" || h.Origin != "template team@upd (hub)" {
		t.Errorf("the updater's hook: %+v %+v", h, h.Prompt)
	}
	if r := actctl(t, root, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: exit %d\n%s", r.Code, r.Stderr)
	}
	b, err := os.ReadFile(filepath.Join(home, "instances", "steward", ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(b), `"sandbox"`) || !strings.Contains(string(b), `"allowLocalBinding": false`) {
		t.Errorf("steward's Claude settings: %v\n%s", err, b)
	}
}

// hubRepo makes repo a git repository (branch main) of one commit holding
// files (path: content).
func hubRepo(t *testing.T, repo string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hubGit(t, repo, "init", "-q", "-b", "main")
	hubGit(t, repo, "add", "-A")
	hubGit(t, repo, "commit", "-q", "-m", "one")
}
