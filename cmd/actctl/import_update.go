package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/importer"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/workspace"
)

// importUpdateOutput is `import --update`'s -o json document (docs/json.md).
type importUpdateOutput struct {
	DryRun bool              `json:"dryRun"`
	Taken  []importer.Taken  `json:"taken"`
	Left   []importer.Left   `json:"left"`
	Apply  *workspace.Result `json:"apply,omitempty"`
}

// importUpdate is `import --update`: every hand edit of imported text
// (a drifted block that is one prompt) is written back into that prompt
// in actant.cue, then apply records it (no agent file changes).
func importUpdate(c *cli.Context, g *globals) error {
	if len(c.StringSlice("backend")) > 0 || c.Bool("move") {
		return usageError("import: --update takes no --backend or --move")
	}
	cfg, err := g.Load()
	if err != nil {
		return err
	}
	ctx, _, stop := onSignals(safePointPolicy(g.Stderr))
	defer stop()
	out := importUpdateOutput{DryRun: c.Bool("dry-run"), Taken: []importer.Taken{}, Left: []importer.Left{}}
	taken, left, err := importer.Update(ctx, cfg, out.DryRun)
	out.Taken, out.Left = append(out.Taken, taken...), append(out.Left, left...)
	if err != nil || out.DryRun || len(taken) == 0 {
		if perr := printImportUpdate(g, out); err == nil {
			err = perr
		}
		return err
	}
	return workspace.Apply(ctx, workspace.ApplyOptions{Options: g.workspace(), Start: time.Now(),
		Print: func(res *workspace.Result, err error) error {
			out.Apply = res
			if perr := printImportUpdate(g, out); perr != nil {
				return perr
			}
			if g.JSON() {
				return err
			}
			return printResult(g, res, err)
		}})
}

// printImportUpdate says what was taken into the config and what was left.
func printImportUpdate(g *globals, out importUpdateOutput) error {
	if g.JSON() {
		return g.PrintJSON(out)
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
	for _, t := range out.Taken {
		fmt.Fprintf(tw, "  take\t%s\tagent %s\t-> %s at %s\n", termsafe.Line(t.File), termsafe.Line(t.Agent), t.Prompt, t.At)
	}
	for _, l := range out.Left {
		fmt.Fprintf(tw, "  left\t%s\tagent %s\t%s\n", termsafe.Line(l.File), termsafe.Line(l.Agent), l.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	verb := "took"
	if out.DryRun {
		verb = "would take"
	}
	switch {
	case len(out.Taken) == 0 && len(out.Left) == 0:
		fmt.Fprintln(g.Stdout, "no hand edit of imported text to take")
	default:
		fmt.Fprintf(g.Stdout, "%s %d edit(s) into the config; %d left\n", verb, len(out.Taken), len(out.Left))
	}
	return nil
}
