package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestGetWebhooks: `get webhooks` lists the webhooks actant.cue declares
// (signature, secret's variable, events, the hooks they feed), as a table
// and as docs/json.md's row says; `get webhooks NAME` only those named; a
// name not declared is an error with "did you mean"; nothing is written.
func TestGetWebhooks(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `package actant

templates: emp: {backend: "claude-code", archetype: "employee", schedule: heartbeat: {interval: "30m", prompt: "look"}}
agents: triage: template: "emp"
webhooks: gh: {secretEnv: "GH_WEBHOOK_SECRET", signature: "github", events: ["issues", "pull_request"]}
webhooks: ci: {secretEnv: "CI_SECRET", signature: "hmac-sha256", header: "X-CI-Signature"}
hooks: "new-issue": {on: "webhook:gh", prompt: {agent: "triage", text: "New issue"}}
hooks: "log": {on: "webhook:gh", run: command: "true"}
`)
	r := actctl(t, dir, "", "get", "webhooks")
	want := []string{
		"NAME  SIGNATURE    SECRET ENV         EVENTS               HOOKS",
		"ci    hmac-sha256  CI_SECRET          *                    -",
		"gh    github       GH_WEBHOOK_SECRET  issues,pull_request  log,new-issue",
	}
	if got := strings.Split(strings.TrimRight(r.Stdout, "\n"), "\n"); r.Code != 0 || !slices.Equal(got, want) {
		t.Errorf("get webhooks: exit %d\n%s\nwant\n%s\n%s", r.Code, r.Stdout, strings.Join(want, "\n"), r.Stderr)
	}
	r = actctl(t, dir, "", "-o", "json", "get", "webhooks", "gh")
	checkJSONOutput(t, "get webhooks", r.Stdout)
	var js []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &js); err != nil || len(js) != 1 || js[0]["name"] != "gh" || js[0]["secretEnv"] != "GH_WEBHOOK_SECRET" {
		t.Errorf("get webhooks gh -o json: %v\n%s", err, r.Stdout)
	}
	r = actctl(t, dir, "", "get", "webhooks", "gg")
	if r.Code != 1 || !strings.Contains(r.Stderr, `get webhooks: no webhook "gg" (did you mean "gh"?)`) {
		t.Errorf("get webhooks gg: exit %d %q", r.Code, r.Stderr)
	}
	if got := listFiles(t, dir); !slices.Equal(got, []string{"actant.cue"}) {
		t.Errorf("get webhooks wrote: %v", got)
	}
}
