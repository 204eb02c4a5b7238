package main

import (
	"context"

	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

// recordAdhoc records (a nil a: forgets) the ad-hoc agent name of the
// workspace at root under the workspace lock: .actant/adhoc.json is a
// read-modify-write that two proxies, or a proxy and an apply, must not
// interleave (docs/design.md, "The records").
func recordAdhoc(ctx context.Context, root, name string, a *schema.Agent) error {
	return reconcile.Locked(ctx, root, func() error { return schema.RecordAdhoc(root, name, a) })
}
