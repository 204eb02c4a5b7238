package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/tasklog"
)

const describeConfig = `package actant

skills: s: {description: "S", content: "Do it."}
prompts: p: content: "Work on {{project}} with {{team}}."
templates: dev: {backend: "claude-code", skills: ["s"], prompts: ["p"], vars: {project: "api", team: "core"}, permissions: "standard"}
templates: emp: {backend: "claude-code", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check"}}
archetypes: employee: autoStart: false
agents: dev: {template: "dev", vars: team: "infra", workDir: "sub", launchMode: "one-shot"}
agents: worker: template: "emp"
`

// TestDescribeE2E: describe AGENT shows the resolved template with the
// source and position of every value (template, agent override, archetype,
// schema default, hub source), the agent's files with their state (what
// apply would create before the first apply; synced, drift after), its
// process and its last task; -o json has the shape docs/json.md gives. An
// unknown agent is an error with "did you mean"; describe writes nothing
// (issue #22 item 18).
func TestDescribeE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, describeConfig)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	env := []string{"TZ=UTC"}
	r := actctlEnv(t, dir, home, env, "describe", "dev")
	if r.Code != 0 {
		t.Fatalf("describe: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	assertNotWritten(t, dir, "describe", "actant.lock", "actant.owned", "sub/CLAUDE.md")
	for _, w := range []string{"Status:     Missing\n", "  sub/CLAUDE.md                  -     create\n"} {
		if !strings.Contains(r.Stdout, w) {
			t.Errorf("describe before apply lacks %q:\n%s", w, r.Stdout)
		}
	}
	mustApply(t, dir, home)
	skill := filepath.Join(dir, "sub", ".claude", "skills", "s", "SKILL.md")
	if err := os.WriteFile(skill, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = actctlEnv(t, dir, home, env, "describe", "dev")
	cue := filepath.Join(dir, "actant.cue")
	// Columns are compared with their padding collapsed to two spaces
	// (the width depends on the temporary directory's name).
	want := `Name:  dev
Status:  OutOfSync
Dir:  ROOT/sub
Modes:  open, chat, run, proxy
Details:  drift sub/.claude/skills/s/SKILL.md: edited since the last apply; kept (use --force to overwrite it, with a backup)
Resolved:
  FIELD  VALUE  SOURCE  POSITION
  template  dev  agent  CUE:8:25
  version  0.1.0  default  -
  description  -  default  -
  backend  claude-code  template  CUE:5:27
  archetype  tool  default  -
  launchMode  one-shot  agent  CUE:8:81
  workspacePolicy  -  default  -
  skills  ["s"]  template  CUE:5:50
  prompts  ["p"]  template  CUE:5:66
  mcpServers  -  default  -
  commands  -  default  -
  subAgents  -  default  -
  permissions  "standard"  template  CUE:5:124
  schedule  -  default  -
  settings  -  default  -
  vars.project  api  template  CUE:5:89
  vars.team  infra  agent  CUE:8:44
  dir  ROOT/sub  agent  CUE:8:62
  workDirConflict  append  archetype tool  -
Files:
  PATH  MODE  STATE
  sub/.claude/settings.json  keys  synced
  sub/.claude/skills/s/SKILL.md  file  drift
  sub/.gitignore  block  synced
  sub/CLAUDE.md  block  synced
Process:  -
Last task:  -
`
	want = strings.ReplaceAll(strings.ReplaceAll(want, "CUE", cue), "ROOT", dir)
	if r.Code != 0 || collapseColumns(r.Stdout) != want || r.Stderr != "" {
		t.Errorf("describe dev: exit %d\n%s%s\nwant:\n%s", r.Code, r.Stdout, r.Stderr, want)
	}

	// The employee's last task, and the JSON.
	logs := filepath.Join(home, "instances", "worker", "logs")
	start := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	logTask(t, logs, tasklog.Task{ID: 1, Kind: "heartbeat", Source: "heartbeat", Prompt: "check", Started: start},
		tasklog.Summary{Time: start.Add(2 * time.Second), StopReason: "end_turn"})
	logTask(t, logs, tasklog.Task{ID: 2, Kind: "heartbeat", Source: "heartbeat", Prompt: "check", Started: start.Add(time.Hour)},
		tasklog.Summary{Time: start.Add(time.Hour + 1500*time.Millisecond), StopReason: "refusal"})
	r = actctlEnv(t, dir, home, env, "describe", "worker")
	for _, w := range []string{"  launchMode  acp-background  archetype employee  -\n", "  schedule  {\"heartbeat\":{\"interval\":\"1h\",\"prompt\":\"check\"}}  template", "Last task:  #2 heartbeat (heartbeat), ended 2026-11-22 10:00:01 after 1.5s: refusal\n"} {
		if !strings.Contains(collapseColumns(r.Stdout), w) {
			t.Errorf("describe worker lacks %q:\n%s%s", w, r.Stdout, r.Stderr)
		}
	}
	j := actctl(t, dir, home, "-o", "json", "describe", "worker")
	var got map[string]any
	if err := json.Unmarshal([]byte(j.Stdout), &got); err != nil || j.Code != 0 {
		t.Fatalf("describe -o json: exit %d %v\n%s%s", j.Code, err, j.Stdout, j.Stderr)
	}
	if lt, _ := got["lastTask"].(map[string]any); lt == nil || lt["task"] != 2.0 || lt["stopReason"] != "refusal" {
		t.Errorf("lastTask: %v", got["lastTask"])
	}

	// A process serving the agent (this test's own, which is alive).
	writeFiles(t, dir, map[string]string{"sub/.actant/agents/dev.json": fmt.Sprintf(`{"processOwnership": "managed", "status": "running", "pid": %d}`, os.Getpid())})
	j = actctl(t, dir, home, "-o", "json", "describe", "dev")
	lastTask := got["lastTask"]
	got = nil
	if err := json.Unmarshal([]byte(j.Stdout), &got); err != nil || j.Code != 0 {
		t.Fatalf("describe -o json: exit %d %v\n%s%s", j.Code, err, j.Stdout, j.Stderr)
	}
	if p, _ := got["process"].(map[string]any); p == nil || p["status"] != "running" || p["pid"] != float64(os.Getpid()) || p["processOwnership"] != "managed" {
		t.Errorf("process: %v", got["process"])
	}
	got["lastTask"] = lastTask // the worker's: every key of the shape at once
	checkDocumented(t, "describe", got)
	if r := actctl(t, dir, home, "describe", "dev"); !strings.Contains(r.Stdout, fmt.Sprintf("Process:    running pid %d (managed)\n", os.Getpid())) {
		t.Errorf("describe dev:\n%s%s", r.Stdout, r.Stderr)
	}

	// An unknown agent.
	r = actctl(t, dir, home, "describe", "devv")
	if r.Code != 1 || r.Stderr != "actctl: unknown agent \"devv\" (did you mean \"dev\"?)\n" {
		t.Errorf("describe devv: exit %d %q", r.Code, r.Stderr)
	}
}

// collapseColumns puts two spaces for every run of two or more.
func collapseColumns(s string) string {
	return regexp.MustCompile(`  +`).ReplaceAllString(s, "  ")
}

// TestDescribeHubTemplate: the values of a hub template are the hub
// source's; the agent's overrides stay the agent's.
func TestDescribeHubTemplate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file:// URL of a temporary path")
	}
	repo := filepath.Join(t.TempDir(), "hub")
	writeFiles(t, repo, map[string]string{
		"actant.json":             `{"name":"h","version":"1.0.0"}`,
		"prompts/sys.json":        `{"name":"sys","content":"You review."}`,
		"templates/reviewer.json": `{"name":"reviewer","version":"1.2.0","archetype":"tool","backend":{"type":"claude-code"},"domainContext":{"prompts":["sys"]}}`,
	})
	hubGit(t, repo, "init", "-q", "-b", "main")
	hubGit(t, repo, "add", "-A")
	hubGit(t, repo, "commit", "-q", "-m", "one")
	root, home := t.TempDir(), t.TempDir()
	writeConfig(t, root, "package actant\nhub: team: url: \"file://"+repo+"\"\nagents: rev: {template: \"team@reviewer\", permissions: \"readonly\"}\n")
	mustApply(t, root, home)
	j := actctl(t, root, home, "-o", "json", "describe", "rev")
	var got struct {
		Resolved []struct{ Field, Source string } `json:"resolved"`
	}
	if err := json.Unmarshal([]byte(j.Stdout), &got); err != nil {
		t.Fatalf("describe: %v\n%s%s", err, j.Stdout, j.Stderr)
	}
	sources := map[string]string{}
	for _, v := range got.Resolved {
		sources[v.Field] = v.Source
	}
	for f, want := range map[string]string{"version": "hub team", "backend": "hub team", "prompts": "hub team", "permissions": "agent", "template": "agent", "mcpServers": "default"} {
		if sources[f] != want {
			t.Errorf("%s: source %q, want %q (%v)", f, sources[f], want, sources)
		}
	}
	if !slices.Contains([]string{"hub team"}, sources["archetype"]) {
		t.Errorf("archetype: %q", sources["archetype"])
	}
}
