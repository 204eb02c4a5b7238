package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/watch"
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

// signalContext cancels on SIGINT/SIGTERM so a waiting lock gives up.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func applyCmd(c *cli.Context) error {
	g := globalsOf(c)
	if c.Bool("watch") {
		if c.Bool("dry-run") {
			return usageError("apply: --watch and --dry-run do not go together")
		}
		return applyWatch(c, g)
	}
	ctx, stop := interruptContext(g.Stderr)
	defer stop()
	cfg, _, err := g.LoadWith(ctx, hub.Options{Frozen: c.Bool("frozen")})
	if err != nil {
		return interruptedError(ctx, err)
	}
	events := newApplyEvents(ctx, g, cfg)
	res, err := applyPruning(ctx, cfg, reconcile.Options{
		DryRun:     c.Bool("dry-run"),
		Force:      c.Bool("force"),
		NoPrune:    c.Bool("no-prune"),
		Only:       c.Args().Slice(),
		LockDigest: hub.LockDigest(cfg.Root),
	})
	err = interruptedError(ctx, printResult(g, res, err))
	if err == nil {
		events.fire(res)
		events.wait()
	}
	return err
}

// printResult prints what an apply did (or, on a dry run, would do): its
// warnings, then the items and a summary line, or the JSON result.
func printResult(g *globals, res *reconcile.Result, err error) error {
	if res != nil {
		for _, w := range res.Warnings {
			fmt.Fprintf(g.Stderr, "actctl: %s\n", w)
		}
		if g.JSON() {
			if res.Items == nil {
				res.Items = []reconcile.Item{}
			}
			if perr := g.PrintJSON(res); perr != nil {
				return perr
			}
		} else {
			printItems(g, res)
			if err == nil {
				fmt.Fprintln(g.Stdout, res.Summary())
				for _, n := range res.Notes {
					fmt.Fprintf(g.Stderr, "actctl: note: %s\n", n)
				}
			}
		}
	}
	var ce *reconcile.ConflictError
	if errors.As(err, &ce) {
		return fmt.Errorf("apply: %w", err)
	}
	return err
}

// printItems writes one line per file action or finding.
func printItems(g *globals, res *reconcile.Result) {
	tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
	for _, it := range res.Items {
		var extra []string
		if len(it.Agents) > 0 {
			extra = append(extra, "agent "+strings.Join(it.Agents, ","))
		}
		if it.Policy != "" && (it.Action == reconcile.ActConflict || it.Action == reconcile.ActSkip || it.Action == reconcile.ActWarning) {
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
