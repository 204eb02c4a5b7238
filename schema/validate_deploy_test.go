package schema

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const deployBase = `package actant
deploy: {
	kubernetes: {namespace: "agents", image: "ghcr.io/acme/agents@sha256:0123", secret: "actctl-agents"}
	github: {}
}
templates: emp: {
	backend:   "claude-code"
	archetype: "employee"
	schedule: {
		heartbeat: {interval: "INTERVAL", prompt: "look"}
		cron: [{pattern: "PATTERN", prompt: "report", timezone: "Europe/Paris"}]
	}
}
templates: svc: {backend: "claude-code", archetype: "service"}
agents: e: {template: "emp", deploy: {kubernetes: shape: "SHAPE", engines: ["kubernetes", "github"]}}
agents: s: {template: "svc"SVC}
`

func loadDeploy(t *testing.T, interval, pattern, shape, svc string) (*Config, error) {
	t.Helper()
	src := strings.NewReplacer("INTERVAL", interval, "PATTERN", pattern, "SHAPE", shape, "SVC", svc).Replace(deployBase)
	dir := writeWorkspace(t, map[string]string{"actant.cue": src})
	return LoadDir(dir, filepath.Join(t.TempDir(), "home"))
}

// TestDeployValid: a schedule every target can express loads without
// error; entries are translated for each target.
func TestDeployValid(t *testing.T) {
	cfg, err := loadDeploy(t, "15m", "0 9 * * 7", "cron", "")
	if err != nil {
		t.Fatal(err)
	}
	es, ds := cfg.TargetSchedule("e", TargetKubernetes, mustTime(t, "2027-01-01T00:00:00Z"))
	if len(ds) != 0 || len(es) != 2 {
		t.Fatalf("entries %+v, diags %v", es, ds)
	}
	if es[0] != (ScheduleEntry{Source: "heartbeat", Pattern: "*/15 * * * *", Timezone: "UTC", field: es[0].field}) {
		t.Errorf("heartbeat %+v", es[0])
	}
	if e := es[1]; e.Source != "cron:0" || e.Pattern != "0 9 * * 0" || e.Timezone != "Europe/Paris" || e.Prompt != "report" {
		t.Errorf("cron %+v", e)
	}
}

// TestDeployInvalid: what a target cannot run is an error at the field
// that asks for it; nothing else is reported.
func TestDeployInvalid(t *testing.T) {
	for _, tc := range []struct {
		interval, pattern, shape, svc string
		want                          string
	}{
		{"45m", "0 9 * * 1", "resident", "", `actant.cue:10:25: templates.emp.schedule.heartbeat.interval: agent "e" on GitHub Actions: an interval of 45m0s has no cron equivalent`},
		{"2m", "0 9 * * 1", "resident", "", `actant.cue:10:25: templates.emp.schedule.heartbeat.interval: agent "e" on GitHub Actions: a heartbeat every 2m0s is more often than GitHub runs schedules`},
		{"30m", "*/2 * * * *", "resident", "", `actant.cue:11:20: templates.emp.schedule.cron[0].pattern: agent "e" on GitHub Actions: "*/2 * * * *" runs every 2m0s`},
		{"30m", "0 9 * * 1", "resident", `, deploy: github: true`, `actant.cue:16:46: agents.s.deploy.github: agent "s" is a service: GitHub Actions runs scheduled tasks only`},
		{"30m", "0 9 * * 1", "resident", `, deploy: kubernetes: shape: "cron"`, `agents.s.deploy.kubernetes.shape: agent "s" is a service: only an employee can run as CronJobs`},
		{"30m", "0,30 * * * *", "resident", "", `actant.cue:11:20: templates.emp.schedule.cron[0].pattern: agent "e" on GitHub Actions: heartbeat and cron:0 both run "*/30 * * * *"`},
	} {
		_, err := loadDeploy(t, tc.interval, tc.pattern, tc.shape, tc.svc)
		var ds Diagnostics
		if !errors.As(err, &ds) {
			t.Errorf("%+v: err = %v, want diagnostics", tc, err)
			continue
		}
		if len(ds.Errors()) != 1 || !strings.Contains(ds.Errors()[0].String(), tc.want) {
			t.Errorf("%+v:\ngot  %v\nwant %s", tc, ds.Errors(), tc.want)
		}
	}
}

// TestDeployEngines: an employee or a service that several declared
// targets would run is refused at its position, naming them and how to choose; a
// choice (one engine, or several on purpose) is accepted, one naming an
// undeclared target is refused at its element.
func TestDeployEngines(t *testing.T) {
	const base = `package actant
deploy: {
	kubernetes: {namespace: "agents", image: "ghcr.io/acme/agents@sha256:0123", secret: "actctl-agents"}
	DEPLOY
}
templates: emp: {backend: "claude-code", archetype: "employee", schedule: heartbeat: {interval: "30m", prompt: "look"}}
templates: svc: {backend: "claude-code", archetype: "service"}
agents: s: {template: "svc"SVC}
agents: e: {template: "emp"AGENT}
`
	for _, tc := range []struct{ deploy, agent, want, svc string }{
		{`github: {}`, ``, `actant.cue:9:9: agents.e: employee "e" is rendered by kubernetes, github at once: each would run its schedule (every task twice, its state split); choose with agents.e.deploy.engines: ["kubernetes"]`, ""},
		{`github: {}, systemd: {}`, `, deploy: github: false`, `agents.e: employee "e" is rendered by kubernetes, systemd at once`, ""},
		{`systemd: {}`, `, deploy: engines: ["github"]`, `actant.cue:9:48: agents.e.deploy.engines[0]: agent "e" chooses github, which deploy: does not declare (it declares: kubernetes, systemd)`, `, deploy: engines: ["systemd"]`},
		{`github: {}, systemd: {}`, `, deploy: engines: ["systemd"]`, ``, ""},
		{`github: {}`, `, deploy: engines: ["kubernetes", "github"]`, ``, ""},
		{`github: {}`, `, deploy: github: false`, ``, ""},
		{`secretKeys: []`, ``, ``, ""},
		{`systemd: scope: "system"`, `, deploy: engines: ["systemd"]`, `deploy.systemd.scope: a system unit without a user runs actctl and every agent as root: give deploy.systemd.user`, ""},
		{`systemd: {scope: "system", user: "agents"}`, `, deploy: engines: ["systemd"]`, ``, ""},
		{`systemd: {user: "agents"}`, `, deploy: engines: ["systemd"]`, `deploy.systemd.user: a user unit runs as the user whose manager starts it`, ""},
		{`systemd: {}`, `, deploy: engines: ["kubernetes"]`, `deploy.systemd: every agent up runs (employees, services, any agent that offers start) chooses other engines`, ""},
		{`systemd: {}`, `, deploy: engines: ["systemd"]`, `actant.cue:8:9: agents.s: service "s" is rendered by kubernetes, systemd at once: each would run it (two sessions answering apart, its hooks run twice, its state split); choose with agents.s.deploy.engines: ["kubernetes"]`, " "},
		{`systemd: {}`, `, deploy: engines: ["systemd"]`, ``, `, deploy: engines: ["kubernetes", "systemd"]`},
		{`github: {}`, `, deploy: engines: ["github"]`, ``, " "},
	} {
		svc := `, deploy: engines: ["kubernetes"]` // the service chooses unless the case says
		if tc.svc != "" {
			svc = strings.TrimSpace(tc.svc)
		}
		src := strings.NewReplacer("DEPLOY", tc.deploy, "AGENT", tc.agent, "SVC", svc).Replace(base)
		_, err := LoadDir(writeWorkspace(t, map[string]string{"actant.cue": src}), filepath.Join(t.TempDir(), "home"))
		var ds Diagnostics
		errors.As(err, &ds)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", tc, err)
			}
			continue
		}
		if len(ds.Errors()) != 1 || !strings.Contains(ds.Errors()[0].String(), tc.want) {
			t.Errorf("%+v:\ngot  %v\nwant %s", tc, err, tc.want)
		}
	}
}

// TestDeployKubernetesInterval: an interval that is no cron is refused
// for a cron-shaped employee only; a resident one keeps actctl's clock.
func TestDeployKubernetesInterval(t *testing.T) {
	src := strings.NewReplacer("\tgithub: {}\n", "", `, "github"]`, `]`).Replace(deployBase)
	for _, shape := range []string{"cron", "resident"} {
		s := strings.NewReplacer("INTERVAL", "45m", "PATTERN", "0 9 * * 1", "SHAPE", shape, "SVC", "").Replace(src)
		_, err := LoadDir(writeWorkspace(t, map[string]string{"actant.cue": s}), filepath.Join(t.TempDir(), "home"))
		if shape == "resident" && err != nil {
			t.Errorf("resident: %v", err)
		}
		if shape == "cron" && (err == nil || !strings.Contains(err.Error(), `actant.cue:9:25: templates.emp.schedule.heartbeat.interval: agent "e" on Kubernetes (shape cron): an interval of 45m0s has no cron equivalent`)) {
			t.Errorf("cron: %v", err)
		}
	}
}

// TestDeployWarnings: an image without a digest, and an entry a target's
// daylight saving rule runs otherwise, are warnings at their fields.
func TestDeployWarnings(t *testing.T) {
	src := strings.NewReplacer("INTERVAL", "30m", "PATTERN", "30 2 * * *", "SHAPE", "cron", "SVC", "", "@sha256:0123", ":latest").Replace(deployBase)
	cfg, err := LoadDir(writeWorkspace(t, map[string]string{"actant.cue": src}), filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range cfg.Warnings {
		got = append(got, w.String())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		`actant.cue:3:43: warning: deploy.kubernetes.image: image "ghcr.io/acme/agents:latest" is not pinned by digest`,
		`actant.cue:4:2: warning: deploy.github: the workflows install actctl@latest: give deploy.github.actctl a version`,
		`templates.emp.schedule.cron[0].pattern: agent "e" on Kubernetes (shape cron): "30 2 * * *" falls in the daylight saving change of`,
		`templates.emp.schedule.cron[0].pattern: agent "e" on GitHub Actions: "30 2 * * *" falls in the daylight saving change of`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %s:\n%s", want, all)
		}
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// TestDeployDirs: a target directory outside the root or among actctl's
// own files is refused at its field.
func TestDeployDirs(t *testing.T) {
	for _, dir := range []string{"../out", "/abs", ".actant/k8s", ".git", "actant.owned"} {
		src := strings.Replace(deployBase, `secret: "actctl-agents"}`, `secret: "actctl-agents", dir: "`+dir+`"}`, 1)
		src = strings.NewReplacer("INTERVAL", "30m", "PATTERN", "0 9 * * 1", "SHAPE", "resident", "SVC", "").Replace(src)
		_, err := LoadDir(writeWorkspace(t, map[string]string{"actant.cue": src}), filepath.Join(t.TempDir(), "home"))
		if err == nil || !strings.Contains(err.Error(), `deploy.kubernetes.dir: dir "`+dir+`": `) {
			t.Errorf("dir %q: %v", dir, err)
		}
	}
}

// TestDeployRepoSSH: a repository URL cloned over SSH without
// deploy.kubernetes.repo.sshSecret is refused at the URL, saying why and
// how; with the Secret, or over https, it loads.
func TestDeployRepoSSH(t *testing.T) {
	const base = `package actant
deploy: kubernetes: {namespace: "agents", image: "ghcr.io/acme/agents@sha256:0123", secret: "actctl-agents", repo: REPO}
`
	for repo, want := range map[string]string{
		`{url: "git@github.com:acme/team.git"}`:                               `actant.cue:2:122: deploy.kubernetes.repo.url: "git@github.com:acme/team.git" is cloned over SSH, and a pod has no key and no known_hosts: give deploy.kubernetes.repo.sshSecret`,
		`{url: "ssh://git@github.com/acme/team.git"}`:                         `deploy.kubernetes.repo.url: "ssh://git@github.com/acme/team.git" is cloned over SSH`,
		`{url: "git@github.com:acme/team.git", sshSecret: "team-deploy-key"}`: ``,
		`{url: "https://github.com/acme/team.git"}`:                           ``,
	} {
		src := strings.Replace(base, "REPO", repo, 1)
		_, err := LoadDir(writeWorkspace(t, map[string]string{"actant.cue": src}), filepath.Join(t.TempDir(), "home"))
		var ds Diagnostics
		errors.As(err, &ds)
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", repo, err)
			}
			continue
		}
		if len(ds.Errors()) != 1 || !strings.Contains(ds.Errors()[0].String(), want) {
			t.Errorf("%s:\ngot  %v\nwant %s", repo, err, want)
		}
	}
}

// TestIsSSHURL: the URL forms git clones over SSH.
func TestIsSSHURL(t *testing.T) {
	for u, want := range map[string]bool{
		"git@github.com:acme/team.git":       true,
		"github.com:acme/team":               true,
		"ssh://git@github.com/acme/team.git": true,
		"git+ssh://host/team":                true,
		"https://github.com/acme/team.git":   false,
		"file:///srv/git/team":               false,
		"/srv/git/team":                      false,
		"./a:b":                              false,
	} {
		if got := IsSSHURL(u); got != want {
			t.Errorf("IsSSHURL(%q) = %v, want %v", u, got, want)
		}
	}
}

// TestDeployGitHubToken: an employee on GitHub Actions reading a
// variable named GITHUB_* is refused (GitHub refuses such a repository
// secret) but for GITHUB_TOKEN, the job token, which is warned about
// until the employee declares the permissions it needs; a scope GitHub
// does not know is refused by the schema.
func TestDeployGitHubToken(t *testing.T) {
	const base = `package actant
deploy: github: {}
mcpServers: gh: {command: "github-mcp-server", env: TOKEN: "${VAR}"}
templates: emp: {backend: "claude-code", archetype: "employee", mcpServers: ["gh"], schedule: heartbeat: {interval: "30m", prompt: "look"}}
agents: e: {template: "emp"AGENT}
`
	for _, tc := range []struct{ v, agent, err, warn string }{
		{"GITHUB_TOKEN", ``, ``, `actant.cue:5:9: warning: agents.e: agent "e" reads GITHUB_TOKEN: on GitHub Actions that is the job's token, which may only read the repository's contents; declare what it needs: agents.e.deploy.githubPermissions: {issues: "write"}`},
		{"GITHUB_TOKEN", `, deploy: githubPermissions: issues: "write"`, ``, ``},
		{"GITHUB_PAT", ``, `actant.cue:5:9: agents.e: agent "e" on GitHub Actions needs GITHUB_PAT, and GitHub refuses a repository secret whose name starts with GITHUB_: read it under another name (${ACTCTL_GITHUB_PAT}), or leave the agent off GitHub`, ``},
		{"GITHUB_PAT", `, deploy: github: false`, ``, ``},
		{"GH_PAT", ``, ``, ``},
		{"GITHUB_TOKEN", `, deploy: githubPermissions: issue: "write"`, `agents.e.deploy.githubPermissions.issue`, ``},
	} {
		src := strings.NewReplacer("VAR", tc.v, "AGENT", tc.agent).Replace(base)
		cfg, err := LoadDir(writeWorkspace(t, map[string]string{"actant.cue": src}), filepath.Join(t.TempDir(), "home"))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: got %v, want %s", tc, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", tc, err)
			continue
		}
		var got []string
		for _, w := range cfg.Warnings {
			if strings.Contains(w.String(), "GITHUB") || strings.Contains(w.String(), "githubPermissions") {
				got = append(got, w.String())
			}
		}
		if all := strings.Join(got, "\n"); (tc.warn == "") != (all == "") || !strings.Contains(all, tc.warn) {
			t.Errorf("%+v: warnings %q, want %q", tc, all, tc.warn)
		}
	}
}

// TestDeployHeadlessTrust: an agent on a deploy target whose backend
// gates the project behind a trust prompt the renderer cannot answer
// (Qwen Code; Codex or Gemini on systemd) is warned about at its
// position, saying what may not load and how to trust ahead; one the
// renderer trusts ahead (Codex, Gemini, pi on GitHub and Kubernetes),
// one whose gate needs no answer over ACP (Claude Code), or one not
// deployed, is not.
func TestDeployHeadlessTrust(t *testing.T) {
	const base = `package actant
deploy: {github: {actctl: "v1.0.0"}, TARGET}
templates: emp: {backend: "BACKEND", archetype: "employee", schedule: heartbeat: {interval: "30m", prompt: "look"}}
agents: e: {template: "emp"AGENT}
`
	for _, tc := range []struct{ backend, target, agent, want string }{
		{"qwen", ``, ``, `actant.cue:4:9: warning: agents.e: agent "e" runs backend qwen on github, where nothing answers a trust prompt: what actctl writes under .qwen/`},
		{"gemini", `systemd: {}`, `, deploy: engines: ["github", "systemd"]`, `actant.cue:4:9: warning: agents.e: agent "e" runs backend gemini on systemd, where nothing answers a trust prompt: what actctl writes under .gemini/`},
		{"gemini", ``, ``, ``},
		{"pi", `kubernetes: {namespace: "a", image: "i@sha256:0", secret: "s", repo: url: "https://x/y"}`, `, deploy: engines: ["kubernetes"]`, ``},
		{"codex", `systemd: {}`, `, deploy: engines: ["github", "systemd"]`, `actant.cue:4:9: warning: agents.e: agent "e" runs backend codex on systemd, where nothing answers a trust prompt: what actctl writes under .codex/ (MCP servers, settings) may not load there unless the directory is trusted ahead (in the image, or the tool's settings): Codex reads <dir>/.codex/`},
		{"codex", `kubernetes: {namespace: "a", image: "i@sha256:0", secret: "s", repo: url: "https://x/y"}`, `, deploy: engines: ["github", "kubernetes"]`, ``},
		{"gemini", ``, `, deploy: github: false`, ``},
		{"claude-code", ``, ``, ``},
	} {
		src := strings.NewReplacer("BACKEND", tc.backend, "AGENT", tc.agent, ", TARGET", map[bool]string{true: "", false: ", " + tc.target}[tc.target == ""]).Replace(base)
		cfg, err := LoadDir(writeWorkspace(t, map[string]string{"actant.cue": src}), filepath.Join(t.TempDir(), "home"))
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		var got []string
		for _, w := range cfg.Warnings {
			if strings.Contains(w.String(), "trust") {
				got = append(got, w.String())
			}
		}
		if all := strings.Join(got, "\n"); (tc.want == "") != (all == "") || !strings.Contains(all, tc.want) {
			t.Errorf("%+v: warnings %q, want %q", tc, all, tc.want)
		}
	}
}

// TestDeployChecksFollowWhatUpRuns: validate's deploy checks are about
// the agents the renderers put on a target, those `up` holds (they offer
// start), whatever their archetype: a repo or tool agent whose template
// starts it with up is checked as a service is (rendered by two engines,
// a trust gate nothing answers there), an employee that does not offer
// start (launch mode direct) is not deployed, so not checked.
func TestDeployChecksFollowWhatUpRuns(t *testing.T) {
	const base = `package actant
deploy: {
	kubernetes: {namespace: "agents", image: "ghcr.io/acme/agents@sha256:0123", secret: "actctl-agents"}
	systemd: {}
}
templates: t: {backend: "codex", archetype: "ARCH"TEMPLATE}
agents: x: {template: "t"AGENT}
`
	const sched = `, schedule: heartbeat: {interval: "30m", prompt: "look"}`
	for _, tc := range []struct{ arch, template, agent, err, warn string }{
		{"repo", `, launchMode: "acp-service"`, ``, `actant.cue:7:9: agents.x: repo "x" is rendered by kubernetes, systemd at once: each would run it`, `agent "x" runs backend codex on systemd, where nothing answers a trust prompt`},
		{"tool", `, launchMode: "acp-background"`, ``, `agents.x: tool "x" is rendered by kubernetes, systemd at once`, ``},
		{"repo", `, launchMode: "acp-service"`, `, deploy: engines: ["systemd"]`, ``, `agent "x" runs backend codex on systemd, where nothing answers a trust prompt`},
		{"repo", ``, ``, ``, ``},
		{"employee", `, launchMode: "direct"` + sched, ``, ``, ``},
		{"employee", sched, ``, `agents.x: employee "x" is rendered by kubernetes, systemd at once: each would run its schedule`, ``},
	} {
		src := strings.NewReplacer("ARCH", tc.arch, "TEMPLATE", tc.template, "AGENT", tc.agent).Replace(base)
		cfg, err := LoadDir(writeWorkspace(t, map[string]string{"actant.cue": src}), filepath.Join(t.TempDir(), "home"))
		var ds Diagnostics
		errors.As(err, &ds)
		if got := ds.Errors(); (tc.err == "") != (len(got) == 0) || len(got) > 1 || len(got) == 1 && !strings.Contains(got[0].String(), tc.err) {
			t.Errorf("%+v: errors %v, want %q", tc, got, tc.err)
		}
		if cfg == nil {
			continue
		}
		var warned []string
		for _, w := range cfg.Warnings {
			if strings.Contains(w.String(), "trust prompt") {
				warned = append(warned, w.String())
			}
		}
		if all := strings.Join(warned, "\n"); (tc.warn == "") != (all == "") || !strings.Contains(all, tc.warn) {
			t.Errorf("%+v: trust warnings %q, want %q", tc, all, tc.warn)
		}
	}
}
