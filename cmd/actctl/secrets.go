package main

import (
	"os"
	"strings"

	"github.com/actctl/actctl/deploy"
	"github.com/actctl/actctl/schema"
)

// warnMissingSecrets says once, at the start of up or task, which
// variables the config names for agents (their MCP servers' ${NAME}, the
// hubs' tokens, deploy.secretKeys) this environment lacks: a missing
// systemd EnvironmentFile or Secret key is silent otherwise
// (docs/deploy.md). Names only, never values.
func warnMissingSecrets(g *globals, cfg *schema.Config, agents []string) {
	if m := deploy.MissingSecrets(cfg, agents, os.LookupEnv); len(m) > 0 {
		g.Warn("not set in this environment: %s (actant.cue names them for %s: MCP servers, hub tokens or deploy.secretKeys); the agents start without them",
			strings.Join(m, ", "), strings.Join(agents, ", "))
	}
}
