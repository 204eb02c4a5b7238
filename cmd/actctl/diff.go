package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/reconcile"
)

func init() {
	register(&cli.Command{
		Name:         "diff",
		Usage:        "unified diff of every file apply would change (exit 0: none, 1: changes or hand edits, 2: error)",
		ArgsUsage:    "[AGENT...]",
		OnUsageError: usageErrors,
		Action:       diffCmd,
	})
}

func diffCmd(c *cli.Context) error {
	g := globalsOf(c)
	cfg, err := g.Load()
	if err != nil {
		return withCode(2, err)
	}
	diffs, res, err := reconcile.Diff(cfg, reconcile.Options{Only: c.Args().Slice()})
	if err != nil {
		var ce *reconcile.ConflictError
		if !errors.As(err, &ce) {
			return withCode(2, err)
		}
	}
	if g.JSON() {
		if diffs == nil {
			diffs = []reconcile.FileDiff{}
		}
		out := map[string]any{"changes": len(diffs) > 0, "files": diffs, "actions": []reconcile.Item{}}
		if res != nil && res.Items != nil {
			out["actions"] = res.Items
		}
		if perr := g.PrintJSON(out); perr != nil {
			return withCode(2, perr)
		}
	} else {
		for _, d := range diffs {
			if d.Unified == "" {
				fmt.Fprintf(g.Stdout, "%s directory %s\n", g.Color().action(d.Action), d.Path)
				continue
			}
			fmt.Fprint(g.Stdout, g.Color().diff(d.Unified))
		}
		if res != nil {
			for _, it := range res.Items {
				if it.Action == reconcile.ActDrift || it.Action == reconcile.ActConflict || it.Action == reconcile.ActWarning {
					fmt.Fprintf(g.Stderr, "actctl: %s: %s: %s\n", it.Action, it.Path, it.Reason)
				}
			}
		}
	}
	if err != nil {
		return withCode(2, fmt.Errorf("diff: %w", err))
	}
	if len(diffs) > 0 || (res != nil && res.Counts.Drifted > 0) {
		// A hand edit of a file actctl manages is a difference between
		// the disk and what apply would write, too.
		return withCode(1, nil)
	}
	return nil
}
