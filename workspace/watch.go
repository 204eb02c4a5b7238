package workspace

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/watch"
)

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

// watchApply runs the watch loop of apply --watch on root until ctx ends;
// after, if set, gets each cycle's config and result (also a failed
// cycle's, with a nil result when the config did not load).
func watchApply(ctx context.Context, c *cli.Context, g *globals, root string, after func(*schema.Config, *reconcile.Result, error)) error {
	applyOpts := reconcile.Options{Force: c.Bool("force"), NoPrune: c.Bool("no-prune"), Only: c.Args().Slice()}
	// up AGENT... applies, as it runs, only the agents named (a pod
	// holds those: docs/deploy.md); up with no names applies them all.
	if os.Getenv("GOGC") == "" {
		// A cycle allocates ~20 MB and keeps under 1 MB (100 agents): the
		// default GOGC=100 collects about five times per cycle, which costs
		// more than a quarter of its CPU. A watch process trades a few tens
		// of MB of heap for fewer collections (GOGC in the environment wins).
		debug.SetGCPercent(400)
	}
	frozen := c.Bool("frozen")
	g.Dir = root // every cycle loads this workspace, wherever cwd is
	// Hooks run in the background across cycles; they end with the watch.
	hookCtx, bg := ctx, &background{}
	defer bg.wg.Wait()

	once := newWarnOnce(g.Stderr)
	g.Stderr = once
	run := func(ctx context.Context, trigger []string) (watch.Result, error) {
		once.cycle()
		start := time.Now()
		cfg, rep, err := g.LoadWith(ctx, hub.Options{Frozen: frozen})
		if err != nil {
			if after != nil {
				after(nil, nil, err)
			}
			return watch.Result{}, err
		}
		o := applyOpts
		o.LockDigest = hub.LockDigest(cfg.Root)
		events := newApplyEvents(hookCtx, g, cfg)
		res, err := applyPruning(ctx, cfg, o)
		if res != nil {
			res.Since(start, hubTime(rep)) // as apply's (apply.go)
		}
		if err == nil {
			seedHeartbeats(g, cfg, o.Only)
			g.saveConfig() // as apply's: status and get under up take it
			events.fire(res)
			bg.add(events)
		}
		if after != nil {
			after(cfg, res, err)
		}
		dirs, files := cfg.LocalComponents()
		wr := watch.Result{Spec: watch.Spec{Dirs: dirs, Files: files}}
		if res != nil {
			if res.Items == nil {
				res.Items = []reconcile.Item{} // a list, never null (docs/json.md), as printResult's
			}
			wr.Summary, wr.JSON = res.Summary(), res
			for _, it := range res.Items {
				p := it.Path
				if !filepath.IsAbs(p) {
					p = filepath.Join(res.Root, p)
				}
				wr.Written = append(wr.Written, p)
			}
			for _, w := range res.Warnings {
				fmt.Fprintf(g.Stderr, "actctl: %s\n", w)
			}
		}
		return wr, err
	}

	pollers, err := hubPollers(hookCtx, g, root, bg)
	if err != nil {
		return err
	}
	err = watch.Watch(ctx, watch.Options{
		Debounce: c.Duration("debounce"),
		Base:     watch.Workspace(root),
		Run:      run,
		Pollers:  pollers,
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
	return err
}

// hubPollers polls every hub source with an interval: when its ref moved,
// the lock is updated for that source (fetching the new commit) and the
// watch re-applies.
func hubPollers(hookCtx context.Context, g *globals, root string, bg *background) ([]watch.Poller, error) {
	cfg, err := schema.LoadDir(root, mustHome(g))
	if err != nil {
		// A broken config is reported by the first cycle; poll nothing yet.
		return nil, nil
	}
	var out []watch.Poller
	for _, name := range slices.Sorted(maps.Keys(cfg.Hub)) {
		src := cfg.Hub[name]
		if src.Interval == "" {
			continue
		}
		d, err := time.ParseDuration(src.Interval)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("hub %s: interval %q: want a duration like 30s or 5m", name, src.Interval)
		}
		name := name
		out = append(out, watch.Poller{
			Name:     name,
			Interval: d,
			Poll: func(ctx context.Context) (bool, error) {
				cfg, err := schema.LoadDir(root, mustHome(g))
				if err != nil {
					return false, err
				}
				moved, err := hub.Poll(ctx, cfg, name)
				if err != nil || !moved {
					return false, err
				}
				rep, err := hub.Ensure(ctx, cfg, hub.Options{Update: []string{name}, Warn: func(s string) { g.Warn("%s", s) }})
				if err != nil {
					return false, err
				}
				for _, sr := range rep.Sources {
					if sr.Name == name && sr.Previous != "" {
						fmt.Fprintf(g.Stderr, "actctl: hub %s moved: %s -> %s\n", name, short(sr.Previous), short(sr.Commit))
						sourceUpdated(hookCtx, g, cfg, bg, name, sr.Previous, sr.Commit)
					}
				}
				return true, nil
			},
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

func mustHome(g *globals) string {
	o, err := g.LoadOptions()
	if err != nil {
		return ""
	}
	h, err := o.HomeDir()
	if err != nil {
		return ""
	}
	return h
}
