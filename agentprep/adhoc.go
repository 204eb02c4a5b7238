package agentprep

import (
	"context"

	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

// RecordAdhoc records (a nil a: forgets) the ad-hoc agent name of the
// workspace at root, sealed with the key of the actctl home home, under
// the workspace lock: .actant/adhoc.json is a
// read-modify-write that two proxies, or a proxy and an apply, must not
// interleave (docs/design.md, "The records").
func RecordAdhoc(ctx context.Context, root, home, name string, a *schema.Agent) error {
	return reconcile.Locked(ctx, root, func() error { return schema.RecordAdhoc(root, home, name, a) })
}

// Applied reports whether the state or the journal of a failed or killed
// apply of the workspace at root (actctl home home) holds agent name:
// whether an apply has files of it to prune.
func Applied(root, home, name string) bool { return reconcile.Applied(root, home, name) }
