package workspace

// adopt writes the plan and applies it; if apply would not adopt every
// file as import left it, everything import wrote is undone.
func adopt(g *globals, plan *importer.Plan) (*reconcile.Result, error) {
	undo, err := plan.Write()
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	fail := func(err error) (*reconcile.Result, error) {
		if uerr := undo(); uerr != nil {
			err = errors.Join(err, fmt.Errorf("undoing the import failed: %w", uerr))
		}
		// %v, not %w: a load's diagnostics would print alone, without
		// saying that the import was undone.
		return nil, fmt.Errorf("import: %v (import undone: every file it changed holds its bytes again, and actant.cue is gone)", err)
	}
	ctx, _, stop := onSignals(safePointPolicy(g.Stderr))
	defer stop()
	cfg, _, err := g.LoadWith(ctx, hub.Options{ReadOnly: true})
	if err != nil {
		return fail(fmt.Errorf("the imported actant.cue does not load: %w", err))
	}
	dry, err := applyPruning(ctx, cfg, reconcile.Options{DryRun: true})
	if err != nil {
		return fail(err)
	}
	if bad := importer.Refused(dry); len(bad) > 0 {
		var lines []string
		for _, it := range bad {
			lines = append(lines, fmt.Sprintf("%s %s: %s", it.Action, it.Path, it.Reason))
		}
		return fail(fmt.Errorf("apply would not adopt the files as they are:\n  %s", strings.Join(lines, "\n  ")))
	}
	res, err := applyPruning(ctx, cfg, reconcile.Options{})
	if err != nil {
		return fail(err)
	}
	return res, nil
}
