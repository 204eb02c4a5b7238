package workspace

import (
	"context"
	"fmt"
	"strings"

	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/inputs"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

// Loaded is a config Load gave, with what saving it in the config cache
// takes.
type Loaded struct {
	Config *schema.Config
	// Hub is what the hub did; nil when the config has no hub source and
	// none was asked for.
	Hub *hub.Report
	// key and evaluated are the config cache's key and the config this
	// load evaluated from CUE under it (see loadConfig); nil when it came
	// from the cache.
	key       *inputs.ConfigKey
	evaluated *schema.Config
	o         Options
	// ignored are the ad-hoc agents (or their file) the load ignored,
	// said as warnings.
	ignored []string
}

// Load finds and loads the workspace config, printing its warnings, and
// makes its hub sources available as ho says (with ReadOnly: lock and
// cache satisfied, no network, actant.lock never written: README, "Global
// flags and conventions": read-only commands write nothing). The agents
// `actctl proxy -t` created are merged in.
func Load(ctx context.Context, o Options, ho hub.Options) (*Loaded, error) {
	lo, err := o.LoadOptions()
	if err != nil {
		return nil, err
	}
	l, err := loadConfig(o, lo)
	if err != nil {
		return nil, err
	}
	cfg := l.Config
	for _, w := range cfg.Warnings {
		if o.concerns(cfg, w.Path) && (o.Checking || !deployOrSchedule(w.Path)) {
			fmt.Fprintf(o.Stderr, "actctl: %s\n", w)
		}
	}
	if len(cfg.Hub) > 0 || ho.Frozen || ho.UpdateAll || len(ho.Update) > 0 {
		if o.Progress != nil {
			ho.Progress = o.Progress // go-git's sideband too: objects, bytes
		}
		if ho.Warn == nil {
			ho.Warn = func(s string) { o.warn("%s", s) }
		}
		if l.Hub, err = hub.Ensure(ctx, cfg, ho); err != nil {
			return nil, err
		}
	}
	// Agents created by `proxy -t` belong to the workspace too.
	ignored, err := schema.MergeAdhoc(cfg, reconcile.MetaTracked(cfg.Root))
	if err != nil {
		return nil, err
	}
	for _, s := range ignored {
		o.warn("%s", s)
	}
	l.ignored = ignored
	return l, nil
}

// loadConfig is schema.Load through the config cache (docs/design.md,
// "The config cache"): the snapshot of the last evaluation when none of
// the files it read changed, else CUE. A snapshot that does not load is
// ignored: the evaluation gives the authoritative answer, errors
// included.
func loadConfig(o Options, lo schema.LoadOptions) (*Loaded, error) {
	root, err := schema.Find(lo)
	if err != nil {
		return nil, err
	}
	home, err := lo.HomeDir()
	if err != nil {
		return nil, err
	}
	snap, key, why := inputs.ConfigSnapshot(root, home)
	if snap != nil {
		cfg, err := schema.LoadSnapshot(root, home, snap)
		if err == nil {
			o.debug("config", "from the cache")
			return &Loaded{Config: cfg, o: o}, nil
		}
		why = err.Error()
	}
	o.debug("config", "evaluated: %s", why)
	cfg, err := schema.LoadDir(root, home)
	if err != nil {
		return nil, err
	}
	return &Loaded{Config: cfg, key: key, evaluated: cfg, o: o}, nil
}

// SaveConfig saves the snapshot of the config l evaluated in the config
// cache, once; called once an apply succeeded (or an agent was
// materialized), so that the cache is only written where actctl keeps
// its state. It does nothing on a nil l or a config from the cache.
func (l *Loaded) SaveConfig() {
	if l == nil || l.evaluated == nil {
		return
	}
	if err := l.key.Save(l.evaluated.Snapshot); err != nil {
		l.o.debug("config", "%v", err)
	}
	l.key, l.evaluated = nil, nil
}

// ReleaseConfig lets the config l evaluated go of CUE's value when the
// config cache will keep its snapshot (schema.Config.Release: the
// snapshot is made now instead of by SaveConfig), so that an apply does
// not hold both CUE's evaluation and everything it renders (a cold apply
// of 10,000 agents: docs/benchmarks.md, "Cold apply at 10,000 agents").
// It does nothing on a nil l, a config from the cache, or one whose
// inputs changed while it loaded (the cache will not keep it: making the
// snapshot would be wasted).
func (l *Loaded) ReleaseConfig() {
	if l == nil || l.evaluated == nil || !l.key.Settled() {
		return
	}
	if err := l.evaluated.Release(); err != nil {
		l.o.debug("config", "%v", err)
	}
}

// concerns reports whether a warning at config path is for this run
// (see OnlyAgent and Acts): about one of its agents, or their templates
// (and those rendered as their sub-agents), or about no agent.
func (o Options) concerns(cfg *schema.Config, path string) bool {
	acts := []string{o.OnlyAgent}
	switch {
	case o.Acts != nil:
		acts = o.Acts(cfg)
	case o.OnlyAgent == "":
		return true
	}
	for _, name := range acts {
		if under(path, schema.Path("agents", name)) {
			return true
		}
		a, ok := cfg.Agents[name]
		if !ok {
			continue
		}
		for _, t := range append([]string{a.Template}, cfg.Templates[a.Template].SubAgents...) {
			if under(path, schema.Path("templates", t)) {
				return true
			}
		}
	}
	return !strings.HasPrefix(path, "agents.") && !strings.HasPrefix(path, "templates.")
}

// under reports whether config path is at or below prefix.
func under(path, prefix string) bool { return path == prefix || strings.HasPrefix(path, prefix+".") }

// deployOrSchedule reports whether a warning at path is about a deploy
// target or a schedule.
func deployOrSchedule(path string) bool {
	return path == "deploy" || strings.HasPrefix(path, "deploy.") ||
		strings.Contains(path, ".deploy") || strings.Contains(path, ".schedule")
}
