package main

import (
	"strings"
	"testing"
)

// TestCompletionTaskAndDeploy: the values of task's --source (the
// agent's own heartbeat and cron entries, manual) and --if-busy, and
// explain's fields below a field that a map's entries declare
// (agents.deploy. is the deploy field of every agent, as explain reads
// it, not an agent named deploy).
func TestCompletionTaskAndDeploy(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `package actant

templates: emp: {backend: "claude-code", archetype: "employee", schedule: {
	heartbeat: {interval: "30m", prompt: "look"}
	cron: [{pattern: "@daily", prompt: "a"}, {pattern: "@weekly", prompt: "b"}]
}}
templates: night: {backend: "claude-code", archetype: "employee", schedule: cron: [{pattern: "@daily", prompt: "a"}]}
agents: triage: template: "emp"
agents: owl: template: "night"
`)
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"task", "triage", "--source", ""}, "cron:0 cron:1 heartbeat manual"},
		{[]string{"task", "owl", "--source", ""}, "cron:0 manual"},
		{[]string{"task", "triage", "--source=c"}, "--source=cron:0 --source=cron:1"},
		{[]string{"task", "triage", "--if-busy", ""}, "skip wait"},
		{[]string{"explain", "agents.deploy."}, "agents.deploy.engines agents.deploy.github agents.deploy.githubPermissions agents.deploy.kubernetes"},
		{[]string{"explain", "agents.triage.deploy."}, "agents.triage.deploy.engines agents.triage.deploy.github agents.triage.deploy.githubPermissions agents.triage.deploy.kubernetes"},
		{[]string{"explain", "templates.schedule."}, "templates.schedule.cron templates.schedule.heartbeat"},
		{[]string{"explain", "agents.t"}, "agents.template agents.triage"},
		{[]string{"explain", "templates.schedule.cron.p"}, "templates.schedule.cron.pattern templates.schedule.cron.prompt"},
	} {
		r := actctl(t, dir, "", append([]string{completeCmd, "--"}, tc.words...)...)
		got := strings.Join(strings.Fields(r.Stdout), " ")
		if r.Code != 0 || got != tc.want || r.Stderr != "" {
			t.Errorf("complete %q: exit %d, %q (stderr %q); want %q", tc.words, r.Code, got, r.Stderr, tc.want)
		}
	}
}
