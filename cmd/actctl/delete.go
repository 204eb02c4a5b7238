package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/proxy"
	"github.com/actctl/actctl/reconcile"
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
	ctx, cancel := signalContext()
	defer cancel()
	cfg, _, err := g.LoadWith(ctx, hub.Options{})
	if err != nil {
		return err
	}
	st, err := reconcile.WorkspaceState(cfg.Root)
	if err != nil {
		return err
	}
	var adhoc []*schema.Resolved
	for _, n := range names {
		a, ok := cfg.Agents[n]
		if !ok {
			if st.Agents[n] != nil {
				continue // applied, no longer declared: prune what is left
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
			return errors.New(msg)
		}
		if !a.Adhoc {
			return schema.Diagnostics{cfg.Diag(schema.Path("agents", n), "agent %q is declared here; delete removes only agents actctl proxy created: remove it from the config, then run actctl apply", n)}
		}
		if p := processState(cfg, n); p != nil && p.PID != 0 {
			return fmt.Errorf("delete %s: it is being served by pid %d (%s); stop that first", n, p.PID, p.Ownership)
		}
		r, rerr := cfg.Resolve(n)
		if rerr != nil {
			return fmt.Errorf("delete %s: %w", n, rerr)
		}
		adhoc = append(adhoc, r)
		delete(cfg.Agents, n)
	}
	dry := c.Bool("dry-run")
	events := newApplyEvents(ctx, g, cfg)
	res, err := reconcile.Apply(ctx, cfg, reconcile.Options{
		DryRun:     dry,
		Force:      c.Bool("force"),
		Only:       names,
		LockDigest: hub.LockDigest(cfg.Root),
	})
	if err == nil && !dry {
		// Forget the agents only once their files are pruned: a failed
		// prune leaves everything as it was, ready for another try.
		for _, r := range adhoc {
			rerr := proxy.RemoveRuntime(r)
			if rerr == nil {
				rerr = recordAdhoc(ctx, cfg.Root, r.Name, nil)
			}
			if rerr != nil {
				err = fmt.Errorf("delete %s: files pruned, but forgetting the agent failed: %w", r.Name, rerr)
				break
			}
		}
	}
	err = printResult(g, res, err)
	if err == nil {
		events.fire(res)
		events.wait()
	}
	return err
}
