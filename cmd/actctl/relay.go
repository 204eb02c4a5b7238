package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/control"
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
