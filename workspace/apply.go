package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/inputs"
	"github.com/actctl/actctl/internal/gitignored"
	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
)

// ApplyOptions are an apply's: its flags, and how its result is printed.
type ApplyOptions struct {
	Options
	DryRun  bool     // plan only; write nothing
	Force   bool     // overwrite hand edits (backed up first)
	NoPrune bool     // keep the files of agents removed from the config
	Frozen  bool     // actant.lock must exist and match the hub sources
	Only    []string // the agents named; none: all
	// Plain is a plain `actctl apply` (no flag of its own, no agent
	// named): only it takes the fast path and records its inputs
	// (package inputs).
	Plain bool
	// Start is when the command started; the result's duration counts
	// from it.
	Start time.Time
	// Loaded, when set, is called once the config is loaded.
	Loaded func()
	// Print prints the result (nil when the apply failed before one) and
	// the apply's error, and returns the error the command ends with. It
	// runs before the heartbeats, the records and the hooks, which only
	// follow a nil error.
	Print func(*Result, error) error
}

// Apply loads the workspace and applies it (docs/design.md, "Plan, then
// execute"): with nothing changed since the last plain apply, the fast
// path's "no changes"; else the apply, pruning the runtime records of
// removed agents, then, once it is printed and succeeded, the heartbeats
// of its employees, the config cache, the inputs record of a plain apply
// that printed nothing but its changes, and the agent:* hooks (waited for).
func Apply(ctx context.Context, o ApplyOptions) error {
	if o.Plain {
		if res := fastApply(o.Options, o.Start); res != nil {
			return o.Print(res, nil)
		}
	}
	warned := false
	l, err := Load(ctx, o.Options, hub.Options{Frozen: o.Frozen, Warn: func(s string) {
		warned = true
		o.warn("%s", s)
	}})
	if err != nil {
		return err
	}
	if o.Loaded != nil {
		o.Loaded()
	}
	if !o.DryRun {
		l.ReleaseConfig()
	}
	cfg, rep := l.Config, l.Hub
	events := newApplyEvents(ctx, o.Options, cfg)
	res, err := applyPruning(ctx, cfg, reconcile.Options{
		DryRun:     o.DryRun,
		Force:      o.Force,
		NoPrune:    o.NoPrune,
		Only:       o.Only,
		LockDigest: hub.LockDigest(cfg.Root),
	})
	if err == nil && !o.DryRun {
		res.Notes = append(res.Notes, ignoredNote(res)...)
	}
	if res != nil {
		res.Since(o.Start, hubTime(rep))
		res.LockUpdated(rep != nil && rep.LockChanged)
	}
	if err = o.Print(res, err); err != nil {
		return err
	}
	if !o.DryRun {
		seedHeartbeats(o.Options, cfg, o.Only)
		l.SaveConfig()
	}
	if o.Plain && !warned && quiet(res) {
		recordInputs(o.Options, l, res, o.Start)
	}
	events.fire(res)
	events.wait()
	return nil
}

// recordInputs records what an apply of cfg that started at start read
// and left (res), for the next plain apply's fast path and status
// (inputs.Save): called after a plain apply, or a watch cycle that is
// one, that was quiet and warned of nothing. It returns when the inputs
// it found racy settle (zero: none was; see inputs.Save).
func recordInputs(o Options, l *Loaded, res *Result, start time.Time) time.Time {
	st, sum := res.LeftState()
	src := applySources(l.Config, l.Hub)
	src.Agents = listedAgents(l.Config, st)
	said := said(o, l.Config, res)
	for _, s := range l.ignored {
		said.Status = append(said.Status, "warning: "+s) // as Load warns
	}
	settles, err := inputs.Save(src, said, start, st, sum)
	if err != nil {
		o.warn("%v", err)
	}
	return settles
}

// hubTime is the time rep spent on the network, zero when it used none.
func hubTime(rep *hub.Report) time.Duration {
	if rep == nil || !rep.Fetched() {
		return 0
	}
	return rep.Elapsed
}

// fastApply is apply's fast path (docs/design.md, "The apply fast path"):
// when nothing the last plain apply read has changed and every file it
// wrote is as it left it, the result is "no changes", found without
// evaluating the config. It returns nil when the normal path must run.
// With ACTCTL_DEBUG=1 it says on stderr which path runs and why.
func fastApply(o Options, start time.Time) *Result {
	debug := func(format string, args ...any) { o.debug("apply", format, args...) }
	root, home, err := o.rootAndHome()
	if err != nil {
		debug("full path: %v", err)
		return nil
	}
	said, why := inputs.Check(root, home)
	if why != "" {
		debug("full path: %s", why)
		return nil
	}
	debug("fast path: inputs and outputs unchanged")
	for _, w := range said.Config {
		fmt.Fprintf(o.Stderr, "actctl: %s\n", w) // as Load prints them
	}
	d := time.Since(start)
	res := &Result{Root: root, Warnings: said.Render, Duration: d, DurationMS: float64(d.Microseconds()) / 1000}
	res.Counts.Warnings = len(said.Render) // as the normal path counts them
	return res
}

// quiet reports whether an apply that gave res printed nothing but its
// changes, its summary and the warnings its inputs alone cause (see said;
// counts.warnings counts those too, so a warning action is one more):
// only then does the next apply, with nothing changed, print exactly
// those warnings and "no changes", as the fast path does.
func quiet(res *Result) bool {
	c := res.Counts
	return !res.Recovered && !res.Distrusted && c.Skipped == 0 && c.Drifted == 0 && c.Conflicts == 0 && c.Warnings == len(res.Warnings)
}

// said are the warnings an apply of cfg that gave res printed that the
// same inputs print again: the config's (as Load selects
// them) and the renderer's.
func said(o Options, cfg *schema.Config, res *Result) inputs.Said {
	var s inputs.Said
	for _, w := range cfg.Warnings {
		if o.concerns(cfg, w.Path) {
			s.Config = append(s.Config, w.String())
			if !deployOrSchedule(w.Path) {
				s.Status = append(s.Status, w.String())
			}
		}
	}
	s.Render = res.Warnings
	return s
}

// applySources are the inputs of an apply of cfg that package inputs
// cannot find itself: local components and the hub trees used (rep).
func applySources(cfg *schema.Config, rep *hub.Report) inputs.Sources {
	dirs, files := cfg.LocalComponents()
	if rep != nil {
		for _, s := range rep.Sources {
			files = append(files, hub.TreeRecords(s.Dir)...)
		}
	}
	// The files an agent's instructions shadow change what apply writes
	// (docs/formats.md, "claude-code").
	files = append(files, materialize.ShadowInputs(cfg)...)
	return inputs.Sources{Root: cfg.Root, Home: cfg.Home, Trees: dirs, Files: files}
}

// ignoredNote says when what apply created in the workspace is ignored by
// the .gitignore of a repository enclosing it (the repository's examples:
// README, "Quick start"), so that git status not listing it surprises
// no one.
func ignoredNote(res *Result) []string {
	var created []string
	for _, it := range res.Items {
		if it.Action == reconcile.ActCreate && !filepath.IsAbs(it.Path) {
			created = append(created, filepath.ToSlash(it.Path))
		}
	}
	ignored, file := gitignored.Above(res.Root, created)
	if len(ignored) == 0 {
		return nil
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, file); err == nil && filepath.IsLocal(rel) {
			file = rel
		}
	}
	return []string{fmt.Sprintf("the repository's %s ignores %s of the files written here: git status does not list them", file, countOf(len(ignored), len(created)))}
}

// countOf is "all" when n is total, else "n".
func countOf(n, total int) string {
	if n == total {
		return "all"
	}
	return strconv.Itoa(n)
}

// applyPruning is reconcile.Apply that also removes the runtime record and
// proxy log of every agent it prunes (runrecord.RemovePruned), as
// delete does.
func applyPruning(ctx context.Context, cfg *schema.Config, o reconcile.Options) (*Result, error) {
	res, err := reconcile.Apply(ctx, cfg, o)
	if err != nil || o.DryRun || res == nil {
		return res, err
	}
	for _, name := range res.Pruned {
		dir := res.PrunedDir(name)
		if dir == "" {
			continue
		}
		if err := runrecord.RemovePruned(cfg.Home, name, dir); err != nil {
			return res, fmt.Errorf("pruned %s, but removing its runtime record failed: %w", name, err)
		}
	}
	return res, nil
}
