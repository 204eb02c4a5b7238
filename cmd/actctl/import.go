package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/importer"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/workspace"
)

func init() {
	register(&cli.Command{
		Name:  "import",
		Usage: "write actant.cue from the agent files this repository already has, then apply it (which adopts them as they are)",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "backend", Usage: "import only this backend's files (repeatable)"},
			&cli.BoolFlag{Name: "move", Usage: "move skill directories into skills/<name>; apply writes the tool's copy"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would be taken and left, and the actant.cue; write nothing"},
			&cli.BoolFlag{Name: "update", Usage: "take hand edits of imported text back into actant.cue (docs/import.md, \"Editing imported text\"), then apply"},
		},
		OnUsageError: usageErrors,
		Action:       importCmd,
	})
}

// importOutput is import's -o json document (docs/json.md).
type importOutput struct {
	*importer.Plan
	DryRun bool              `json:"dryRun"`
	Config string            `json:"config"`
	Apply  *workspace.Result `json:"apply,omitempty"`
}

func importCmd(c *cli.Context) error {
	g := globalsOf(c)
	if c.Args().Len() > 0 {
		return usageError("import takes no arguments")
	}
	if c.Bool("update") {
		return importUpdate(c, g)
	}
	root := g.Dir
	if root == "" {
		var err error
		if root, err = os.Getwd(); err != nil {
			return err
		}
	}
	plan, err := importer.Scan(root, importer.Options{Backends: c.StringSlice("backend"), Move: c.Bool("move")})
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	out := importOutput{Plan: plan, DryRun: c.Bool("dry-run"), Config: string(plan.Config)}
	if out.DryRun {
		return printImport(g, out)
	}
	ctx, _, stop := onSignals(safePointPolicy(g.Stderr))
	defer stop()
	res, err := workspace.Import(ctx, g.workspace(), plan)
	if err != nil {
		return err
	}
	out.Apply = res
	return printImport(g, out)
}

// printImport prints what import took and left, and what it wrote. Names
// and paths come from the repository: their control characters are
// escaped (internal/termsafe).
func printImport(g *globals, out importOutput) error {
	if g.JSON() {
		if out.Apply != nil && out.Apply.Items == nil {
			out.Apply.Items = []workspace.Item{}
		}
		return g.PrintJSON(out)
	}
	p := out.Plan
	tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
	for _, it := range p.Taken {
		fmt.Fprintf(tw, "  take\t%s\t%s\t%s\n", it.Backend, termsafe.Line(what(it)), termsafe.Line(it.Path))
	}
	for _, it := range p.Left {
		fmt.Fprintf(tw, "  left\t%s\t%s\t%s: %s\n", it.Backend, termsafe.Line(what(it)), termsafe.Line(it.Path), termsafe.Line(it.Reason))
	}
	tw.Flush()
	for _, n := range p.Notes {
		fmt.Fprintf(g.Stderr, "actctl: note: %s\n", termsafe.Line(n))
	}
	verb := map[bool]string{true: "would ", false: ""}[out.DryRun]
	for _, m := range p.Moves {
		fmt.Fprintf(g.Stdout, "%smove %s to %s\n", verb, termsafe.Line(m.From), termsafe.Line(m.To))
	}
	for _, e := range p.Edits {
		fmt.Fprintf(g.Stdout, "%sput the text of %s in its agent's block (every byte kept)\n", verb, termsafe.Line(e.Path))
	}
	fmt.Fprintf(g.Stdout, "%swrite %s: agents %s; %d taken, %d left\n", verb, "actant.cue", strings.Join(p.Agents, ", "), len(p.Taken), len(p.Left))
	if out.DryRun {
		fmt.Fprintf(g.Stdout, "\n%s", out.Config)
		return nil
	}
	return printResult(g, out.Apply, nil)
}

func what(it importer.Item) string {
	if it.Name == "" || it.Kind == "instructions" {
		return it.Kind
	}
	return it.Kind + " " + it.Name
}
