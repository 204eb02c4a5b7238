package workspace

import (
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
func Status(cfg *schema.Config, only []string) ([]AgentStatus, error) {
	return reconcile.Status(cfg, reconcile.Options{Only: only, Scoped: len(only) > 0})
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
