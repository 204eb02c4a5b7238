package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/deploy"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/watch"
	"github.com/actctl/actctl/workspace"
)

func init() {
	register(&cli.Command{
		Name:      "apply",
		Usage:     "reconcile every agent's files with actant.cue (plan first; any conflict writes nothing)",
		ArgsUsage: "[AGENT...]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "print the plan; write nothing"},
			&cli.BoolFlag{Name: "force", Usage: "overwrite hand-edited managed files, blocks and keys (backed up first)"},
			&cli.BoolFlag{Name: "no-prune", Usage: "keep the files of agents removed from the config"},
			&cli.BoolFlag{Name: "frozen", Usage: "fail if actant.lock is missing or does not match the config's hub sources"},
			&cli.BoolFlag{Name: "watch", Usage: "keep applying: on every change of the config, a local component or a polled hub source"},
			&cli.DurationFlag{Name: "debounce", Value: watch.DefaultDebounce, Usage: "with --watch: quiet window before a change is applied"},
		},
		OnUsageError: usageErrors,
		Action:       applyCmd,
	})
}

func applyCmd(c *cli.Context) error {
	g := globalsOf(c)
	if c.Bool("watch") {
		if c.Bool("dry-run") {
			return usageError("apply: --watch and --dry-run do not go together")
		}
		return applyWatch(c, g)
	}
	start := time.Now()
	settleGC := workspace.FewerCollections()
	ctx, _, stop := onSignals(safePointPolicy(g.Stderr))
	defer stop()
	err := workspace.Apply(ctx, workspace.ApplyOptions{
		Options: g.workspace(),
		DryRun:  c.Bool("dry-run"),
		Force:   c.Bool("force"),
		NoPrune: c.Bool("no-prune"),
		Frozen:  c.Bool("frozen"),
		Only:    c.Args().Slice(),
		Plain:   plainApply(c),
		Start:   start,
		Loaded:  settleGC,
		Print:   func(res *workspace.Result, err error) error { return printResult(g, res, err) },
	})
	return interruptedError(ctx, err)
}

// applyWatch is `apply --watch`: apply, then re-apply on every change of
// the config, a local component, or a polled hub source, until a signal.
func applyWatch(c *cli.Context, g *globals) error {
	opts, err := g.LoadOptions()
	if err != nil {
		return err
	}
	root, err := schema.Find(opts)
	if err != nil {
		return err
	}
	ctx, _, cancel := onSignals(cancelPolicy)
	defer cancel()
	err = watchApply(ctx, c, g, root, nil)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// watchApply runs workspace.Watch on root with apply's flags until ctx
// ends, printing each cycle; after, if set, gets each cycle's config and
// result. From then on, g's stderr says each warning once.
func watchApply(ctx context.Context, c *cli.Context, g *globals, root string, after func(*schema.Config, *workspace.Result, error)) error {
	g.Dir = root // every cycle loads this workspace, wherever cwd is
	once := workspace.NewWarnOnce(g.Stderr)
	g.Stderr = once
	return workspace.Watch(ctx, workspace.WatchOptions{
		Options:  g.workspace(),
		Root:     root,
		Force:    c.Bool("force"),
		NoPrune:  c.Bool("no-prune"),
		Frozen:   c.Bool("frozen"),
		Only:     c.Args().Slice(),
		Debounce: c.Duration("debounce"),
		Once:     once,
		After:    after,
		Report: func(cy watch.Cycle) {
			if g.JSON() {
				g.PrintCompactJSON(cy)
				return
			}
			if cy.Err != nil {
				printError(g.Stderr, cy.Err)
				return
			}
			if cy.Summary != "" {
				fmt.Fprintln(g.Stdout, cy.Summary)
			}
		},
	})
}

// plainApply reports whether c is a plain `actctl apply`: no flag of its
// own, no agent named. Only such an apply takes the fast path and records
// its inputs (package inputs).
func plainApply(c *cli.Context) bool {
	for _, f := range c.Command.Flags {
		for _, n := range f.Names() {
			if c.IsSet(n) {
				return false
			}
		}
	}
	return c.Args().Len() == 0
}

// printResult prints what an apply did (or, on a dry run, would do): its
// warnings, then the items and a summary line, or the JSON result.
func printResult(g *globals, res *workspace.Result, err error) error {
	if res != nil {
		for _, w := range res.Warnings {
			fmt.Fprintf(g.Stderr, "actctl: %s\n", w)
		}
		if g.JSON() {
			if res.Items == nil {
				res.Items = []workspace.Item{}
			}
			if perr := g.PrintJSON(res); perr != nil {
				return perr
			}
		} else {
			printItems(g, res)
			if err == nil {
				fmt.Fprintln(g.Stdout, res.Summary())
				for _, n := range res.Notes {
					if b, ok := res.Brief(n); ok {
						fmt.Fprintf(g.Stderr, "actctl: note: %s\n", b)
					}
				}
			}
		}
	}
	var ce *workspace.ConflictError
	if errors.As(err, &ce) {
		return fmt.Errorf("apply: %w", err)
	}
	return err
}

// printItems writes one line per file action or finding, after a line
// naming the directory the paths are relative to when it is not the
// current one (`actctl -C examples/quickstart apply`).
func printItems(g *globals, res *workspace.Result) {
	if wd, err := os.Getwd(); err == nil && len(res.Items) > 0 && !sameDir(wd, res.Root) {
		where := res.Root
		if rel, err := filepath.Rel(wd, res.Root); err == nil && filepath.IsLocal(rel) {
			where = rel
		}
		fmt.Fprintf(g.Stdout, "in %s%c:\n", where, filepath.Separator)
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
	for _, it := range res.Items {
		var extra []string
		if len(it.Agents) > 0 {
			owner := "agent "
			if strings.HasPrefix(it.Agents[0], deploy.OwnerPrefix) {
				owner = "target " // a deploy: target's file (docs/deploy.md)
			}
			extra = append(extra, owner+strings.Join(it.Agents, ","))
		}
		if it.Policy != "" && (it.Action == workspace.ActConflict || it.Action == workspace.ActSkip || it.Action == workspace.ActWarning) {
			extra = append(extra, "workDirConflict="+it.Policy)
		}
		if it.Reason != "" {
			extra = append(extra, it.Reason)
		}
		if it.Backup != "" {
			extra = append(extra, "backup "+it.Backup)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", g.Color().action(it.Action), it.Path, strings.Join(extra, "; "))
	}
	tw.Flush()
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}
