package main

import "github.com/urfave/cli/v2"

// checkingCommands print every warning of the config: they check it or
// write from it (README, "Global flags and conventions"); the others leave
// out deploy and schedule warnings (a deploy target, a template's
// schedule): never on every status, get, describe or logs
// (workspace.Options.Checking).
var checkingCommands = []string{"validate", "apply", "diff"}

// commandName is the name of the command c runs ("" at the top).
func commandName(c *cli.Context) string {
	if c.Command == nil {
		return ""
	}
	return c.Command.Name
}
