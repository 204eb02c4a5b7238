package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/up"
)

func init() {
	for _, v := range []struct{ name, usage string }{
		{control.OpStart, "start AGENT in the running actctl up (a stopped, crashed or fatal one too) and wait until it is up"},
		{control.OpStop, "stop AGENT in the running actctl up (SIGTERM, grace, then its process group is killed)"},
		{control.OpRestart, "restart AGENT in the running actctl up, between two turns, and wait until it is up"},
	} {
		register(&cli.Command{
			Name:         v.name,
			Usage:        v.usage,
			ArgsUsage:    "AGENT",
			OnUsageError: usageErrors,
			Action:       lifecycleCmd,
		})
	}
}

// lifecycleCmd is start, stop and restart: one request to up, then the
// agent's new state.
func lifecycleCmd(c *cli.Context) error {
	g := globalsOf(c)
	if c.NArg() != 1 {
		return usageError("%s: want exactly one AGENT", c.Command.Name)
	}
	ctx, cancel := runContext(0)
	defer cancel()
	var st up.AgentStatus
	// Each of these commands is named after its op (see init).
	err := callUp(ctx, g, control.Request{Op: c.Command.Name, Agent: c.Args().First()}, nil, &st)
	if cause := context.Cause(ctx); ctx.Err() != nil {
		return withCode(codeOf(cause), fmt.Errorf("%s %s: %w", c.Command.Name, c.Args().First(), cause))
	}
	if err != nil {
		return err
	}
	if g.JSON() {
		return g.PrintJSON(st)
	}
	line := fmt.Sprintf("%s: %s", st.Name, st.State)
	if st.Pid != 0 {
		line += fmt.Sprintf(" pid %d", st.Pid)
	}
	fmt.Fprintln(g.Stdout, line)
	return nil
}
