package workspace

// loadConfig is schema.Load through the config cache (docs/design.md,
// "The config cache"): the snapshot of the last evaluation when none of
// the files it read changed, else CUE. A snapshot that does not load is
// ignored: the evaluation gives the authoritative answer, errors
// included.
func (g *globals) loadConfig(o schema.LoadOptions) (*schema.Config, error) {
	root, err := schema.Find(o)
	if err != nil {
		return nil, err
	}
	home, err := o.HomeDir()
	if err != nil {
		return nil, err
	}
	g.configKey, g.evaluated = nil, nil
	snap, key, why := inputs.ConfigSnapshot(root, home)
	if snap != nil {
		cfg, err := schema.LoadSnapshot(root, home, snap)
		if err == nil {
			g.debug("config", "from the cache")
			return cfg, nil
		}
		why = err.Error()
	}
	g.debug("config", "evaluated: %s", why)
	cfg, err := schema.LoadDir(root, home)
	if err == nil {
		g.configKey, g.evaluated = key, cfg
	}
	return cfg, err
}

// saveConfig saves the snapshot of the config this process evaluated in
// the config cache; called once an apply succeeded, so that the cache is
// only written where actctl keeps its state.
func (g *globals) saveConfig() {
	if g.evaluated == nil {
		return
	}
	if err := g.configKey.Save(g.evaluated.Snapshot); err != nil {
		g.debug("config", "%v", err)
	}
	g.configKey, g.evaluated = nil, nil
}

// concerns reports whether a warning at config path is for this run
// (see OnlyAgent and Acts): about one of its agents, or their templates
// (and those rendered as their sub-agents), or about no agent.
func (g *globals) concerns(cfg *schema.Config, path string) bool {
	acts := []string{g.OnlyAgent}
	switch {
	case g.Acts != nil:
		acts = g.Acts(cfg)
	case g.OnlyAgent == "":
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
