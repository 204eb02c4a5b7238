package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/workspace"
)

func init() {
	register(&cli.Command{
		Name:      "delete",
		Usage:     "remove agents that actctl proxy created (-t, per-project copies) and prune their files",
		ArgsUsage: "AGENT...",
		Description: "An agent declared in actant.cue is removed by deleting it there and running apply;\n" +
			"delete is for the agents actctl proxy recorded in .actant/adhoc.json, which no file\n" +
			"of yours declares. Their files are pruned exactly as apply prunes a removed agent.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "print the plan; write nothing"},
			&cli.BoolFlag{Name: "force", Usage: "prune hand-edited files, blocks and keys too (backed up first)"},
		},
		OnUsageError: usageErrors,
		Action:       deleteCmd,
	})
}

func deleteCmd(c *cli.Context) error {
	g := globalsOf(c)
	names := c.Args().Slice()
	if len(names) == 0 {
		return usageError("delete: name the agent(s) to delete")
	}
	ctx, _, cancel := onSignals(cancelPolicy)
	defer cancel()
	dry := c.Bool("dry-run")
	forgotten, err := workspace.Delete(ctx, workspace.DeleteOptions{
		Options: g.workspace(),
		Names:   names,
		DryRun:  dry,
		Force:   c.Bool("force"),
		Print:   func(res *workspace.Result, err error) error { return printResult(g, res, err) },
	})
	if err == nil {
		printForgotten(g, forgotten, dry)
	}
	return err
}

// printForgotten reports agents deleted without an apply: they had no
// files.
func printForgotten(g *globals, names []string, dry bool) {
	verb := "deleted"
	if dry {
		verb = "dry run: would delete"
	}
	for _, n := range names {
		fmt.Fprintf(g.Stdout, "%s %s (it had no files to prune)\n", verb, n)
	}
}
