package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// checkingCommands print every warning of the config: they check it or
// write from it (README, "Global flags and conventions").
var checkingCommands = []string{"validate", "apply", "diff"}

// warnsAbout reports whether the command prints the config warning at
// path: deploy and schedule warnings (a deploy target, a template's
// schedule) only on validate, apply and diff, never on every status,
// get, describe or logs.
func (g *globals) warnsAbout(path string) bool {
	return slices.Contains(checkingCommands, g.command) || !deployOrSchedule(path)
}

// commandName is the name of the command c runs ("" at the top).
func commandName(c *cli.Context) string {
	if c.Command == nil {
		return ""
	}
	return c.Command.Name
}
