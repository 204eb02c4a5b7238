package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
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
	g, cfg, r, err := oneAgent(c)
	if err != nil {
		return err
	}
	release, err := holdAgent(cfg, r.Name, "attach")
	if err != nil {
		return err
	}
	defer release()
	if err := runrecord.Attach(r, c.Int("pid")); err != nil {
		return err
	}
	if g.JSON() {
		return g.PrintJSON(map[string]any{"agent": r.Name, "pid": c.Int("pid"), "record": runrecord.Path(r)})
	}
	fmt.Fprintf(g.Stdout, "attached pid %d to %s (%s)\n", c.Int("pid"), r.Name, runrecord.Path(r))
	return nil
}

// holdAgent takes the agent's lock (control.LockAgent) while verb
// rewrites its record: an agent an `actctl up` runs, or a task, is
// refused naming the holder and its pid (docs/runtime.md, "One agent,
// one process").
func holdAgent(cfg *schema.Config, name, verb string) (release func(), err error) {
	l, err := control.LockAgent(cfg.Root, name, verb)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", verb, err)
	}
	return func() { l.Close() }, nil
}
