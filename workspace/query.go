package workspace

import (
	"fmt"
	"sort"

	"github.com/actctl/actctl/inputs"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
)

// The reads of package reconcile the commands make (diff, status,
// describe, validate, --kube), and the names they print, so that the
// command line needs no import of reconcile. None takes a lock or writes.
type (
	FileDiff    = reconcile.FileDiff    // a file apply would change, as a unified diff
	AgentStatus = reconcile.AgentStatus // an agent's sync status
	State       = reconcile.State       // what the last apply recorded (.actant/state.json)
)

// The sync statuses of an agent (AgentStatus.Status).
const (
	Synced    = reconcile.Synced
	OutOfSync = reconcile.OutOfSync
	Missing   = reconcile.Missing
)

// Diff is what an apply of the agents only (none: all) would change, as
// unified diffs, with the drift --force would restore, and the plan's
// result; scoped renders and reads only the directories of only
// (reconcile.Diff).
func Diff(cfg *schema.Config, only []string, scoped bool) ([]FileDiff, *Result, error) {
	return reconcile.Diff(cfg, reconcile.Options{Only: only, Scoped: scoped})
}

// Status is the sync status of the agents only (none: every agent),
// reading only their directories when they are named (reconcile.Status).
// Of every agent, when the apply fast path would find nothing to change,
// it is found without rendering (see synced).
func Status(cfg *schema.Config, only []string) ([]AgentStatus, error) {
	if len(only) == 0 {
		if out := synced(cfg); out != nil {
			return out, nil
		}
	}
	return reconcile.Status(cfg, reconcile.Options{Only: only, Scoped: len(only) > 0})
}

// synced is the status of every agent of cfg's workspace when the apply
// fast path holds (inputs.Check; docs/design.md, "The apply fast path"):
// nothing the last plain apply read has changed, every file it wrote is
// as it left it, state.json included, and it found nothing (no drift,
// conflict, skip or warning of the plan). The plan is then empty, and
// the state that apply left records exactly the agents it rendered, each
// in its directory: each is Synced, as reconcile.Status would say after
// rendering and reading every file. It returns nil when the normal path
// must run.
func synced(cfg *schema.Config) []AgentStatus {
	if _, why := inputs.Check(cfg.Root, cfg.Home); why != "" {
		return nil
	}
	st, err := reconcile.WorkspaceState(cfg.Root, cfg.Home)
	if err != nil || len(st.Agents) == 0 {
		return nil
	}
	out := make([]AgentStatus, 0, len(st.Agents))
	for name, a := range st.Agents {
		out = append(out, AgentStatus{Name: name, Status: Synced, Dir: a.Dir})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Listed is an agent's sync status found without loading the config
// (SyncedStatus), with where its runtime record lives (runrecord.Path).
type Listed struct {
	AgentStatus
	Record string
}

// SyncedStatus is the status of every agent of o's workspace when the
// apply fast path holds, found without loading the config (nor checking
// it: it is as the last plain apply loaded it): each agent that apply
// rendered is Synced in its recorded directory (see synced), and its
// runtime record is where it was then (inputs.Agents). It prints the
// config's warnings as Load would print them for `status`. Nil when the
// config must be loaded (with ACTCTL_DEBUG=1 it says why), and always
// for a run that prints only some agents' warnings (OnlyAgent, Acts).
func SyncedStatus(o Options) []Listed {
	if o.OnlyAgent != "" || o.Acts != nil {
		return nil
	}
	root, home, err := o.rootAndHome()
	if err != nil {
		o.debug("status", "full path: %v", err)
		return nil
	}
	agents, said, why := inputs.Agents(root, home)
	if why != "" {
		o.debug("status", "full path: %s", why)
		return nil
	}
	o.debug("status", "fast path: inputs and outputs unchanged")
	for _, w := range said.Status {
		fmt.Fprintf(o.Stderr, "actctl: %s\n", w) // as Load prints them
	}
	out := make([]Listed, len(agents))
	for i, a := range agents {
		out[i] = Listed{AgentStatus: AgentStatus{Name: a.Name, Status: Synced, Dir: a.Dir}, Record: a.Record}
	}
	return out // by name, as listedAgents recorded them
}

// listedAgents are the agents of the state st an apply of cfg left, as
// SyncedStatus lists them; nil when one does not resolve (then status
// loads the config).
func listedAgents(cfg *schema.Config, st *reconcile.State) []inputs.Agent {
	if st == nil {
		return nil
	}
	out := make([]inputs.Agent, 0, len(st.Agents))
	for name, a := range st.Agents {
		r, err := cfg.Resolve(name)
		if err != nil {
			return nil
		}
		out = append(out, inputs.Agent{Name: name, Dir: a.Dir, Record: runrecord.Path(r)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RecordedState is what the last apply of cfg's workspace recorded
// (reconcile.WorkspaceState).
func RecordedState(cfg *schema.Config) (*State, error) {
	return reconcile.WorkspaceState(cfg.Root, cfg.Home)
}

// CheckDeploy refuses a deploy: target apply would refuse for what the
// workspace's repository lacks (reconcile.CheckDeploy): validate passes
// only what apply takes.
func CheckDeploy(cfg *schema.Config) error { return reconcile.CheckDeploy(cfg) }

// KubeWorkspaceName is the workspace's name in the cluster as apply
// renders it, "" when there is none; k may be nil
// (reconcile.KubeWorkspaceName).
func KubeWorkspaceName(root string, k *schema.DeployKubernetes) string {
	return reconcile.KubeWorkspaceName(root, k)
}
