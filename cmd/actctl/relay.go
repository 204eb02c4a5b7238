package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/deploy"
)

func init() {
	register(&cli.Command{
		Name:         control.RelayCommand,
		Usage:        "join stdin and stdout to the workspace's control socket (run by kubectl exec for --kube)",
		Hidden:       true,
		OnUsageError: usageErrors,
		Action:       relayCmd,
	})
}

// relayCmd is the pod's end of --kube (docs/runtime.md, "Remote
// control"): control.Relay on our stdio.
func relayCmd(c *cli.Context) error {
	g := globalsOf(c)
	if c.NArg() != 0 {
		return usageError("%s: takes no arguments", control.RelayCommand)
	}
	root, err := upRoot(g)
	if err != nil {
		return err
	}
	return control.Relay(root, os.Stdin, os.Stdout)
}

func init() {
	register(&cli.Command{
		Name:         deploy.ReadyCommand,
		Usage:        "exit 0 when the workspace's actctl up answers a status request on its control socket (the rendered pod's readiness probe)",
		Hidden:       true,
		OnUsageError: usageErrors,
		Action:       readyCmd,
	})
}

// readyCmd is the readiness probe of the pod deploy renders: up holds
// its control socket and answers a status request on it (callUp), the
// exit status saying so; prints nothing on success.
func readyCmd(c *cli.Context) error {
	if c.NArg() != 0 {
		return usageError("%s: takes no arguments", deploy.ReadyCommand)
	}
	ctx, stop := runContext(0)
	defer stop()
	return callUp(ctx, globalsOf(c), control.Request{Op: control.OpStatus}, nil, nil)
}
