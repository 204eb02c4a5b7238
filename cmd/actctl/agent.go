package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/schema"
)

// oneAgent loads the config and resolves the single AGENT argument.
func oneAgent(c *cli.Context) (*globals, *schema.Config, *schema.Resolved, error) {
	g := globalsOf(c)
	if c.NArg() != 1 {
		return nil, nil, nil, usageError("%s: want exactly one AGENT", c.Command.Name)
	}
	cfg, err := g.Load()
	if err != nil {
		return nil, nil, nil, err
	}
	name := c.Args().First()
	if _, ok := cfg.Agents[name]; !ok {
		return nil, nil, nil, unknownAgent(cfg, name)
	}
	r, err := cfg.Resolve(name)
	if err != nil {
		return nil, nil, nil, err
	}
	return g, cfg, r, nil
}

func unknownAgent(cfg *schema.Config, name string) error {
	names := slices.Sorted(maps.Keys(cfg.Agents))
	msg := fmt.Sprintf("unknown agent %q", name)
	if s := schema.Suggest(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return errors.New(msg)
}
