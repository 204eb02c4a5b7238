package workspace

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
func fastApply(g *globals, start time.Time) *reconcile.Result {
	debug := func(format string, args ...any) { g.debug("apply", format, args...) }
	o, err := g.LoadOptions()
	if err != nil {
		return nil
	}
	root, rerr := schema.Find(o)
	home, herr := o.HomeDir()
	if rerr != nil || herr != nil {
		debug("full path: %v", errors.Join(rerr, herr))
		return nil
	}
	said, why := inputs.Check(root, home)
	if why != "" {
		debug("full path: %s", why)
		return nil
	}
	debug("fast path: inputs and outputs unchanged")
	for _, w := range said.Config {
		fmt.Fprintf(g.Stderr, "actctl: %s\n", w) // as globals.LoadWith prints them
	}
	d := time.Since(start)
	res := &reconcile.Result{Root: root, Warnings: said.Render, Duration: d, DurationMS: float64(d.Microseconds()) / 1000}
	res.Counts.Warnings = len(said.Render) // as the normal path counts them
	return res
}

// quiet reports whether an apply that gave res printed nothing but its
// changes, its summary and the warnings its inputs alone cause (see said;
// counts.warnings counts those too, so a warning action is one more):
// only then does the next apply, with nothing changed, print exactly
// those warnings and "no changes", as the fast path does.
func quiet(res *reconcile.Result) bool {
	c := res.Counts
	return !res.Recovered && !res.Distrusted && c.Skipped == 0 && c.Drifted == 0 && c.Conflicts == 0 && c.Warnings == len(res.Warnings)
}

// said are the warnings an apply of cfg that gave res printed that the
// same inputs print again: the config's (as globals.LoadWith selects
// them) and the renderer's.
func said(g *globals, cfg *schema.Config, res *reconcile.Result) inputs.Said {
	var s inputs.Said
	for _, w := range cfg.Warnings {
		if g.concerns(cfg, w.Path) {
			s.Config = append(s.Config, w.String())
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
func ignoredNote(res *reconcile.Result) []string {
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
func applyPruning(ctx context.Context, cfg *schema.Config, o reconcile.Options) (*reconcile.Result, error) {
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
