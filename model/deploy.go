package model

import (
	"slices"
	"strings"
)

// Deploy is the deploy: block of actant.cue (#Deploy): the engines that
// run the workspace beyond one machine, whose files apply renders
// (docs/deploy.md).
type Deploy struct {
	Kubernetes *DeployKubernetes `json:"kubernetes,omitempty"`
	GitHub     *DeployGitHub     `json:"github,omitempty"`
	Systemd    *DeploySystemd    `json:"systemd,omitempty"`
	// SecretKeys are environment variables the agents need that the
	// config does not name (a backend's API key).
	SecretKeys []string `json:"secretKeys,omitempty"`
}

// DeployKubernetes renders a StatefulSet for the workspace and CronJobs
// for its cron-shaped employees.
type DeployKubernetes struct {
	Dir       string      `json:"dir"`
	Namespace string      `json:"namespace"`
	Image     string      `json:"image"`
	Repo      *DeployRepo `json:"repo,omitempty"`
	Storage   Storage     `json:"storage"`
	Secret    string      `json:"secret"`
	Name      string      `json:"name,omitempty"`
	// Resources are the StatefulSet's container's, and a cron-shaped
	// employee's Jobs' unless it gives its own (ResourcesFor).
	Resources Resources `json:"resources"`
	// Install is where the image recipe gets actctl.
	Install ActctlInstall `json:"install"`
	// RuntimeClassName is every pod's RuntimeClass; "" the cluster's.
	RuntimeClassName string `json:"runtimeClassName,omitempty"`
	// NetworkPolicy, when given, renders a deny-by-default NetworkPolicy.
	NetworkPolicy *NetworkPolicy `json:"networkPolicy,omitempty"`
}

// NetworkPolicy is what the pods may reach beyond DNS and the ports the
// config names (docs/deploy.md, "Network policy").
type NetworkPolicy struct {
	CIDRs []string `json:"cidrs"`
	Ports []int    `json:"ports"`
}

// Resources are a container's requests and limits (Kubernetes
// quantities).
type Resources struct {
	Requests ResourceList `json:"requests,omitempty"`
	Limits   ResourceList `json:"limits,omitempty"`
}

// ResourceList is a CPU and a memory quantity; "" is not given.
type ResourceList struct {
	CPU    string `json:"cpu,omitempty"`
	Memory string `json:"memory,omitempty"`
}

// over is l with the fields o gives replaced.
func (l ResourceList) over(o ResourceList) ResourceList {
	if o.CPU != "" {
		l.CPU = o.CPU
	}
	if o.Memory != "" {
		l.Memory = o.Memory
	}
	return l
}

// ResourcesFor is the resources of agent a's Jobs: k's, with what the
// agent's deploy.kubernetes.resources gives in their place.
func (k *DeployKubernetes) ResourcesFor(a Agent) Resources {
	r := k.Resources
	if a.Deploy != nil && a.Deploy.Kubernetes != nil && a.Deploy.Kubernetes.Resources != nil {
		o := a.Deploy.Kubernetes.Resources
		r.Requests, r.Limits = r.Requests.over(o.Requests), r.Limits.over(o.Limits)
	}
	return r
}

// DeployRepo is the repository the pods clone.
type DeployRepo struct {
	URL string `json:"url"`
	Ref string `json:"ref"`
	// SSHSecret names the Secret holding the key (ssh-privatekey) and
	// the host keys (known_hosts) for a clone over SSH.
	SSHSecret string `json:"sshSecret,omitempty"`
}

// IsSSHURL reports whether git clones url over SSH: ssh:// (or
// git+ssh://), or the scp-like user@host:path form.
func IsSSHURL(url string) bool {
	if strings.HasPrefix(url, "ssh://") || strings.HasPrefix(url, "git+ssh://") {
		return true
	}
	if strings.Contains(url, "://") {
		return false
	}
	colon := strings.Index(url, ":")
	return colon > 0 && !strings.Contains(url[:colon], "/")
}

// Storage is a volume claim's size and storage class.
type Storage struct {
	Size  string `json:"size"`
	Class string `json:"class,omitempty"`
}

// DeployGitHub renders a GitHub Actions workflow per employee.
type DeployGitHub struct {
	RunsOn string `json:"runsOn"`
	// State is StateBranch, StateCache, StateArtifact or StateNone.
	State  string `json:"state"`
	Dir    string `json:"dir"`
	Actctl string `json:"actctl"`
	// Install is where the workflows get actctl; nil is the module at
	// version Actctl (InstallSource).
	Install *ActctlInstall `json:"install,omitempty"`
	// KeepLogs is how many task logs StateBranch and StateCache carry.
	KeepLogs int `json:"keepLogs"`
	// LogDays is the retention of a run's log artifact, in days.
	LogDays int `json:"logDays"`
}

// ActctlInstall is where a target gets actctl (#ActctlInstall): one of
// Version (the module's), URL with SHA256 (a release's binary or
// .tar.gz), or Path (a directory of the repository to build).
type ActctlInstall struct {
	Version string `json:"version,omitempty"`
	URL     string `json:"url,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
	Path    string `json:"path,omitempty"`
}

// InstallSource is where the workflows get actctl: Install, else the
// module at version Actctl.
func (g *DeployGitHub) InstallSource() ActctlInstall {
	if g.Install != nil {
		return *g.Install
	}
	return ActctlInstall{Version: g.Actctl}
}

// GitHub state carriers (docs/deploy.md, "GitHub Actions").
const (
	// StateBranch carries .heartbeat and logs on a branch.
	StateBranch = "branch"
	// StateCache carries them in actions/cache.
	StateCache = "cache"
	// StateArtifact carries .heartbeat in the cache; the logs are only
	// the run's artifact.
	StateArtifact = "artifact"
	// StateNone carries .heartbeat in the cache and keeps no log.
	StateNone = "none"
)

// JobToken is the variable that, on GitHub Actions, is the workflow's
// job token (secrets.GITHUB_TOKEN): GitHub refuses a repository secret
// of that name, or of any name starting with GitHubPrefix.
const (
	JobToken     = "GITHUB_TOKEN"
	GitHubPrefix = "GITHUB_"
)

// DeploySystemd renders the actctl-up@.service template unit.
type DeploySystemd struct {
	Dir string `json:"dir"`
	// Scope is "user" or "system".
	Scope string `json:"scope"`
	// User is the account a system-scope unit runs as (never root);
	// required there, refused for a user unit (it runs as its owner).
	User string `json:"user,omitempty"`
	// Group is the system-scope unit's group; "" is User's login group.
	Group string `json:"group,omitempty"`
}

// AgentDeploy is an agent's place on the deploy targets (#AgentDeploy).
type AgentDeploy struct {
	Kubernetes *AgentKubernetes `json:"kubernetes,omitempty"`
	// GitHub: false leaves an employee out of GitHub Actions; nil is the
	// default (employees in, others out).
	GitHub *bool `json:"github,omitempty"`
	// GitHubPermissions are the job token's permissions in the
	// employee's task job beyond contents: read (scope -> read, write or
	// none).
	GitHubPermissions map[string]string `json:"githubPermissions,omitempty"`
	// Engines are the targets that run the agent, chosen explicitly;
	// nil is every declared one (GitHub for employees only).
	Engines []string `json:"engines,omitempty"`
}

// AgentKubernetes: Shape is ShapeResident or ShapeCron.
type AgentKubernetes struct {
	Shape string `json:"shape"`
	// Resources override the workspace's for a cron-shaped employee's
	// Jobs; nil when not given.
	Resources *Resources `json:"resources,omitempty"`
}

// Kubernetes shapes of an employee.
const (
	ShapeResident = "resident"
	ShapeCron     = "cron"
)

// KubeShape is agent a's Kubernetes shape (ShapeResident by default).
func (a Agent) KubeShape() string {
	if a.Deploy != nil && a.Deploy.Kubernetes != nil && a.Deploy.Kubernetes.Shape != "" {
		return a.Deploy.Kubernetes.Shape
	}
	return ShapeResident
}

// OnGitHub reports whether agent a, of archetype arch, gets a GitHub
// Actions workflow: employees unless they say github: false or choose
// engines without it.
func (a Agent) OnGitHub(arch string) bool {
	if a.Deploy != nil && a.Deploy.Engines != nil {
		return slices.Contains(a.Deploy.Engines, TargetGitHub) && arch == ArchEmployee
	}
	if a.Deploy != nil && a.Deploy.GitHub != nil {
		return *a.Deploy.GitHub && arch == ArchEmployee
	}
	return arch == ArchEmployee
}

// RunsOn reports whether target (TargetKubernetes, TargetGitHub or
// TargetSystemd) runs agent a, of archetype arch, when it is declared:
// the engines a chooses, else every target (GitHub: employees only).
func (a Agent) RunsOn(target, arch string) bool {
	if target == TargetGitHub {
		return a.OnGitHub(arch)
	}
	if a.Deploy != nil && a.Deploy.Engines != nil {
		return slices.Contains(a.Deploy.Engines, target)
	}
	return true
}

// Deploy target names, as in deploy: and in messages.
const (
	TargetKubernetes = "kubernetes"
	TargetGitHub     = "github"
	TargetSystemd    = "systemd"
)
