package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

func init() {
	register(&cli.Command{
		Name:         "validate",
		Usage:        "load and validate the workspace config; print every error with its position",
		OnUsageError: usageErrors,
		Action:       validateCmd,
	})
}

func validateCmd(c *cli.Context) error {
	g := globalsOf(c)
	cfg, err := g.Load()
	if err != nil {
		return err
	}
	if err := checkRender(g, cfg); err != nil {
		return err
	}
	if err := reconcile.CheckDeploy(cfg); err != nil {
		return err
	}
	if g.JSON() {
		return g.PrintJSON(map[string]any{"valid": true, "root": cfg.Root, "files": cfg.Files, "agents": len(cfg.Agents)})
	}
	fmt.Fprintf(g.Stdout, "%s: valid (%s, %s)\n", filepath.Join(cfg.Root, schema.FileName), plural(len(cfg.Agents), "agent"), plural(len(cfg.Templates), "template"))
	return nil
}
