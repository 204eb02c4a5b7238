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
	"github.com/actctl/actctl/proxy"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

func init() {
	register(
		&cli.Command{
			Name:      "apply",
			Usage:     "reconcile every agent's files with actant.cue (plan first; any conflict writes nothing)",
			ArgsUsage: "[AGENT...]",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "dry-run", Usage: "print the plan; write nothing"},
				&cli.BoolFlag{Name: "force", Usage: "overwrite hand-edited managed files, blocks and keys (backed up first)"},
				&cli.BoolFlag{Name: "no-prune", Usage: "keep the files of agents removed from the config"},
				&cli.BoolFlag{Name: "frozen", Usage: "fail if actant.lock is missing or does not match the config's hub sources"},
				&cli.BoolFlag{Name: "watch", Usage: "keep applying: on every change of the config, a local component or a polled hub source"},
				&cli.DurationFlag{Name: "debounce", Value: reconcile.DefaultWatchDebounce, Usage: "with --watch: quiet window before a change is applied"},
			},
			OnUsageError: usageErrors,
			Action:       applyCmd,
		},
		&cli.Command{
			Name:         "diff",
			Usage:        "unified diff of every file apply would change (exit 0: none, 1: changes or hand edits, 2: error)",
			ArgsUsage:    "[AGENT...]",
			OnUsageError: usageErrors,
			Action:       diffCmd,
		},
		&cli.Command{
			Name:         "status",
			Usage:        "per agent: Synced, OutOfSync (with what drifted) or Missing",
			ArgsUsage:    "[AGENT...]",
			OnUsageError: usageErrors,
			Action:       statusCmd,
		},
	)
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
	res, err := applyPruning(ctx, cfg, reconcile.Options{
		DryRun:     c.Bool("dry-run"),
		Force:      c.Bool("force"),
		NoPrune:    c.Bool("no-prune"),
		Only:       c.Args().Slice(),
		LockDigest: hub.LockDigest(cfg.Root),
	})
	return interruptedError(ctx, printResult(g, res, err))
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

func statusCmd(c *cli.Context) error {
	g := globalsOf(c)
	cfg, err := g.Load()
	if err != nil {
		return err
	}
	out, err := agentStatuses(cfg, c.Args().Slice())
	if err != nil {
		return err
	}
	if g.JSON() {
		return g.PrintJSON(out)
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
	// The header is painted plain so that its column lines up with the
	// painted cells below it (tabwriter counts the escape bytes).
	fmt.Fprintf(tw, "NAME\t%s\tPROCESS\tDIR\tDETAILS\n", g.Color().paint(ansiPlain, "STATUS"))
	for _, s := range out {
		proc := "-"
		if s.Process != nil {
			proc = s.Process.Status
			if s.Process.PID != 0 {
				proc = fmt.Sprintf("%s pid %d (%s)", proc, s.Process.PID, s.Process.Ownership)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, g.Color().status(s.Status), proc, s.Dir, strings.Join(s.Details, "; "))
	}
	return tw.Flush()
}

// agentStatuses is what `status` reports for the agents named in only
// (every agent when it is empty): sync status plus process record.
func agentStatuses(cfg *schema.Config, only []string) ([]agentStatusJSON, error) {
	sts, err := reconcile.Status(cfg, reconcile.Options{Only: only})
	if err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, n := range only {
		keep[n] = true
	}
	out := make([]agentStatusJSON, 0, len(sts))
	for _, st := range sts {
		if len(only) == 0 || keep[st.Name] {
			out = append(out, agentStatusJSON{AgentStatus: st, Process: processState(cfg, st.Name)})
		}
	}
	return out, nil
}

// agentStatusJSON is one agent in `status -o json`.
type agentStatusJSON struct {
	reconcile.AgentStatus
	Process *processJSON `json:"process,omitempty"`
}

type processJSON struct {
	Status    string `json:"status"`
	PID       int    `json:"pid,omitempty"`
	Ownership string `json:"processOwnership,omitempty"`
}

// processState reads the agent's runtime record: which process serves it.
// A recorded pid that is no longer alive is reported as "exited".
func processState(cfg *schema.Config, name string) *processJSON {
	r, err := cfg.Resolve(name)
	if err != nil {
		return nil
	}
	rec, err := proxy.ReadRecord(proxy.RecordPath(r))
	if err != nil || (rec.Status == "" && rec.PID == 0) {
		return nil
	}
	p := &processJSON{Status: rec.Status, PID: rec.PID, Ownership: rec.ProcessOwnership}
	if rec.PID != 0 && !rec.Live() {
		p.Status, p.PID = "exited", 0
	}
	return p
}
