package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/schema"
)

func init() {
	register(&cli.Command{
		Name:         "resolve",
		Usage:        "prepare AGENT (apply its files) and print how to start its ACP backend: {command, args, env, cwd, workspace}",
		ArgsUsage:    "AGENT",
		OnUsageError: usageErrors,
		Action:       resolveCmd,
	})
}

func resolveCmd(c *cli.Context) error {
	g, cfg, r, err := oneAgent(c)
	if err != nil {
		return err
	}
	l, err := launch.Resolve(r, schema.ModeACP)
	if err != nil {
		return err
	}
	if err := agentprep.Materialize(c.Context, cfg, r, agentprep.VerbResolve, g.Stderr); err != nil {
		return err
	}
	if g.JSON() {
		return g.PrintJSON(l)
	}
	fmt.Fprintf(g.Stdout, "command:    %s\nargs:       %q\ncwd:        %s\nworkspace:  %s\nsessionCwd: %s\n", l.Command, l.Args, l.Cwd, l.Workspace, l.SessionCwd)
	for _, kv := range l.EnvList() {
		fmt.Fprintf(g.Stdout, "env:        %s\n", kv)
	}
	return nil
}
