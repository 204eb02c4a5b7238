package schema

import (
	"maps"
	"regexp"
	"slices"
	"sync"
)

// envRef finds the variables a value reads: ${NAME}, and ${NAME:-default}
// (its second group then not empty: the variable may be unset).
var envRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-)?`) })

// SecretRefs maps each environment variable agents of the templates ts
// need from a deploy target's secrets to whether it must be set (false
// when every reference gives a default): those their MCP servers read
// (${NAME} in command, args, url, env, headers), the hub sources'
// tokens and deploy.secretKeys. Names only: values never enter the
// config (docs/deploy.md, "Secrets").
func (c *Config) SecretRefs(ts []Template) map[string]bool {
	keys := map[string]bool{}
	if c.Deploy != nil {
		for _, k := range c.Deploy.SecretKeys {
			keys[k] = true
		}
	}
	for _, h := range c.Hub {
		if h.Auth != nil && h.Auth.TokenEnv != "" {
			keys[h.Auth.TokenEnv] = true
		}
	}
	for _, t := range ts {
		for _, name := range t.MCPServers {
			s, ok := c.MCPServers[name]
			if !ok {
				continue
			}
			vals := append([]string{s.Command, s.URL}, s.Args...)
			vals = append(vals, slices.Collect(maps.Values(s.Env))...)
			vals = append(vals, slices.Collect(maps.Values(s.Headers))...)
			for _, v := range vals {
				for _, m := range envRef().FindAllStringSubmatch(v, -1) {
					keys[m[1]] = keys[m[1]] || m[2] == ""
				}
			}
		}
	}
	return keys
}

// PreTrustBackends are the backends whose trust gate the renderers
// answer ahead on Kubernetes and GitHub Actions, in the order they do:
// each keeps its trust in a file of the user's home that a script can
// write (Codex's ~/.codex/config.toml, Gemini CLI's
// ~/.gemini/trustedFolders.json, pi's defaultProjectTrust in
// ~/.pi/agent/settings.json; docs/deploy.md, "Trust gates on the
// targets").
var PreTrustBackends = []string{"codex", "gemini", "pi"}

// PreTrusted reports whether the renderer of target trusts agent name's
// directory for its backend ahead (PreTrustBackends, on Kubernetes or
// GitHub Actions, for an instance directory or a project agent at the
// workspace's root), so that no prompt is left for nobody to answer.
func (c *Config) PreTrusted(name, target string) bool {
	a, ok := c.Agents[name]
	if !ok || (target != TargetKubernetes && target != TargetGitHub) {
		return false
	}
	t, ok := c.Templates[a.Template]
	if !ok || !slices.Contains(PreTrustBackends, t.Backend) {
		return false
	}
	arch, ok := c.Archetypes[t.Archetype]
	return ok && (arch.Workspace != WorkspaceProject || a.WorkDir == "")
}
