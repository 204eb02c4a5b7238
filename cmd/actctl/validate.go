package main

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/workspace"
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
	cfg, rep, err := g.LoadWith(context.Background(), hub.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	for _, n := range hubDropped(cfg, rep) {
		fmt.Fprintf(g.Stderr, "actctl: note: %s\n", n)
	}
	if err := checkRender(g, cfg); err != nil {
		return err
	}
	if err := workspace.CheckDeploy(cfg); err != nil {
		return err
	}
	if g.JSON() {
		return g.PrintJSON(map[string]any{"valid": true, "root": cfg.Root, "files": cfg.Files, "agents": len(cfg.Agents)})
	}
	fmt.Fprintf(g.Stdout, "%s: valid (%s, %s)\n", filepath.Join(cfg.Root, schema.FileName), plural(len(cfg.Agents), "agent"), plural(len(cfg.Templates), "template"))
	return nil
}

// hubDropped says, for each agent of a hub template, what the hub reader
// dropped of the template and why (Actant's hooks on events actctl does
// not have, a sandbox its backend has no setting for).
func hubDropped(cfg *schema.Config, rep *hub.Report) []string {
	if rep == nil {
		return nil
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		ref := cfg.Agents[name].Template
		for _, s := range rep.Sources {
			tmpl, ok := strings.CutPrefix(ref, s.Name+"@")
			if !ok || s.Components == nil {
				continue
			}
			for _, d := range s.Components.Dropped[tmpl] {
				out = append(out, fmt.Sprintf("agent %s (template %s): %s", name, ref, d))
			}
		}
	}
	return out
}
