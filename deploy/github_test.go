package deploy

import (
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/actctl/actctl/schema"
)

// TestGitHubWorkflows: a workflow per employee (none for the service),
// schedules translated, the prompt and the schedule reaching the script
// through the environment only, secrets by name for exactly the
// employee's variables in the task step's environment alone (GITHUB_TOKEN
// as the job token, with the permissions the employee declares), one
// concurrency group per employee, and each state carrier's steps and
// permissions: no job that runs the agent may write the repository's
// contents or keeps credentials in .git/config; with state "branch" a
// job of its own pushes the state.
func TestGitHubWorkflows(t *testing.T) {
	cfg := loadTeam(t)
	for _, state := range []string{"branch", "cache", "artifact", "none"} {
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
		if got := keys(taskEnv(t, report)); got != "ANTHROPIC_API_KEY,PROMPT,SCHEDULE" {
			t.Errorf("report's task step's env %s", got)
		}
		env := taskEnv(t, triage)
		if got := keys(env); got != "ANTHROPIC_API_KEY,GITHUB_TOKEN,PROMPT,SCHEDULE,TRACKER_TOKEN" || env["TRACKER_TOKEN"] != "${{ secrets.TRACKER_TOKEN }}" || env["GITHUB_TOKEN"] != "${{ github.token }}" {
			t.Errorf("triage's task step's env %v", env)
		}
		if got := triage.Jobs["task"].Permissions; keys(got) != "contents,issues" || got["contents"] != "read" || got["issues"] != "write" || len(triage.Permissions) != 0 {
			t.Errorf("state %s: triage's task job's permissions %v (the workflow's %v)", state, got, triage.Permissions)
		}
		uses := ""
		for name, j := range triage.Jobs {
			for _, s := range j.Steps {
				if strings.Contains(s.Run, "${{") {
					t.Errorf("step %q interpolates an expression into its script:\n%s", s.Name, s.Run)
				}
				if s.Uses != "" && !strings.Contains(s.Uses, "@") || len(s.Uses) > 0 && len(s.Uses[strings.Index(s.Uses, "@")+1:]) != 40 {
					t.Errorf("step %q: %q is not pinned by commit", s.Name, s.Uses)
				}
				if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["persist-credentials"] != "false" {
					t.Errorf("job %s: the checkout keeps its credentials in .git/config", name)
				}
				uses += s.Uses + " "
			}
		}
		_, stateJob := triage.Jobs["state"]
		if stateJob != (state == "branch") || stateJob && (triage.Jobs["state"].Permissions["contents"] != "write" || triage.Jobs["state"].Needs != "task") {
			t.Errorf("state %s: jobs %v", state, triage.Jobs)
		}
		if strings.Contains(uses, "actions/cache/") != (state != "branch") || strings.Contains(uses, "actions/upload-artifact") != (state != "none") {
			t.Errorf("state %s: uses %s", state, uses)
		}
	}
}

// taskEnv is the environment of w's step running the task.
func taskEnv(t *testing.T, w workflow) map[string]string {
	t.Helper()
	for _, s := range w.Jobs["task"].Steps {
		if s.Name == "Run the task" {
			if s.Env["PROMPT"] != "${{ inputs.prompt }}" || s.Env["SCHEDULE"] != "${{ github.event.schedule }}" {
				t.Errorf("the task step's env %v", s.Env)
			}
			return s.Env
		}
	}
	t.Fatal("no step runs the task")
	return nil
}

func keys(m map[string]string) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ",")
}

// TestGitHubInstallSource: the workflow's "Install actctl" step takes
// deploy.github.install: the module at a version (the default: the
// version deploy.github.actctl gives), a release's URL checked against
// its sha256, or the repository's directory built with go build; the
// values come in env:, and the script parses under bash -n.
func TestGitHubInstallSource(t *testing.T) {
	cfg := loadTeam(t)
	sum := strings.Repeat("0f", 32)
	for _, tc := range []struct {
		in       *schema.ActctlInstall
		env, in2 string
	}{
		{nil, "ACTCTL_VERSION=v0.9.0", `go install "github.com/actctl/actctl/cmd/actctl@$ACTCTL_VERSION"`},
		{&schema.ActctlInstall{Version: "v1.2.3"}, "ACTCTL_VERSION=v1.2.3", `go install "github.com/actctl/actctl/cmd/actctl@$ACTCTL_VERSION"`},
		{&schema.ActctlInstall{Path: "cmd/actctl"}, "ACTCTL_PATH=cmd/actctl", `go build -o "$(go env GOPATH)/bin/actctl" "./$ACTCTL_PATH"`},
		{&schema.ActctlInstall{URL: "https://example.com/actctl", SHA256: sum}, "ACTCTL_SHA256=" + sum + ",ACTCTL_URL=https://example.com/actctl", `sha256sum -c -`},
	} {
		cfg.Deploy.GitHub.Install = tc.in
		outs, err := Render(cfg, Options{Now: goldenNow})
		if err != nil {
			t.Fatal(err)
		}
		var w workflow
		if err := yaml.Unmarshal(outs[1].Files[0].Content, &w); err != nil {
			t.Fatal(err)
		}
		var s step
		for _, st := range w.Jobs["task"].Steps {
			if st.Name == "Install actctl" {
				s = st
			}
		}
		var env []string
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			env = append(env, k+"="+s.Env[k])
		}
		if strings.Join(env, ",") != tc.env || !strings.Contains(s.Run, tc.in2) || strings.Contains(s.Run, "${{") {
			t.Errorf("%+v: env %v, script:\n%s", tc.in, env, s.Run)
		}
		if out, err := exec.Command("bash", "-n", "-c", s.Run).CombinedOutput(); err != nil {
			t.Errorf("%+v: bash -n: %v\n%s", tc.in, err, out)
		}
	}
}
