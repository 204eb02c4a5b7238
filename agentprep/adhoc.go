package agentprep

import (
	"context"
	"fmt"
	"time"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/proxy"
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

// discard undoes an ad-hoc agent whose materialization failed, before it
// was ever recorded (docs/run.md): what the failed apply wrote, and the
// journal it left, are pruned, and its runtime record is removed, so that
// nothing of it is left to break later commands.
func (p *Prepared) discard() {
	name := p.Agent.Name
	delete(p.Config.Agents, name)
	if Applied(p.Config.Root, name) {
		// A fresh context: the client's may be cancelled already.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := reconcile.Apply(ctx, p.Config, reconcile.Options{Only: []string{name}, LockWait: 5 * time.Second}); err != nil {
			fmt.Fprintf(p.stderr, "actctl: remove the failed copy %s: %v\n", name, err)
		}
	}
	if err := proxy.RemoveRuntime(p.Agent); err != nil {
		fmt.Fprintf(p.stderr, "actctl: remove the failed copy %s: %v\n", name, err)
	}
}
