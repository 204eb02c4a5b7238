package workspace

import (
	"sort"

	"github.com/actctl/actctl/inputs"
	"github.com/actctl/actctl/reconcile"
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
