package deploy

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestGitHubWorkflows: a workflow per employee (none for the service),
// schedules translated, the prompt and the schedule reaching the script
// through the environment only, secrets by name for exactly the
// employee's variables, one concurrency group per employee, and each
// state carrier's steps and permissions.
func TestGitHubWorkflows(t *testing.T) {
	cfg := loadTeam(t)
	for _, state := range []string{"branch", "cache"} {
		cfg.Deploy.GitHub.State = state
		outs, err := Render(cfg, Options{Now: goldenNow})
		if err != nil {
			t.Fatal(err)
		}
		gh := outs[1]
		if len(gh.Files) != 2 || gh.Files[0].Path != ".github/workflows/actctl-report.yml" || gh.Files[1].Path != ".github/workflows/actctl-triage.yml" {
			t.Fatalf("files %v", gh.Files)
		}
		var report, triage workflow
		for i, w := range []*workflow{&report, &triage} {
			if err := yaml.Unmarshal(gh.Files[i].Content, w); err != nil {
				t.Fatal(err)
			}
		}
		if got := report.On.Schedule; len(got) != 1 || got[0] != (cronTrigger{Cron: "0 0 * * 0", Timezone: "America/New_York"}) {
			t.Errorf("report's schedule %+v", got)
		}
		if got := triage.On.Schedule; len(got) != 2 || got[0] != (cronTrigger{Cron: "*/30 * * * *"}) || got[1] != (cronTrigger{Cron: "0 9 * * 1-5", Timezone: "Europe/Paris"}) {
			t.Errorf("triage's schedule %+v", got)
		}
		if triage.Concurrency.Group != "actctl-triage" || triage.Concurrency.CancelInProgress {
			t.Errorf("concurrency %+v", triage.Concurrency)
		}
		if got := keys(report.Jobs["task"].Env); got != "ANTHROPIC_API_KEY" {
			t.Errorf("report's secrets %s", got)
		}
		env := triage.Jobs["task"].Env
		if got := keys(env); got != "ANTHROPIC_API_KEY,TRACKER_TOKEN" || env["TRACKER_TOKEN"] != "${{ secrets.TRACKER_TOKEN }}" {
			t.Errorf("triage's secrets %v", env)
		}
		uses := ""
		for _, s := range triage.Jobs["task"].Steps {
			if strings.Contains(s.Run, "${{") {
				t.Errorf("step %q interpolates an expression into its script:\n%s", s.Name, s.Run)
			}
			if s.Uses != "" && !strings.Contains(s.Uses, "@") || len(s.Uses) > 0 && len(s.Uses[strings.Index(s.Uses, "@")+1:]) != 40 {
				t.Errorf("step %q: %q is not pinned by commit", s.Name, s.Uses)
			}
			uses += s.Uses + " "
			if s.Name == "Run the task" && (s.Env["PROMPT"] != "${{ inputs.prompt }}" || s.Env["SCHEDULE"] != "${{ github.event.schedule }}") {
				t.Errorf("the task step's env %v", s.Env)
			}
		}
		wantPerm, cache := "write", false
		if state == "cache" {
			wantPerm, cache = "read", true
		}
		if triage.Permissions["contents"] != wantPerm || strings.Contains(uses, "actions/cache/") != cache {
			t.Errorf("state %s: permissions %v, uses %s", state, triage.Permissions, uses)
		}
	}
}

func keys(m map[string]string) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ",")
}
