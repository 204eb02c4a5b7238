package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
)

func init() {
	register(&cli.Command{
		Name:      "delete",
		Usage:     "remove agents that actctl proxy created (-t, per-project copies) and prune their files",
		ArgsUsage: "AGENT...",
		Description: "An agent declared in actant.cue is removed by deleting it there and running apply;\n" +
			"delete is for the agents actctl proxy recorded in .actant/adhoc.json, which no file\n" +
			"of yours declares. Their files are pruned exactly as apply prunes a removed agent.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "print the plan; write nothing"},
			&cli.BoolFlag{Name: "force", Usage: "prune hand-edited files, blocks and keys too (backed up first)"},
		},
		OnUsageError: usageErrors,
		Action:       deleteCmd,
	})
}

func deleteCmd(c *cli.Context) error {
	g := globalsOf(c)
	names := c.Args().Slice()
	if len(names) == 0 {
		return usageError("delete: name the agent(s) to delete")
	}
	ctx, _, cancel := onSignals(cancelPolicy)
	defer cancel()
	cfg, _, err := g.LoadWith(ctx, hub.Options{})
	if err != nil {
		return err
	}
	st, err := reconcile.WorkspaceState(cfg.Root, cfg.Home)
	if err != nil {
		return err
	}
	forget, prune, err := deletions(cfg, st, names)
	if err != nil {
		return err
	}
	dry := c.Bool("dry-run")
	events := newApplyEvents(ctx, g, cfg)
	var res *reconcile.Result
	if len(prune) > 0 {
		res, err = applyPruning(ctx, cfg, reconcile.Options{
			DryRun:     dry,
			Force:      c.Bool("force"),
			Only:       prune,
			LockDigest: hub.LockDigest(cfg.Root),
		})
	}
	if err == nil && !dry {
		// Forget the agents only once their files are pruned: a failed
		// prune leaves everything as it was, ready for another try.
		err = forgetAdhoc(ctx, cfg, forget)
	}
	if res == nil {
		if err == nil {
			printForgotten(g, forget, dry)
		}
		return err
	}
	err = printResult(g, res, err)
	if err == nil {
		events.fire(res)
		events.wait()
	}
	return err
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
		if p := processState(cfg, n); p != nil && p.PID != 0 {
			return nil, nil, fmt.Errorf("delete %s: it is being served by pid %d (%s); stop that first", n, p.PID, p.Ownership)
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

// printForgotten reports agents deleted without an apply: they had no
// files.
func printForgotten(g *globals, names []string, dry bool) {
	verb := "deleted"
	if dry {
		verb = "dry run: would delete"
	}
	for _, n := range names {
		fmt.Fprintf(g.Stdout, "%s %s (it had no files to prune)\n", verb, n)
	}
}
