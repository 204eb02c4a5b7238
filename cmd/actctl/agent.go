package main

import (
	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/agentprep"
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

// unknownAgent is the error for a name that is no agent of cfg.
func unknownAgent(cfg *schema.Config, name string) error { return agentprep.UnknownAgent(cfg, name) }
