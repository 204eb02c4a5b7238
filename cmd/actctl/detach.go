package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/runrecord"
)

func init() {
	register(&cli.Command{
		Name:         "detach",
		Usage:        "forget the process serving AGENT",
		ArgsUsage:    "AGENT",
		Flags:        []cli.Flag{&cli.BoolFlag{Name: "cleanup", Usage: "remove the runtime keys entirely"}},
		OnUsageError: usageErrors,
		Action:       detachCmd,
	})
}

func detachCmd(c *cli.Context) error {
	g, cfg, r, err := oneAgent(c)
	if err != nil {
		return err
	}
	release, err := holdAgent(cfg, r.Name, "detach")
	if err != nil {
		return err
	}
	defer release()
	if err := runrecord.Detach(r, c.Bool("cleanup")); err != nil {
		return err
	}
	if g.JSON() {
		return g.PrintJSON(map[string]any{"agent": r.Name, "record": runrecord.Path(r)})
	}
	fmt.Fprintf(g.Stdout, "detached %s\n", r.Name)
	return nil
}
