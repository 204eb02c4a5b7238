package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/importer"
	"github.com/actctl/actctl/reconcile"
)

// Import writes the plan importer.Scan made and applies it (docs/import.md);
// if apply would not adopt every file as import left it, everything import
// wrote is undone.
func Import(ctx context.Context, o Options, plan *importer.Plan) (*Result, error) {
	undo, err := plan.Write()
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	fail := func(err error) (*Result, error) {
		if uerr := undo(); uerr != nil {
			err = errors.Join(err, fmt.Errorf("undoing the import failed: %w", uerr))
		}
		// %v, not %w: a load's diagnostics would print alone, without
		// saying that the import was undone.
		return nil, fmt.Errorf("import: %v (import undone: every file it changed holds its bytes again, and actant.cue is gone)", err)
	}
	l, err := Load(ctx, o, hub.Options{ReadOnly: true})
	if err != nil {
		return fail(fmt.Errorf("the imported actant.cue does not load: %w", err))
	}
	cfg := l.Config
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
