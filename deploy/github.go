package deploy

import (
	"bytes"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// The actions the workflows use, pinned by commit (a tag can be moved;
// docs/deploy.md, "GitHub Actions"); the version each commit is, for the
// file's header and for whoever updates them.
var actions = []struct{ name, ref, version string }{
	{"actions/checkout", "11bd71901bbe5b1630ceea73d27597364c9af683", "v4.2.2"},
	{"actions/setup-go", "0aaccfd150d50ccaeb58ebd88d36e91967a5f35b", "v5.4.0"},
	{"actions/cache/restore", "5a3ec84eff668545956fd18022155c47e93e2684", "v4.2.3"},
	{"actions/cache/save", "5a3ec84eff668545956fd18022155c47e93e2684", "v4.2.3"},
	{"actions/upload-artifact", "ea165f8d65b6e75b540449e92b4886f43607fa02", "v4.6.2"},
	{"actions/download-artifact", "d3f86a106a0bac45b974a628896c90dbdf5c8093", "v4.3.0"},
}

func uses(name string) string {
	for _, a := range actions {
		if a.name == name {
			return a.name + "@" + a.ref
		}
	}
	panic("deploy: unknown action " + name)
}

// taskTimeout bounds a workflow's job, in minutes.
const taskTimeout = 60

type workflow struct {
	Name        string            `yaml:"name"`
	On          workflowOn        `yaml:"on"`
	Concurrency concurrency       `yaml:"concurrency"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]job    `yaml:"jobs"`
}

type workflowOn struct {
	Schedule         []cronTrigger `yaml:"schedule,omitempty"`
	WorkflowDispatch dispatch      `yaml:"workflow_dispatch"`
}

type cronTrigger struct {
	Cron     string `yaml:"cron"`
	Timezone string `yaml:"timezone,omitempty"`
}

type dispatch struct {
	Inputs map[string]input `yaml:"inputs"`
}

type input struct {
	Description string `yaml:"description"`
	Required    bool   `yaml:"required"`
	Type        string `yaml:"type"`
}

type concurrency struct {
	Group            string `yaml:"group"`
	CancelInProgress bool   `yaml:"cancel-in-progress"`
}

type job struct {
	Needs          string            `yaml:"needs,omitempty"`
	If             string            `yaml:"if,omitempty"`
	RunsOn         string            `yaml:"runs-on"`
	TimeoutMinutes int               `yaml:"timeout-minutes"`
	Permissions    map[string]string `yaml:"permissions"`
	Steps          []step            `yaml:"steps"`
}

type step struct {
	Name            string            `yaml:"name"`
	If              string            `yaml:"if,omitempty"`
	ContinueOnError bool              `yaml:"continue-on-error,omitempty"`
	Uses            string            `yaml:"uses,omitempty"`
	With            map[string]string `yaml:"with,omitempty"`
	Env             map[string]string `yaml:"env,omitempty"`
	Run             string            `yaml:"run,omitempty"`
}

// renderGitHub renders a workflow per employee on GitHub Actions.
func renderGitHub(cfg *schema.Config, o Options) ([]File, error) {
	g := cfg.Deploy.GitHub
	var files []File
	for _, r := range agents(cfg) {
		if !r.Agent.OnGitHub(r.ArchetypeName) {
			continue
		}
		entries, ds := cfg.TargetSchedule(r.Name, schema.TargetGitHub, o.Now)
		if errs := ds.Errors(); len(errs) > 0 {
			return nil, errs
		}
		if r.Backend.Install == "" { // validate refuses it (schema.checkGitHubInstall)
			return nil, fmt.Errorf("agent %q: backend %q has no install command for the workflow to run", r.Name, r.BackendName)
		}
		b, err := githubWorkflow(cfg, g, r, entries)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: path.Join(path.Clean(g.Dir), "actctl-"+r.Name+".yml"), Content: b})
	}
	return files, nil
}

// githubWorkflow is employee r's workflow: its task job, whose token
// only reads the repository's contents (and what the employee declares,
// schema.AgentDeploy.GitHubPermissions); with state "branch", a second
// job, which runs no agent, pushes the state with contents: write.
func githubWorkflow(cfg *schema.Config, g *schema.DeployGitHub, r *schema.Resolved, entries []schema.ScheduleEntry) ([]byte, error) {
	w := workflow{
		Name:        "actctl " + r.Name,
		Concurrency: concurrency{Group: "actctl-" + r.Name},
		Permissions: map[string]string{},
		On: workflowOn{WorkflowDispatch: dispatch{Inputs: map[string]input{
			"prompt": {Description: "A task for " + r.Name + " (empty: its heartbeat)", Type: "string"},
		}}},
	}
	heartbeat := false
	for _, e := range entries {
		t := cronTrigger{Cron: e.Pattern}
		if e.Timezone != "UTC" {
			t.Timezone = e.Timezone
		}
		w.On.Schedule = append(w.On.Schedule, t)
		heartbeat = heartbeat || e.Source == "heartbeat"
	}
	if !heartbeat { // what taskScript does with an empty prompt
		w.On.WorkflowDispatch.Inputs["prompt"] = input{Description: "A task for " + r.Name + " (required: " + r.Name + " has no heartbeat)", Type: "string"}
	}
	steps, err := githubSteps(cfg, g, r, heartbeat, secretKeys(cfg, []*schema.Resolved{r}))
	if err != nil {
		return nil, err
	}
	perms := map[string]string{"contents": "read"}
	if r.Agent.Deploy != nil {
		maps.Copy(perms, r.Agent.Deploy.GitHubPermissions)
	}
	w.Jobs = map[string]job{"task": {RunsOn: g.RunsOn, TimeoutMinutes: taskTimeout, Permissions: perms, Steps: steps}}
	if g.State == schema.StateBranch {
		w.Jobs["state"] = job{Needs: "task", If: "always()", RunsOn: g.RunsOn, TimeoutMinutes: 10,
			Permissions: map[string]string{"contents": "write"}, Steps: branchSaveSteps(r.Name)}
	}
	body, err := yamlDocs(w)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(string(body[:bytes.IndexByte(body, '\n')+1]))
	b.WriteString("# Actions pinned by commit:")
	for _, a := range actions {
		fmt.Fprintf(&b, " %s %s,", a.name, a.version)
	}
	b.Truncate(b.Len() - 1)
	b.WriteString(".\n")
	b.Write(body[bytes.IndexByte(body, '\n')+1:])
	return b.Bytes(), nil
}

// githubSteps are the task job's: check out (no credentials kept where
// the agent works), install actctl and the backend, restore the
// employee's state, run the task with the secrets keys (GITHUB_TOKEN:
// the job token) in its step's environment only, prune the carried
// logs, save the state, upload the logs.
func githubSteps(cfg *schema.Config, g *schema.DeployGitHub, r *schema.Resolved, heartbeat bool, keys []string) ([]step, error) {
	argv, err := schema.InstallArgv(r.Backend.Install)
	if err != nil {
		return nil, fmt.Errorf("backend %q: install %q: %w", r.BackendName, r.Backend.Install, err)
	}
	steps := []step{
		{Name: "Check out", Uses: uses("actions/checkout"), With: map[string]string{"persist-credentials": "false"}},
		{Name: "Set up Go", Uses: uses("actions/setup-go"), With: map[string]string{"go-version": "stable", "cache": "false"}},
		installActctl(g.InstallSource()),
		{Name: "Install " + r.BackendName, Run: shellJoin(argv) + "\n"},
	}
	mcp, err := mcpInstallSteps(cfg, r)
	if err != nil {
		return nil, err
	}
	steps = append(steps, mcp...)
	steps = append(steps, step{Name: "Set actctl's home", Run: "echo \"ACTANT_HOME=$RUNNER_TEMP/actant\" >> \"$GITHUB_ENV\"\n"})
	env := map[string]string{"PROMPT": "${{ inputs.prompt }}", "SCHEDULE": "${{ github.event.schedule }}"}
	for _, k := range keys {
		env[k] = "${{ secrets." + k + " }}"
		if k == schema.JobToken {
			env[k] = "${{ github.token }}"
		}
	}
	if trust := trustScript(cfg, schema.TargetGitHub, []*schema.Resolved{r}, func(r *schema.Resolved) string { return "$ACTANT_HOME/instances/" + r.Name }); trust != "" {
		steps = append(steps, step{Name: "Trust " + r.Name + "'s directory for " + r.BackendName, Run: trust})
	}
	task := step{Name: "Run the task", Env: env, Run: taskScript(r.Name, heartbeat)}
	steps = append(steps, stateSteps(g, r.Name, task)...)
	if g.State == schema.StateNone {
		return steps, nil
	}
	inst := "${{ runner.temp }}/actant/instances/" + r.Name
	return append(steps, step{Name: "Upload the task log", If: "always()", Uses: uses("actions/upload-artifact"),
		With: map[string]string{"name": "actctl-" + r.Name + "-${{ github.run_id }}", "path": inst + "/logs", "if-no-files-found": "ignore", "retention-days": fmt.Sprint(g.LogDays)}}), nil
}

// mcpInstallSteps install the commands of employee r's MCP servers that
// give an install (mcpServers.X.install), one step per command, in the
// order the template names them; a server without one is validate's
// warning (the runner must provide it).
func mcpInstallSteps(cfg *schema.Config, r *schema.Resolved) ([]step, error) {
	var steps []step
	var done []string
	for _, ref := range r.Template.MCPServers {
		s, ok := cfg.MCPServers[ref]
		if !ok || s.Command == "" || s.Install == "" || slices.Contains(done, s.Install) {
			continue
		}
		argv, err := schema.InstallArgv(s.Install)
		if err != nil {
			return nil, fmt.Errorf("mcpServers.%s: install %q: %w", ref, s.Install, err)
		}
		done = append(done, s.Install)
		steps = append(steps, step{Name: "Install MCP server " + ref, Run: shellJoin(argv) + "\n"})
	}
	return steps, nil
}

// stateSteps surround the task step with the restore and save of the
// employee's state as g.State carries it (docs/deploy.md, "GitHub
// Actions").
func stateSteps(g *schema.DeployGitHub, name string, task step) []step {
	inst := "${{ runner.temp }}/actant/instances/" + name
	paths, key := statePaths(inst, stateFiles), "actctl-"+name+"-"
	if g.State == schema.StateArtifact || g.State == schema.StateNone {
		paths, key = statePaths(inst, stateFiles[:1]), "actctl-"+name+"-heartbeat-"
	}
	prune := step{Name: "Prune " + name + "'s logs", If: "always()", Env: map[string]string{"KEEP": fmt.Sprint(g.KeepLogs)}, Run: pruneScript(name)}
	if g.State == schema.StateBranch {
		return []step{
			{Name: "Restore " + name + "'s state", Env: map[string]string{"ACTCTL_TOKEN": "${{ github.token }}"}, Run: gitAuth + branchRestore(name)},
			task, prune,
			{Name: "Hand " + name + "'s state to the state job", If: "always()", Uses: uses("actions/upload-artifact"),
				With: map[string]string{"name": stateArtifact(name), "path": paths, "if-no-files-found": "ignore", "include-hidden-files": "true", "retention-days": "1"}},
		}
	}
	steps := []step{{Name: "Restore " + name + "'s state", Uses: uses("actions/cache/restore"),
		With: map[string]string{"path": paths, "key": key + "${{ github.run_id }}", "restore-keys": key}}, task}
	if g.State == schema.StateCache {
		steps = append(steps, prune)
	}
	return append(steps, step{Name: "Save " + name + "'s state", If: "always()", Uses: uses("actions/cache/save"),
		With: map[string]string{"path": paths, "key": key + "${{ github.run_id }}"}})
}

// stateArtifact names the artifact the task job hands the state job.
func stateArtifact(name string) string { return "actctl-" + name + "-state-${{ github.run_id }}" }

// branchSaveSteps are the state job's: it runs no agent, and its token
// alone may write the repository's contents: check out (no credentials
// kept), take the state the task job handed over, push it.
func branchSaveSteps(name string) []step {
	return []step{
		{Name: "Check out", Uses: uses("actions/checkout"), With: map[string]string{"persist-credentials": "false"}},
		{Name: "Set actctl's home", Run: "echo \"ACTANT_HOME=$RUNNER_TEMP/actant\" >> \"$GITHUB_ENV\"\n"},
		{Name: "Take " + name + "'s state", ContinueOnError: true, Uses: uses("actions/download-artifact"),
			With: map[string]string{"name": stateArtifact(name), "path": "${{ runner.temp }}/actant/instances/" + name}},
		{Name: "Save " + name + "'s state", Env: map[string]string{"ACTCTL_TOKEN": "${{ github.token }}"}, Run: gitAuth + branchSave(name)},
	}
}

// gitAuth gives the step's git commands the job token ($ACTCTL_TOKEN,
// the step's alone) as actions/checkout would, through git's
// environment: nothing is written to .git/config, where the agent works.
const gitAuth = `if [ -n "${ACTCTL_TOKEN:-}" ]; then
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="http.${GITHUB_SERVER_URL:-https://github.com}/.extraheader"
  GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $(printf 'x-access-token:%s' "$ACTCTL_TOKEN" | base64 | tr -d '\n')"
  export GIT_CONFIG_VALUE_0
fi
`

// pruneScript keeps the newest $KEEP task logs of the employee and as
// many summary lines: the carried state does not grow without bound.
func pruneScript(name string) string {
	return strings.Join([]string{
		`dir="$ACTANT_HOME/instances/` + name + `/logs"`,
		`if [ -d "$dir/tasks" ]; then`,
		`  find "$dir/tasks" -type f -name '*.jsonl' | sort -r | tail -n +"$((KEEP + 1))" | xargs -r rm -f --`,
		`fi`,
		`if [ -f "$dir/actctl.log" ]; then`,
		`  tail -n "$KEEP" "$dir/actctl.log" > "$dir/actctl.log.new"`,
		`  mv "$dir/actctl.log.new" "$dir/actctl.log"`,
		`fi`,
	}, "\n") + "\n"
}

// Module is actctl's command as `go install` names it.
const Module = "github.com/actctl/actctl/cmd/actctl"

// installActctl is the step installing actctl from in into the Go bin
// directory setup-go puts on PATH: `go install` of the module version,
// the release at the URL checked against its sha256 (a binary, or a
// .tar.gz holding actctl), or `go build` of the repository's directory.
// The values come in env:, never in the script.
func installActctl(in schema.ActctlInstall) step {
	switch {
	case in.URL != "":
		return step{Name: "Install actctl", Env: map[string]string{"ACTCTL_URL": in.URL, "ACTCTL_SHA256": in.SHA256}, Run: strings.Join([]string{
			`f="$RUNNER_TEMP/actctl.download"`,
			`curl -fsSL --proto '=https' -o "$f" "$ACTCTL_URL"`,
			`echo "$ACTCTL_SHA256  $f" | sha256sum -c -`,
			`bin="$(go env GOPATH)/bin"`,
			`mkdir -p "$bin"`,
			`case "$ACTCTL_URL" in`,
			`  *.tar.gz|*.tgz) tar -xzf "$f" -C "$bin" actctl ;;`,
			`  *) install -m 0755 "$f" "$bin/actctl" ;;`,
			`esac`,
		}, "\n") + "\n"}
	case in.Path != "":
		return step{Name: "Install actctl", Env: map[string]string{"ACTCTL_PATH": in.Path},
			Run: "CGO_ENABLED=0 go build -o \"$(go env GOPATH)/bin/actctl\" \"./$ACTCTL_PATH\"\n"}
	}
	return step{Name: "Install actctl", Env: map[string]string{"ACTCTL_VERSION": in.Version}, Run: "go install \"" + Module + "@$ACTCTL_VERSION\"\n"}
}

// shellJoin writes argv as one shell command line: a word of plain
// characters as it is, any other in single quotes.
func shellJoin(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = a
		if a == "" || strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") != "" {
			words[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}

// taskScript runs the task the event asks for: the schedule that fired,
// the prompt given by hand, else the heartbeat. The prompt and the
// schedule come in environment variables, never in the script's text.
func taskScript(name string, heartbeat bool) string {
	fallback := "  actctl task " + name + " --source heartbeat --frozen\n"
	if !heartbeat {
		fallback = "  echo \"" + name + " has no heartbeat: give a prompt\" >&2\n  exit 2\n"
	}
	return "if [ -n \"$SCHEDULE\" ]; then\n" +
		"  actctl task " + name + " --schedule \"$SCHEDULE\" --frozen\n" +
		"elif [ -n \"$PROMPT\" ]; then\n" +
		"  actctl task " + name + " -p \"$PROMPT\" --frozen\n" +
		"else\n" + fallback + "fi\n"
}

// stateBranch is the branch holding an employee's instance between runs.
func stateBranch(name string) string { return "actctl/state/" + name }

func branchRestore(name string) string {
	return strings.Join([]string{
		`dir="$ACTANT_HOME/instances/` + name + `"`,
		`mkdir -p "$dir"`,
		`if git fetch --depth 1 origin "refs/heads/` + stateBranch(name) + `"; then`,
		`  git archive FETCH_HEAD | tar -x -C "$dir"`,
		`fi`,
	}, "\n") + "\n"
}

// stateFiles are what an employee's instance carries between runs: the
// agent's .heartbeat and its task logs. The rest of the instance is
// apply's, written again by the next run's task (carried, it would be
// files actctl finds and does not own, which task refuses).
var stateFiles = []string{".heartbeat", "logs"}

// statePaths is files in the instance inst, one a line (the cache and
// artifact actions' path list).
func statePaths(inst string, files []string) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString(inst + "/" + f + "\n")
	}
	return b.String()
}

// branchSave commits the instance's state (stateFiles), as one commit
// with no parent, to the state branch (force-pushed: the branch never
// grows).
func branchSave(name string) string {
	return strings.Join([]string{
		`dir="$ACTANT_HOME/instances/` + name + `"`,
		`[ -d "$dir" ] || exit 0`,
		`export GIT_DIR="$GITHUB_WORKSPACE/.git" GIT_WORK_TREE="$dir" GIT_INDEX_FILE="$RUNNER_TEMP/actctl-state.index"`,
		`cd "$dir"`,
		`for p in ` + strings.Join(stateFiles, " ") + `; do [ ! -e "$p" ] || git add -A -- "$p"; done`,
		`tree=$(git write-tree)`,
		`commit=$(git -c user.name=actctl -c user.email=actctl@users.noreply.github.com commit-tree "$tree" -m "actctl: ` + name + `'s state after run $GITHUB_RUN_ID")`,
		`git push --force origin "$commit:refs/heads/` + stateBranch(name) + `"`,
	}, "\n") + "\n"
}
