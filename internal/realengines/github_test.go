package realengines

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
	"go.yaml.in/yaml/v3"
)

// workflow is the part of a rendered workflow the tier executes.
type workflow struct {
	Jobs map[string]struct {
		Env   map[string]string
		Steps []step
	}
}

// step is one step of a job.
type step struct {
	Name string
	Uses string
	Run  string
	If   string
	Env  map[string]string
}

// builtinBackends names the backends actctl defines itself.
func builtinBackends(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "actant.cue", "package actant\n")
	cfg, err := schema.LoadDir(dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range cfg.Backends {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// renderWorkflows applies a workspace with one employee on backend and
// returns its rendered workflows, or the refusal of apply.
func renderWorkflows(t *testing.T, ctx context.Context, bin, backend, state string) ([]string, string) {
	t.Helper()
	ws := t.TempDir()
	writeFile(t, ws, "actant.cue", `package actant
deploy: github: {state: "`+state+`", actctl: "v0.9.0"}
mcpServers: tracker: {command: "tracker-mcp", install: "npm install -g @acme/tracker-mcp"}
templates: emp: {backend: "`+backend+`", archetype: "employee", mcpServers: ["tracker"], schedule: heartbeat: {interval: "30m", prompt: "look"}}
agents: triage: template: "emp"
`)
	out, err := runErr(ctx, ws, append(os.Environ(), "ACTANT_HOME="+t.TempDir()), bin, "apply")
	if err != nil {
		return nil, out
	}
	files, _ := filepath.Glob(filepath.Join(ws, ".github", "workflows", "*.yml"))
	if len(files) == 0 {
		t.Fatalf("apply (backend %s) rendered no workflow:\n%s", backend, out)
	}
	return files, ""
}

// TestGitHubWorkflowsLint runs actionlint, with shellcheck on the `run:`
// scripts, on the workflow rendered for an employee of every built-in
// backend (every state carrier), and runs each workflow's install steps
// under GitHub's default shell with stand-ins for the installers.
func TestGitHubWorkflowsLint(t *testing.T) {
	requireTier(t)
	ctx, cancel := context.WithTimeout(t.Context(), guard)
	defer cancel()
	actionlint, shellcheck := tool(t, "actionlint"), tool(t, "shellcheck")
	bin := actctlBin(t)
	var files []string
	rendered := map[string]bool{}
	for _, b := range builtinBackends(t) {
		for _, state := range []string{"branch", "cache", "artifact", "none"} {
			got, refused := renderWorkflows(t, ctx, bin, b, state)
			if refused != "" {
				t.Logf("backend %s: no workflow (apply refuses): %s", b, strings.TrimSpace(refused))
				continue
			}
			rendered[b] = true
			files = append(files, got...)
		}
	}
	if !rendered["claude-code"] {
		t.Fatal("no workflow rendered for claude-code")
	}
	out, err := runErr(ctx, "", os.Environ(), actionlint, append([]string{"-no-color", "-shellcheck", shellcheck}, files...)...)
	if err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
	t.Logf("actionlint with shellcheck: %d workflows of %d backends", len(files), len(rendered))
	// Not blind: a script shellcheck alone objects to fails.
	bad := filepath.Join(t.TempDir(), ".github", "workflows", "bad.yml")
	writeFile(t, "/", bad, "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          for f in $(ls); do echo \"$f\"; done\n")
	if out, err := runErr(ctx, "", os.Environ(), actionlint, "-no-color", "-shellcheck", shellcheck, bad); err == nil || !strings.Contains(out, "shellcheck") {
		t.Errorf("actionlint does not run shellcheck (%v):\n%s", err, out)
	}
	for _, f := range files {
		runInstallSteps(t, ctx, f)
	}
}

// runInstallSteps runs the steps of a workflow that prepare the runner
// before the task (named "Install ...", then actctl's home and "Trust
// ...") under GitHub's default shell, with stand-ins for go, npm, curl
// and uv that record their arguments: each must be a command that runs;
// the employee's MCP server is installed, and a trust step writes its
// tool's file in the runner's home, naming the employee's directory.
func runInstallSteps(t *testing.T, ctx context.Context, file string) {
	t.Helper()
	r := newRunner(t, nil, "")
	var names []string
	_, steps := readWorkflow(t, file)
	for _, s := range steps {
		if s.Run == "" || !strings.HasPrefix(s.Name, "Install") && !strings.HasPrefix(s.Name, "Trust") && s.Name != "Set actctl's home" {
			continue
		}
		names = append(names, s.Name)
		if out, err := r.step(ctx, s); err != nil {
			t.Errorf("%s: step %q: %v\n%s\n%s", filepath.Base(file), s.Name, err, s.Run, out)
		}
		if backend, ok := strings.CutPrefix(s.Name, "Trust triage's directory for "); ok {
			checkTrustFile(t, file, backend, filepath.Join(r.env["HOME"], trustFiles[backend]), r.env["ACTANT_HOME"]+"/instances/triage")
			t.Logf("the trust step for %s wrote %s", backend, trustFiles[backend])
		}
	}
	if !slices.Contains(names, "Install MCP server tracker") {
		t.Errorf("%s: the MCP server is not installed: %v", file, names)
	}
}

// trustFiles are, per backend the renderers trust ahead, the file of
// the home that holds the trust (docs/deploy.md, "Trust gates on the
// targets").
var trustFiles = map[string]string{"codex": ".codex/config.toml", "gemini": ".gemini/trustedFolders.json", "pi": ".pi/agent/settings.json"}

// checkTrustFile checks that the trust step of workflow file wrote the
// backend's file at p, naming dir (pi's trusts every directory).
func checkTrustFile(t *testing.T, file, backend, p, dir string) {
	t.Helper()
	b, err := os.ReadFile(p)
	want := dir
	if backend == "pi" {
		want = `"defaultProjectTrust": "always"`
	}
	if err != nil || !strings.Contains(string(b), want) {
		t.Errorf("%s: the trust step for %s left %s: %v\n%s\nwant it to hold %s", filepath.Base(file), backend, p, err, b, want)
	}
}

// readWorkflow returns the environment and steps of a workflow's jobs:
// its task job's, then (state "branch") its state job's, which needs it.
// The tier runs them on one runner: the artifact the task job hands the
// state job is already where the state job takes it.
func readWorkflow(t *testing.T, file string) (map[string]string, []step) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	task, ok := w.Jobs["task"]
	if !ok || len(w.Jobs) > 2 {
		t.Fatalf("%s: jobs %v, want task (and state)", file, slices.Collect(maps.Keys(w.Jobs)))
	}
	env, steps := maps.Clone(task.Env), slices.Clone(task.Steps)
	if st, ok := w.Jobs["state"]; ok {
		maps.Copy(env, st.Env)
		steps = append(steps, st.Steps...)
	} else if len(w.Jobs) != 1 {
		t.Fatalf("%s: jobs %v, want task (and state)", file, slices.Collect(maps.Keys(w.Jobs)))
	}
	return env, steps
}

// runner executes `run:` steps as a GitHub runner does: GitHub's default
// shell (`bash --noprofile --norc -eo pipefail {0}`), in
// $GITHUB_WORKSPACE, with the runner's variables and what earlier steps
// appended to $GITHUB_ENV.
type runner struct {
	t          *testing.T
	dir, stubs string
	env        map[string]string
}

// newRunner makes a runner's directories, the stand-in installers, and the
// job's environment (secrets given dummy values). The stand-in go
// installs actctl as the binary at actctl, when given (setup-go puts
// ~/go/bin on PATH).
func newRunner(t *testing.T, jobEnv map[string]string, actctl string) *runner {
	t.Helper()
	root := t.TempDir()
	r := &runner{t: t, dir: filepath.Join(root, "workspace"), stubs: filepath.Join(root, "stubs"), env: map[string]string{}}
	for _, d := range []string{r.dir, r.stubs, filepath.Join(root, "temp"), filepath.Join(root, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"npm", "curl", "go", "uv"} {
		stub := "#!/bin/sh\nprintf '%s\\n' \"" + name + " $*\" >> \"" + filepath.Join(root, "installs.log") + "\"\n"
		if name == "go" && actctl != "" {
			stub += "case \"$1 $2\" in \"install github.com/actctl/actctl/cmd/actctl@\"*) mkdir -p \"$HOME/go/bin\" && cp " + actctl + " \"$HOME/go/bin/actctl\";; esac\n"
		}
		writeFile(t, r.stubs, name, stub)
		os.Chmod(filepath.Join(r.stubs, name), 0o755)
	}
	home := filepath.Join(root, "home")
	for k, v := range map[string]string{
		"PATH":                r.stubs + ":" + filepath.Join(home, "go", "bin") + ":" + os.Getenv("PATH"),
		"HOME":                home,
		"CI":                  "true",
		"GITHUB_ACTIONS":      "true",
		"GITHUB_WORKSPACE":    r.dir,
		"RUNNER_TEMP":         filepath.Join(root, "temp"),
		"GITHUB_ENV":          filepath.Join(root, "github_env"),
		"GITHUB_STEP_SUMMARY": filepath.Join(root, "summary.md"),
		"GITHUB_RUN_ID":       "4242",
		"GITHUB_SERVER_URL":   "https://github.com",
	} {
		r.env[k] = v
	}
	for k, v := range jobEnv {
		r.env[k] = dummySecret(v)
	}
	return r
}

// dummySecret gives a secret's expression a stand-in value.
func dummySecret(v string) string {
	if strings.Contains(v, "${{") {
		return "dummy-secret"
	}
	return v
}

// step runs one step and folds $GITHUB_ENV into the environment.
func (r *runner) step(ctx context.Context, s step) (string, error) {
	script := filepath.Join(r.env["RUNNER_TEMP"], "step.sh")
	if err := os.WriteFile(script, []byte(r.expand(s.Run)), 0o644); err != nil {
		r.t.Fatal(err)
	}
	env := []string{}
	for k, v := range r.env {
		env = append(env, k+"="+v)
	}
	for k, v := range s.Env {
		env = append(env, k+"="+r.expand(v))
	}
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir, cmd.Env = r.dir, env
	out, err := cmd.CombinedOutput()
	r.readEnvFile()
	return string(out), err
}

// expand replaces the expressions a runner would, and fails on others.
func (r *runner) expand(s string) string {
	for _, kv := range [][2]string{
		{"${{ runner.temp }}", r.env["RUNNER_TEMP"]}, {"${{ github.run_id }}", r.env["GITHUB_RUN_ID"]},
		{"${{ github.workspace }}", r.dir}, {"${{ inputs.prompt }}", ""}, {"${{ github.event.schedule }}", ""},
	} {
		s = strings.ReplaceAll(s, kv[0], kv[1])
	}
	s = strings.ReplaceAll(s, "${{ github.token }}", "dummy-token")
	s = secretExpr.ReplaceAllString(s, "dummy-secret")
	if strings.Contains(s, "${{") {
		r.t.Fatalf("an expression the tier does not evaluate: %s", s)
	}
	return s
}

// secretExpr is a secret's expression, given a stand-in value.
var secretExpr = regexp.MustCompile(`\$\{\{ secrets\.[A-Za-z_][A-Za-z0-9_]* \}\}`)

// readEnvFile reads NAME=value lines of $GITHUB_ENV.
func (r *runner) readEnvFile() {
	b, err := os.ReadFile(r.env["GITHUB_ENV"])
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.Contains(k, "<<") {
			r.env[k] = v
		}
	}
}

// TestGitHubStateBranch runs an employee's rendered workflow (state
// "branch") twice as a runner would, every `run:` step under GitHub's
// default shell with real git against a bare file:// origin and the task
// run by actctl on the scripted agent: the state branch receives
// .heartbeat and the task logs as one commit without parent, and the
// second run starts from the first one's state.
func TestGitHubStateBranch(t *testing.T) {
	requireTier(t)
	ctx, cancel := context.WithTimeout(t.Context(), guard)
	defer cancel()
	git := tool(t, "git")
	bin := actctlBin(t)
	root := t.TempDir()
	ws, origin := filepath.Join(root, "ws"), filepath.Join(root, "origin.git")
	writeFile(t, ws, "actant.cue", "package actant\n\n"+scriptedBackend(t)+`
deploy: github: {state: "branch", actctl: "v0.9.0"}
templates: emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "30m", prompt: "hello"}}
agents: triage: template: "emp"
`)
	env := append(os.Environ(), "ACTANT_HOME="+filepath.Join(root, "home"), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t.invalid")
	run(t, ctx, ws, env, bin, "apply")
	// The workspace's own state stays out of git: a committed
	// .actant/state.json names the directory apply ran in, and the
	// runner's clone is another one (an employee-only workspace gets no
	// .gitignore block from apply).
	writeFile(t, ws, ".gitignore", "/.actant/\n")
	run(t, ctx, root, env, git, "init", "-q", "--bare", "-b", "main", origin)
	run(t, ctx, ws, env, git, "init", "-q", "-b", "main")
	run(t, ctx, ws, env, git, "add", "-A")
	run(t, ctx, ws, env, git, "commit", "-qm", "workspace")
	run(t, ctx, ws, env, git, "push", "-q", "file://"+origin, "main")
	file := filepath.Join(ws, ".github", "workflows", "actctl-triage.yml")
	first := runWorkflow(t, ctx, file, origin, bin)
	t.Logf("the state branch after the first run: %v", first)
	second := runWorkflow(t, ctx, file, origin, bin)
	tasks := func(files []string) int {
		n := 0
		for _, f := range files {
			if strings.HasPrefix(f, "logs/tasks/") {
				n++
			}
		}
		return n
	}
	for i, files := range [][]string{first, second} {
		if !slices.Contains(files, ".heartbeat") || tasks(files) == 0 {
			t.Errorf("run %d: the state branch holds %v, want .heartbeat and logs/tasks/", i+1, files)
		}
	}
	if tasks(second) <= tasks(first) {
		t.Errorf("the second run did not start from the first one's state: %v, then %v", first, second)
	}
}

// runWorkflow runs the workflow's `run:` steps in a fresh clone of origin
// (what actions/checkout gives) and returns the files of the state branch
// it pushed, which must be one commit without parent; the task's summary
// is in $GITHUB_STEP_SUMMARY.
func runWorkflow(t *testing.T, ctx context.Context, file, origin, actctl string) []string {
	t.Helper()
	jobEnv, steps := readWorkflow(t, file)
	r := newRunner(t, jobEnv, actctl)
	gitEnv := append(os.Environ(), "HOME="+r.env["HOME"])
	run(t, ctx, r.dir, gitEnv, "git", "clone", "-q", "file://"+origin, ".")
	for _, s := range steps {
		if s.Uses != "" {
			t.Logf("step %q: %s (an action: not run here)", s.Name, s.Uses)
			continue
		}
		out, err := r.step(ctx, s)
		if err != nil {
			t.Fatalf("step %q: %v\n%s\n%s", s.Name, err, s.Run, out)
		}
	}
	if b, err := os.ReadFile(r.env["GITHUB_STEP_SUMMARY"]); err != nil || len(b) == 0 {
		t.Errorf("the task wrote no step summary (%v)", err)
	}
	branch := "refs/heads/actctl/state/triage"
	if n := strings.TrimSpace(run(t, ctx, "", gitEnv, "git", "--git-dir", origin, "rev-list", "--count", branch)); n != "1" {
		t.Errorf("the state branch has %s commits, want 1 (no parent)", n)
	}
	return strings.Fields(run(t, ctx, "", gitEnv, "git", "--git-dir", origin, "ls-tree", "-r", "--name-only", branch))
}
