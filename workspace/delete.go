package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
)

// DeleteOptions are delete's: the agents named and its flags, and how
// the apply that prunes their files is printed.
type DeleteOptions struct {
	Options
	Names  []string // the agents to delete
	DryRun bool     // plan only; write nothing
	Force  bool     // prune hand-edited files too (backed up first)
	// Print prints the result of the apply that prunes the agents' files
	// and its error, and returns the error Delete ends with; it is not
	// called when no agent had files.
	Print func(*Result, error) error
}

// Delete removes agents that actctl proxy created (-t, per-project
// copies): their files pruned as apply prunes a removed agent, then their
// runtime records and their entries in .actant/adhoc.json; an agent
// declared in the config is refused. It returns the agents it deleted
// without an apply (none had files to prune); the others went to Print.
func Delete(ctx context.Context, o DeleteOptions) (forgotten []string, err error) {
	l, err := Load(ctx, o.Options, hub.Options{})
	if err != nil {
		return nil, err
	}
	cfg := l.Config
	st, err := RecordedState(cfg)
	if err != nil {
		return nil, err
	}
	forget, prune, err := deletions(cfg, st, o.Names)
	if err != nil {
		return nil, err
	}
	events := newApplyEvents(ctx, o.Options, cfg)
	var res *Result
	if len(prune) > 0 {
		res, err = applyPruning(ctx, cfg, reconcile.Options{
			DryRun:     o.DryRun,
			Force:      o.Force,
			Only:       prune,
			LockDigest: hub.LockDigest(cfg.Root),
		})
	}
	if err == nil && !o.DryRun {
		// Forget the agents only once their files are pruned: a failed
		// prune leaves everything as it was, ready for another try.
		err = forgetAdhoc(ctx, cfg, forget)
	}
	if res == nil {
		return forget, err
	}
	if err = o.Print(res, err); err == nil {
		events.fire(res)
		events.wait()
	}
	return nil, err
}

// deletions checks the names given to delete and removes the ad-hoc ones
// from cfg: forget are the ad-hoc agents to forget, prune the agents an
// apply has files of (in the state, or the journal of a failed apply). An
// ad-hoc agent that never materialized, or whose template is gone, has no
// files to prune and is only forgotten: a broken record can always be
// deleted.
func deletions(cfg *schema.Config, st *reconcile.State, names []string) (forget, prune []string, _ error) {
	for _, n := range names {
		a, ok := cfg.Agents[n]
		if !ok {
			if st.Agents[n] != nil {
				prune = append(prune, n) // applied, no longer declared: prune what is left
				continue
			}
			var known []string
			for k, a := range cfg.Agents {
				if a.Adhoc {
					known = append(known, k)
				}
			}
			msg := fmt.Sprintf("delete: no agent %q in this workspace", n)
			if s := schema.Suggest(n, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, nil, errors.New(msg)
		}
		if !a.Adhoc {
			return nil, nil, schema.Diagnostics{cfg.Diag(schema.Path("agents", n), "agent %q is declared here; delete removes only agents actctl proxy created: remove it from the config, then run actctl apply", n)}
		}
		if pid, owner := servedBy(cfg, n); pid != 0 {
			return nil, nil, fmt.Errorf("delete %s: it is being served by pid %d (%s); stop that first", n, pid, owner)
		}
		forget = append(forget, n)
		if agentprep.Applied(cfg.Root, cfg.Home, n) {
			prune = append(prune, n)
		}
	}
	for _, n := range forget {
		delete(cfg.Agents, n)
	}
	return forget, prune, nil
}

// forgetAdhoc removes the runtime records of the ad-hoc agents names that
// still resolve (a pruned agent's were removed with its files) and their
// entries in .actant/adhoc.json.
func forgetAdhoc(ctx context.Context, cfg *schema.Config, names []string) error {
	for _, n := range names {
		a := schema.Agent{}
		if rec, _, _ := schema.AdhocAgents(cfg.Root, cfg.Home); rec != nil {
			a = rec[n]
		}
		var err error
		if r, rerr := cfg.ResolveAgent(n, a); rerr == nil {
			err = runrecord.RemoveRuntime(r)
		}
		if err == nil {
			err = agentprep.RecordAdhoc(ctx, cfg.Root, cfg.Home, n, nil)
		}
		if err != nil {
			return fmt.Errorf("delete %s: files pruned, but forgetting the agent failed: %w", n, err)
		}
	}
	return nil
}

// servedBy is the process serving agent name by its runtime record, and
// how it does (runrecord.Record.ProcessOwnership); 0 when none is alive.
func servedBy(cfg *schema.Config, name string) (pid int, ownership string) {
	r, err := cfg.Resolve(name)
	if err != nil {
		return 0, ""
	}
	rec, err := runrecord.Read(runrecord.Path(r))
	if err != nil || rec.PID == 0 || !rec.Live() {
		return 0, ""
	}
	return rec.PID, rec.ProcessOwnership
}
