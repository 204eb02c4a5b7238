package agentprep

import (
	"context"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

// RecordAdhoc records (a nil a: forgets) the ad-hoc agent name of the
// workspace at root under the workspace lock: .actant/adhoc.json is a
// read-modify-write that two proxies, or a proxy and an apply, must not
// interleave (docs/design.md, "The records").
func RecordAdhoc(ctx context.Context, root, name string, a *schema.Agent) error {
	return reconcile.Locked(ctx, root, func() error { return schema.RecordAdhoc(root, name, a) })
}

// Applied reports whether the state or the journal of a failed or killed
// apply of the workspace at root holds agent name: whether an apply has
// files of it to prune.
func Applied(root, name string) bool {
	for _, f := range []string{reconcile.StateFile, reconcile.PendingFile} {
		st, _, err := reconcile.ReadState(layout.Path(root, f))
		if err == nil && st.Agents[name] != nil {
			return true
		}
	}
	return false
}
