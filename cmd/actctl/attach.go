package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/runrecord"
)

func init() {
	register(&cli.Command{
		Name:         "attach",
		Usage:        "record an externally started process as serving AGENT",
		ArgsUsage:    "AGENT",
		Flags:        []cli.Flag{&cli.IntFlag{Name: "pid", Usage: "the process `ID`", Required: true}},
		OnUsageError: usageErrors,
		Action:       attachCmd,
	})
}

func attachCmd(c *cli.Context) error {
	g, _, r, err := oneAgent(c)
	if err != nil {
		return err
	}
	if err := runrecord.Attach(r, c.Int("pid")); err != nil {
		return err
	}
	if g.JSON() {
		return g.PrintJSON(map[string]any{"agent": r.Name, "pid": c.Int("pid"), "record": runrecord.Path(r)})
	}
	fmt.Fprintf(g.Stdout, "attached pid %d to %s (%s)\n", c.Int("pid"), r.Name, runrecord.Path(r))
	return nil
}
