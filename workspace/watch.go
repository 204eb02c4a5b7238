package workspace

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/internal/clock"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/watch"
)

// WatchOptions are a watch's: apply's flags, and what is done with each
// cycle.
type WatchOptions struct {
	Options
	// Root is the workspace root: every cycle loads it, wherever the
	// working directory is.
	Root    string
	Force   bool // overwrite hand edits (backed up first)
	NoPrune bool // keep the files of agents removed from the config
	Frozen  bool // actant.lock must exist and match the hub sources
	// Only are the agents applied: up AGENT... applies, as it runs, only
	// the agents named (a pod holds those: docs/deploy.md); none: all.
	Only     []string
	Debounce time.Duration // the quiet window before a change is applied
	// Once is Stderr saying each warning once; nil: Watch makes one over
	// Stderr. Watch starts one of its cycles with each of its own.
	Once *WarnOnce
	// After, if set, gets each cycle's config and result (also a failed
	// cycle's, with a nil result when the config did not load).
	After func(*schema.Config, *Result, error)
	// Report prints each cycle.
	Report func(watch.Cycle)
	// Clock is the cycles' (nil: the real clock): when a cycle starts,
	// and when one whose inputs were racy runs again (tests give a fake).
	Clock clock.Clock
}

// Watch is the loop of apply --watch and up: apply, then re-apply on
// every change of the config, a local component, or a polled hub source,
// until ctx ends.
func Watch(ctx context.Context, o WatchOptions) error {
	o.Dir = o.Root
	if o.Clock == nil {
		o.Clock = clock.Real()
	}
	if o.Once == nil {
		o.Once = NewWarnOnce(o.Stderr)
	}
	o.Stderr = o.Once
	// Hooks run in the background across cycles; they end with the watch.
	w := &watcher{o: o, hookCtx: ctx, bg: &Background{}, gc: newWatchGC()}
	defer w.gc.done()
	defer w.bg.Wait()
	pollers, err := hubPollers(ctx, o.Options, o.Root, w.bg)
	if err != nil {
		return err
	}
	return watch.Watch(ctx, watch.Options{
		Debounce: o.Debounce,
		Base:     watch.Workspace(o.Root),
		Run:      w.run,
		Pollers:  pollers,
		Report:   o.Report,
		Clock:    o.Clock,
	})
}

// watcher is a running Watch.
type watcher struct {
	o       WatchOptions
	hookCtx context.Context // the hooks' context: the watch's
	bg      *Background
	gc      *watchGC // the GOGC of the cycles, from the heap's size
	loaded  bool     // a cycle loaded the config
}

// run is one cycle: load, apply, and the rest of an apply's (heartbeats,
// config cache, hooks in the background); what it read and wrote tells
// the watch what to watch next.
func (w *watcher) run(ctx context.Context, trigger []string) (watch.Result, error) {
	w.o.Once.cycle()
	start := w.o.Clock.Now()
	warned := false
	l, err := Load(ctx, w.o.Options, hub.Options{Frozen: w.o.Frozen, Warn: func(s string) {
		warned = true
		w.o.warn("%s", s)
	}})
	if err != nil {
		if w.o.After != nil {
			w.o.After(nil, nil, err)
		}
		return watch.Result{}, err
	}
	w.gc.settle(!w.loaded)
	w.loaded = true
	defer w.gc.settle(false)
	cfg := l.Config
	events := newApplyEvents(w.hookCtx, w.o.Options, cfg)
	res, err := applyPruning(ctx, cfg, reconcile.Options{Force: w.o.Force, NoPrune: w.o.NoPrune, Only: w.o.Only,
		LockDigest: hub.LockDigest(cfg.Root)})
	if res != nil {
		res.Since(start, hubTime(l.Hub)) // as Apply's
	}
	var settles time.Time
	if err == nil {
		seedHeartbeats(w.o.Options, cfg, w.o.Only)
		l.SaveConfig() // as Apply's: status and get under up take it
		if w.plain() && !warned && quiet(res) {
			// As a plain apply's: status under up takes the fast path.
			settles = recordInputs(w.o.Options, l, res, start)
		}
		events.fire(res)
		w.bg.add(events)
	}
	if w.o.After != nil {
		w.o.After(cfg, res, err)
	}
	wr := w.result(cfg, res)
	// A run only to record settled inputs that changed nothing is not
	// news: not reported.
	wr.Silent = slices.Equal(trigger, []string{watch.TriggerAgain}) && res != nil && len(res.Items) == 0 && quiet(res)
	if !settles.IsZero() {
		// An input saved just before (every edit: the watch debounces
		// 50 ms) was racy: neither the inputs record nor the config cache
		// holds, and every status would load and render until the next
		// cycle. One more, once it settled, records them.
		wr.Again = max(settles.Sub(w.o.Clock.Now()), time.Millisecond)
	}
	return wr, err
}

// plain reports whether the watch's cycles are plain applies: every
// agent, no flag.
func (w *watcher) plain() bool {
	return len(w.o.Only) == 0 && !w.o.Force && !w.o.NoPrune && !w.o.Frozen
}

// result is what the watch is told of a cycle that loaded cfg and gave
// res (nil when the apply failed before one): what to watch, the summary
// and the files written; res's warnings are printed.
func (w *watcher) result(cfg *schema.Config, res *Result) watch.Result {
	dirs, files := cfg.LocalComponents()
	wr := watch.Result{Spec: watch.Spec{Dirs: dirs, Files: files}}
	if res == nil {
		return wr
	}
	if res.Items == nil {
		res.Items = []Item{} // a list, never null (docs/json.md), as apply prints it
	}
	wr.Summary, wr.JSON = res.Summary(), res
	for _, it := range res.Items {
		p := it.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(res.Root, p)
		}
		wr.Written = append(wr.Written, p)
	}
	for _, warning := range res.Warnings {
		fmt.Fprintf(w.o.Stderr, "actctl: %s\n", warning)
	}
	return wr
}

// hubPollers polls every hub source with an interval: when its ref moved,
// the lock is updated for that source (fetching the new commit) and the
// watch re-applies.
func hubPollers(hookCtx context.Context, o Options, root string, bg *Background) ([]watch.Poller, error) {
	cfg, err := schema.LoadDir(root, o.home())
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
				cfg, err := schema.LoadDir(root, o.home())
				if err != nil {
					return false, err
				}
				moved, err := hub.Poll(ctx, cfg, name)
				if err != nil || !moved {
					return false, err
				}
				rep, err := hub.Ensure(ctx, cfg, hub.Options{Update: []string{name}, Warn: func(s string) { o.warn("%s", s) }})
				if err != nil {
					return false, err
				}
				for _, sr := range rep.Sources {
					if sr.Name == name && sr.Previous != "" {
						fmt.Fprintf(o.Stderr, "actctl: hub %s moved: %s -> %s\n", name, short(sr.Previous), short(sr.Commit))
						SourceUpdated(hookCtx, o, cfg, bg, name, sr.Previous, sr.Commit)
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
