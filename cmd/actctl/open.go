package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/schema"
)

func init() {
	register(&cli.Command{
		Name:         "open",
		Usage:        "start AGENT's backend UI (its open command) in the agent's workspace, detached",
		ArgsUsage:    "AGENT",
		OnUsageError: usageErrors,
		Action:       openCmd,
	})
}

func openCmd(c *cli.Context) error {
	g, _, r, err := oneAgent(c)
	if err != nil {
		return err
	}
	if err := agentprep.Offers(r, "open"); err != nil {
		return err
	}
	l, err := launch.Resolve(r, schema.ModeOpen)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(l.Cwd); err != nil || !fi.IsDir() {
		return fmt.Errorf("open %s: workspace %s does not exist; run `actctl apply %s` first", r.Name, l.Cwd, r.Name)
	}
	cmd := exec.Command(l.Command, l.Args...)
	cmd.Dir = l.Cwd
	cmd.Env = append(os.Environ(), l.EnvList()...)
	// Detached: its own session, no stdio tied to ours, not waited for.
	detach(cmd)
	if err := cmd.Start(); err != nil {
		msg := fmt.Sprintf("open %s: start %s: %v", r.Name, l.Command, err)
		if l.Install != "" {
			msg += " (install: " + l.Install + ")"
		}
		return errors.New(msg)
	}
	pid := cmd.Process.Pid
	cmd.Process.Release()
	if g.JSON() {
		return g.PrintJSON(map[string]any{"agent": r.Name, "pid": pid, "command": l.Command, "args": l.Args, "cwd": l.Cwd})
	}
	fmt.Fprintf(g.Stdout, "started %s (pid %d) in %s\n", l.Command, pid, l.Cwd)
	return nil
}
