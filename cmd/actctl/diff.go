package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/workspace"
)

func init() {
	register(&cli.Command{
		Name:         "diff",
		Usage:        "unified diff of every file apply would change, and of every hand edit what apply --force restores (exit 0: none, 1: changes or hand edits, 2: error)",
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
	diffs, res, err := workspace.Diff(cfg, c.Args().Slice(), false)
	if err != nil {
		var ce *workspace.ConflictError
		if !errors.As(err, &ce) {
			return withCode(2, err)
		}
	}
	if g.JSON() {
		if diffs == nil {
			diffs = []workspace.FileDiff{}
		}
		drifted := 0
		for _, d := range diffs {
			if d.Drift {
				drifted++
			}
		}
		out := map[string]any{"changes": len(diffs) > 0, "drifted": drifted, "files": diffs, "actions": []workspace.Item{}}
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
		shown := map[string]bool{}
		for _, d := range diffs {
			shown[d.Path] = d.Drift
		}
		if res != nil {
			for _, it := range res.Items {
				if it.Action == workspace.ActDrift || it.Action == workspace.ActConflict || it.Action == workspace.ActWarning {
					more := ""
					if it.Action == workspace.ActDrift && shown[it.Path] {
						more = "; the diff above is what apply --force restores"
					}
					fmt.Fprintf(g.Stderr, "actctl: %s: %s: %s%s\n", it.Action, it.Path, it.Reason, more)
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
