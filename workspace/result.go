package workspace

import "github.com/actctl/actctl/reconcile"

// The names of package reconcile a command prints, so that the command
// line needs no import of reconcile: what an apply did, one item of it,
// its actions and the error of a plan with conflicts.
type (
	Result        = reconcile.Result
	Item          = reconcile.Item
	Action        = reconcile.Action
	ConflictError = reconcile.ConflictError
)

// The actions of an Item (reconcile.Action).
const (
	ActCreate   = reconcile.ActCreate
	ActUpdate   = reconcile.ActUpdate
	ActDelete   = reconcile.ActDelete
	ActRestore  = reconcile.ActRestore
	ActDrift    = reconcile.ActDrift
	ActConflict = reconcile.ActConflict
	ActSkip     = reconcile.ActSkip
	ActWarning  = reconcile.ActWarning
)
