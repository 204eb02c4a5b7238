package schema

import (
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/actctl/actctl/internal/cronspec"
)

// githubMinGap is GitHub Actions' shortest schedule interval.
const githubMinGap = 5 * time.Minute

// ScheduleEntry is one entry of an employee's schedule as a deploy
// target's cron reads it (docs/deploy.md, "Schedules on the targets").
type ScheduleEntry struct {
	// Source is what `actctl task --source` takes: "heartbeat" or
	// "cron:N" (N the entry's index in schedule.cron).
	Source string
	// Pattern is portable: five numeric fields, day of week 0-6.
	Pattern string
	// Timezone is the IANA zone the pattern is read in ("UTC" for a
	// heartbeat and for an entry that gives none).
	Timezone string
	// Prompt is the entry's prompt (empty for the heartbeat).
	Prompt string
	// field is the entry's config path, for diagnostics.
	field string
}

// TargetSchedule translates agent name's schedule for target
// (TargetKubernetes or TargetGitHub): the heartbeat to a clock-aligned
// pattern, each cron entry to portable form. What the target cannot
// express is an error at the entry's field; where the target's daylight
// saving rule runs an entry otherwise than actctl in the coming year, a
// warning (now is the start of that year).
func (c *Config) TargetSchedule(name, target string, now time.Time) ([]ScheduleEntry, Diagnostics) {
	a := c.Agents[name]
	t, ok := c.Templates[a.Template]
	if !ok || t.Schedule == nil {
		return nil, nil
	}
	at := func(f string) string { return Path("templates", a.Template, "schedule") + "." + f }
	var out []ScheduleEntry
	var ds Diagnostics
	if hb := t.Schedule.Heartbeat; hb != nil {
		if d, err := cronspec.ParseInterval(hb.Interval); err == nil {
			e, msg := heartbeatEntry(d, target)
			if msg != "" {
				ds = append(ds, c.Diag(at("heartbeat.interval"), "agent %q on %s: %s", name, targetTitle(target), msg))
			} else {
				e.field = at("heartbeat.interval")
				out = append(out, e)
			}
		}
	}
	for i, ce := range t.Schedule.Cron {
		zone := ce.Timezone
		if zone == "" {
			zone = "UTC"
		}
		entry, err := cronspec.ParseCron(ce.Pattern, zone)
		if err != nil {
			continue // reported by the template's own validation
		}
		f := at(fmt.Sprintf("cron[%d].pattern", i))
		if target == TargetGitHub && entry.MinGap() < githubMinGap {
			ds = append(ds, c.Diag(f, "agent %q on %s: %q runs every %s; GitHub runs schedules at most every 5 minutes", name, targetTitle(target), ce.Pattern, entry.MinGap()))
			continue
		}
		for _, tr := range entry.DSTExposed(now, now.AddDate(1, 0, 0)) {
			d := c.Diag(f, "agent %q on %s: %q falls in the daylight saving change of %s in %s, where %s runs it otherwise than actctl (docs/deploy.md, \"Daylight saving on the targets\")",
				name, targetTitle(target), ce.Pattern, tr.In(entry.Location).Format("2006-01-02"), zone, targetTitle(target))
			d.Warning = true
			ds = append(ds, d)
		}
		out = append(out, ScheduleEntry{Source: fmt.Sprintf("cron:%d", i), Pattern: entry.Portable(), Timezone: zone, Prompt: ce.Prompt, field: f})
	}
	ds = append(ds, c.ambiguous(name, target, out)...)
	return out, ds
}

// heartbeatEntry is the heartbeat of interval d on target, or why the
// target cannot run it.
func heartbeatEntry(d time.Duration, target string) (ScheduleEntry, string) {
	if target == TargetGitHub && d < githubMinGap {
		return ScheduleEntry{}, fmt.Sprintf("a heartbeat every %s is more often than GitHub runs schedules (every 5 minutes at most)", d)
	}
	p, err := cronspec.IntervalPattern(d)
	if err != nil {
		return ScheduleEntry{}, err.Error() + ", or keep this employee resident"
	}
	return ScheduleEntry{Source: "heartbeat", Pattern: p, Timezone: "UTC"}, ""
}

// ambiguous refuses, on GitHub, two entries with one pattern (in
// portable form, whatever their zones): the workflow learns only the
// pattern that fired (github.event.schedule), and `actctl task
// --schedule` could not tell which entry it was.
func (c *Config) ambiguous(name, target string, es []ScheduleEntry) Diagnostics {
	if target != TargetGitHub {
		return nil
	}
	var ds Diagnostics
	seen := map[string]string{}
	for _, e := range es {
		if prev, dup := seen[e.Pattern]; dup {
			ds = append(ds, c.Diag(e.field, "agent %q on %s: %s and %s both run %q: a workflow cannot tell which one fired; change one of them", name, targetTitle(target), prev, e.Source, e.Pattern))
			continue
		}
		seen[e.Pattern] = e.Source
	}
	return ds
}

func targetTitle(target string) string {
	switch target {
	case TargetKubernetes:
		return "Kubernetes (shape cron)"
	case TargetGitHub:
		return "GitHub Actions"
	}
	return target
}

// validateDeploy checks the deploy: block and the agents' places on its
// targets (docs/deploy.md); now starts the year whose daylight saving
// changes are looked at.
func (c *Config) validateDeploy(now time.Time) Diagnostics {
	var ds Diagnostics
	d := c.Deploy
	if k := deployKubernetes(d); k != nil && !strings.Contains(k.Image, "@sha256:") {
		w := c.Diag(Path("deploy", "kubernetes", "image"), "image %q is not pinned by digest: pods may run another image than the one you tested (give it as name@sha256:...)", k.Image)
		w.Warning = true
		ds = append(ds, w)
	}
	if g := deployGitHub(d); g != nil && g.InstallSource().Version == "latest" {
		w := c.Diag(Path("deploy", "github"), "the workflows install actctl@latest: give deploy.github.actctl a version (\"v0.9.0\") so that every run uses the actctl you tested")
		w.Warning = true
		ds = append(ds, w)
	}
	ds = append(ds, c.validateDeployDirs()...)
	ds = append(ds, c.validateDeployFields()...)
	if k := deployKubernetes(d); k != nil {
		ds = append(ds, c.checkResources(Path("deploy", "kubernetes", "resources"), k.Resources)...)
	}
	for _, name := range slices.Sorted(maps.Keys(c.Agents)) {
		ds = append(ds, c.validateAgentDeploy(name, now)...)
	}
	ds = append(ds, c.checkSystemdUser()...)
	ds = append(ds, c.checkRepoSSH()...)
	ds = append(ds, c.checkMCPProvided()...)
	return append(ds, c.checkSystemdRuns()...)
}

// checkRepoSSH refuses a repository cloned over SSH without the Secret
// holding its key and host keys: the clone would have neither, and
// fail in every pod.
func (c *Config) checkRepoSSH() Diagnostics {
	k := deployKubernetes(c.Deploy)
	if k == nil || k.Repo == nil || !IsSSHURL(k.Repo.URL) || k.Repo.SSHSecret != "" {
		return nil
	}
	return Diagnostics{c.Diag(Path("deploy", "kubernetes", "repo", "url"), "%q is cloned over SSH, and a pod has no key and no known_hosts: give deploy.kubernetes.repo.sshSecret, a Secret with the keys ssh-privatekey and known_hosts (docs/deploy.md), or an https URL", k.Repo.URL)}
}

// checkSystemdUser asks a system-scope unit for the account it runs as
// (without one systemd runs it as root), and refuses one for a user
// unit (a user manager runs its units as its owner).
func (c *Config) checkSystemdUser() Diagnostics {
	s := c.Deploy.Systemd
	switch {
	case s == nil:
		return nil
	case s.Scope == "system" && s.User == "":
		return Diagnostics{c.Diag(Path("deploy", "systemd", "scope"), "a system unit without a user runs actctl and every agent as root: give deploy.systemd.user, the account that owns the workspace")}
	case s.Scope != "system" && (s.User != "" || s.Group != ""):
		return Diagnostics{c.Diag(Path("deploy", "systemd", "user"), "a user unit runs as the user whose manager starts it: user and group are for scope \"system\"")}
	}
	return nil
}

// checkSystemdRuns refuses deploy: systemd when every employee and
// service chooses other engines: its `up`, naming none, would run them all.
func (c *Config) checkSystemdRuns() Diagnostics {
	if c.Deploy.Systemd == nil {
		return nil
	}
	some := false
	for name, a := range c.Agents {
		r, ok := c.heldByUp(name)
		if !ok {
			continue
		}
		if a.RunsOn(TargetSystemd, r.ArchetypeName) {
			return nil
		}
		some = true
	}
	if !some {
		return nil
	}
	return Diagnostics{c.Diag(Path("deploy", "systemd"), "every agent up runs (employees, services, any agent that offers start) chooses other engines (deploy: engines): the unit would run none of them; remove deploy.systemd or choose it for an agent")}
}

// heldByUp resolves agent name when `up` holds it (Resolved.HeldByUp:
// it offers start), which is what the deploy renderers run on a target
// (deploy's agents): an adhoc agent, one that does not resolve (reported
// as such) and one that does not offer start are not deployed, whatever
// their archetype.
func (c *Config) heldByUp(name string) (*Resolved, bool) {
	if c.Agents[name].Adhoc {
		return nil, false
	}
	r, err := c.Resolve(name)
	if err != nil || !r.HeldByUp() {
		return nil, false
	}
	return r, true
}

// validateDeployDirs refuses a target directory outside the workspace
// root or where actctl keeps its own files.
func (c *Config) validateDeployDirs() Diagnostics {
	var ds Diagnostics
	check := func(target, dir string) {
		clean := path.Clean(strings.ReplaceAll(dir, `\`, "/"))
		why := ProtectedDir(clean)
		if path.IsAbs(clean) || filepath.IsAbs(dir) || clean == ".." || strings.HasPrefix(clean, "../") {
			why = "it is not inside the workspace root"
		}
		if why != "" {
			ds = append(ds, c.Diag(Path("deploy", target, "dir"), "dir %q: %s; give a directory relative to the workspace root", dir, why))
		}
	}
	if k := deployKubernetes(c.Deploy); k != nil {
		check(TargetKubernetes, k.Dir)
	}
	if g := deployGitHub(c.Deploy); g != nil {
		check(TargetGitHub, g.Dir)
	}
	if s := c.Deploy.Systemd; s != nil {
		check(TargetSystemd, s.Dir)
	}
	return ds
}

func deployKubernetes(d *Deploy) *DeployKubernetes {
	if d == nil {
		return nil
	}
	return d.Kubernetes
}

func deployGitHub(d *Deploy) *DeployGitHub {
	if d == nil {
		return nil
	}
	return d.GitHub
}

// validateAgentDeploy checks agent name's deploy: fields and translates
// its schedule for each declared target that runs it by schedule.
func (c *Config) validateAgentDeploy(name string, now time.Time) Diagnostics {
	a := c.Agents[name]
	t, ok := c.Templates[a.Template]
	if !ok {
		return nil
	}
	var ds Diagnostics
	ds = append(ds, c.validateAgentResources(name)...)
	if a.KubeShape() == ShapeCron && t.Archetype != ArchEmployee {
		ds = append(ds, c.Diag(Path("agents", name, "deploy", "kubernetes", "shape"), "agent %q is a %s: only an employee can run as CronJobs (shape \"cron\"); leave it resident", name, t.Archetype))
	}
	if a.Deploy != nil && a.Deploy.GitHub != nil && *a.Deploy.GitHub && t.Archetype != ArchEmployee {
		ds = append(ds, c.Diag(Path("agents", name, "deploy", "github"), "agent %q is a %s: GitHub Actions runs scheduled tasks only (jobs end, nothing can connect to them); run it on kubernetes or systemd", name, t.Archetype))
	}
	ds = append(ds, c.checkEngines(name, t.Archetype)...)
	ds = append(ds, c.checkHeadlessTrust(name, t)...)
	if t.Archetype != ArchEmployee {
		return ds
	}
	if deployKubernetes(c.Deploy) != nil && a.KubeShape() == ShapeCron {
		_, d := c.TargetSchedule(name, TargetKubernetes, now)
		ds = append(ds, d...)
	}
	if deployGitHub(c.Deploy) != nil && a.OnGitHub(t.Archetype) {
		_, d := c.TargetSchedule(name, TargetGitHub, now)
		ds = append(ds, d...)
		ds = append(ds, c.checkGitHubInstall(name, t.Backend)...)
		ds = append(ds, c.checkGitHubSecrets(name, t)...)
	}
	return ds
}

// checkGitHubSecrets refuses, for employee name (of template t) on
// GitHub Actions, a variable it needs whose name starts with GITHUB_
// (GitHub refuses such a repository secret) but GITHUB_TOKEN, which the
// workflow gives as the job token; and warns when it reads that token
// without declaring the permissions it needs (the token then only reads
// the repository's contents).
func (c *Config) checkGitHubSecrets(name string, t Template) Diagnostics {
	var ds Diagnostics
	a := c.Agents[name]
	for _, k := range slices.Sorted(maps.Keys(c.SecretRefs([]Template{t}))) {
		switch {
		case k == JobToken && (a.Deploy == nil || len(a.Deploy.GitHubPermissions) == 0):
			w := c.Diag(Path("agents", name), "agent %q reads %s: on GitHub Actions that is the job's token, which may only read the repository's contents; declare what it needs: agents.%s.deploy.githubPermissions: {issues: \"write\"}", name, k, name)
			w.Warning = true
			ds = append(ds, w)
		case k != JobToken && strings.HasPrefix(k, GitHubPrefix):
			ds = append(ds, c.Diag(Path("agents", name), "agent %q on GitHub Actions needs %s, and GitHub refuses a repository secret whose name starts with %s: read it under another name (${ACTCTL_%s}), or leave the agent off GitHub", name, k, GitHubPrefix, k))
		}
	}
	return ds
}

// declared lists the targets the deploy: block declares, in order.
func declaredTargets(d *Deploy) []string {
	var ts []string
	if deployKubernetes(d) != nil {
		ts = append(ts, TargetKubernetes)
	}
	if deployGitHub(d) != nil {
		ts = append(ts, TargetGitHub)
	}
	if d != nil && d.Systemd != nil {
		ts = append(ts, TargetSystemd)
	}
	return ts
}

// checkEngines refuses an engine agent name chooses that deploy: does
// not declare, and an employee or a service that several declared
// targets would run without choosing them: each would run it (an
// employee's every task twice, .heartbeat and logs split between them; a
// service's two sessions answering apart).
func (c *Config) checkEngines(name, arch string) Diagnostics {
	a, declared := c.Agents[name], declaredTargets(c.Deploy)
	if a.Deploy != nil && a.Deploy.Engines != nil {
		var ds Diagnostics
		for i, e := range a.Deploy.Engines {
			if !slices.Contains(declared, e) {
				ds = append(ds, c.Diag(Path("agents", name, "deploy", "engines")+fmt.Sprintf("[%d]", i), "agent %q chooses %s, which deploy: does not declare (it declares: %s)", name, e, strings.Join(declared, ", ")))
			}
		}
		return ds
	}
	var on []string
	for _, t := range declared {
		if a.RunsOn(t, arch) {
			on = append(on, t)
		}
	}
	if _, held := c.heldByUp(name); !held || len(on) < 2 || CheckName(name) != "" {
		return nil // an invalid name is reported as such
	}
	why := "each would run it (two sessions answering apart, its hooks run twice, its state split)"
	if arch == ArchEmployee {
		why = "each would run its schedule (every task twice, its state split)"
	}
	return Diagnostics{c.Diag(Path("agents", name), "%s %q is rendered by %s at once: %s; choose with agents.%s.deploy.engines: [%q] (one of them), or list several on purpose", arch, name, strings.Join(on, ", "), why, name, on[0])}
}

// validateAgentResources checks agent name's own Kubernetes resources:
// given to a cron-shaped employee only (a resident agent shares the
// workspace's pod), no request above its limit.
func (c *Config) validateAgentResources(name string) Diagnostics {
	a, k := c.Agents[name], deployKubernetes(c.Deploy)
	if k == nil || a.Deploy == nil || a.Deploy.Kubernetes == nil || a.Deploy.Kubernetes.Resources == nil {
		return nil
	}
	at := Path("agents", name, "deploy", "kubernetes", "resources")
	if a.KubeShape() != ShapeCron {
		return Diagnostics{c.Diag(at, "agent %q runs in the workspace's pod (shape resident), whose resources are deploy.kubernetes.resources; an agent's own resources are for a cron-shaped employee's Jobs", name)}
	}
	return c.checkResources(at, k.ResourcesFor(a))
}

// checkGitHubInstall refuses employee name on GitHub Actions when its
// backend has no install command: a runner has only what the workflow
// installs.
func (c *Config) checkGitHubInstall(name, backend string) Diagnostics {
	b, ok := c.Backends[backend]
	if !ok || b.Install != "" {
		return nil
	}
	why := "none is given"
	if b.InstallNote != "" {
		why = "its installNote says " + strconv.Quote(b.InstallNote)
	}
	return Diagnostics{c.Diag(Path("agents", name), "agent %q on GitHub Actions: backend %q has no install command for the workflow to run (%s): give backends.%s.install, or leave the agent off GitHub (deploy: github: false)", name, backend, why, backend)}
}

// checkHeadlessTrust warns, for agent name (of template t) on a declared
// target, when its backend gates the whole project behind a trust
// prompt (a trust gate with a note: Codex, Gemini, Pi, ...): in a pod, a
// runner or a unit nothing answers the prompt, so what actctl writes
// under the gate's paths (MCP servers, settings, rules) may not load
// there. The note says how to trust ahead where the tool allows it
// (docs/deploy.md, "Trust gates on the targets").
func (c *Config) checkHeadlessTrust(name string, t Template) Diagnostics {
	b, ok := c.Backends[t.Backend]
	if _, held := c.heldByUp(name); !ok || b.Trust == nil || b.Trust.Note == "" || !held {
		return nil
	}
	var on []string
	for _, target := range declaredTargets(c.Deploy) {
		if c.Agents[name].RunsOn(target, t.Archetype) && !c.PreTrusted(name, target) {
			on = append(on, target)
		}
	}
	if len(on) == 0 {
		return nil
	}
	note := strings.ReplaceAll(b.Trust.Note, "{dir}", "<dir>")
	w := c.Diag(Path("agents", name), "agent %q runs backend %s on %s, where nothing answers a trust prompt: what actctl writes under %s (MCP servers, settings) may not load there unless the directory is trusted ahead (in the image, or the tool's settings): %s",
		name, t.Backend, strings.Join(on, ", "), strings.Join(b.Trust.Paths, ", "), note)
	w.Warning = true
	return Diagnostics{w}
}
