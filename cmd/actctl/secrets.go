package main

import (
	"os"
	"slices"
	"strings"

	"github.com/actctl/actctl/deploy"
	"github.com/actctl/actctl/schema"
)

// warnMissingSecrets says once, at the start of up or task, which
// variables the config names for agents this environment lacks: a
// missing systemd EnvironmentFile or Secret key is silent otherwise
// (docs/deploy.md). Those the config uses itself (their MCP servers'
// ${NAME}, the hubs' tokens) in a warning: the agents lack them. Those
// only deploy.secretKeys lists in a note: a backend's key, which a
// backend logged in on this machine (an OAuth user) does without. Names
// only, never values.
func warnMissingSecrets(g *globals, cfg *schema.Config, agents []string) {
	missing := deploy.MissingSecrets(cfg, agents, os.LookupEnv)
	used := deploy.MissingSecrets(withoutSecretKeys(cfg), agents, os.LookupEnv)
	if len(used) > 0 {
		g.Warn("not set in this environment: %s (actant.cue names them for %s: MCP servers or hub tokens); the agents start without them",
			strings.Join(used, ", "), strings.Join(agents, ", "))
	}
	if keys := slices.DeleteFunc(missing, func(k string) bool { return slices.Contains(used, k) }); len(keys) > 0 {
		g.Note("deploy.secretKeys lists %s, not set in this environment: a backend that reads its key from there starts unauthenticated unless it has a login of its own here",
			strings.Join(keys, ", "))
	}
}

// withoutSecretKeys is cfg without deploy.secretKeys, so that
// MissingSecrets names only the variables the config uses itself.
func withoutSecretKeys(cfg *schema.Config) *schema.Config {
	if cfg.Deploy == nil || len(cfg.Deploy.SecretKeys) == 0 {
		return cfg
	}
	c, d := *cfg, *cfg.Deploy
	d.SecretKeys = nil
	c.Deploy = &d
	return &c
}
