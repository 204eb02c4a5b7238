package schema

import (
	"maps"
	"path"
	"slices"
	"strings"
)

// baseCommands are the commands both the image recipe's runtime image
// (Debian with Node.js, git, ssh and curl) and GitHub's hosted runners
// hold without an install (docs/deploy.md, "The image").
var baseCommands = []string{"sh", "bash", "env", "git", "ssh", "curl", "node", "npm", "npx", "tar", "cat", "echo"}

// BaseCommand reports whether command, as the config names it (a name,
// or a path under /bin or /usr/bin), is one the rendered image and the
// runners hold without an install.
func BaseCommand(command string) bool {
	if strings.Contains(command, "/") && !strings.HasPrefix(command, "/bin/") && !strings.HasPrefix(command, "/usr/bin/") {
		return false
	}
	return slices.Contains(baseCommands, path.Base(command))
}

// checkMCPProvided warns, at each local MCP server without an install
// whose command is no BaseCommand, that the Kubernetes image and the
// GitHub runner running an agent that uses it must provide the command:
// nothing the renderers write installs it, and the server fails to
// start there (docs/deploy.md, "The image").
func (c *Config) checkMCPProvided() Diagnostics {
	on := map[string][]string{} // server -> the targets that run it
	for _, target := range declaredTargets(c.Deploy) {
		if target == TargetSystemd {
			continue // the operator's box: its PATH
		}
		for _, name := range slices.Sorted(maps.Keys(c.Agents)) {
			a := c.Agents[name]
			t, ok := c.Templates[a.Template]
			if !ok || !a.RunsOn(target, t.Archetype) {
				continue
			}
			for _, ref := range t.MCPServers {
				if s, ok := c.MCPServers[ref]; ok && s.Command != "" && s.Install == "" && !BaseCommand(s.Command) && !slices.Contains(on[ref], target) {
					on[ref] = append(on[ref], target)
				}
			}
		}
	}
	var ds Diagnostics
	for _, ref := range slices.Sorted(maps.Keys(on)) {
		var where []string
		for _, target := range on[ref] {
			where = append(where, map[string]string{TargetKubernetes: "the image (deploy.kubernetes)", TargetGitHub: "the workflow's runner (deploy.github)"}[target])
		}
		w := c.Diag(Path("mcpServers", ref), "MCP server %q runs %q, which no install provides: %s must provide it, or the server does not start there; give mcpServers.%s.install, the command that installs it", ref, c.MCPServers[ref].Command, strings.Join(where, " and "), ref)
		w.Warning = true
		ds = append(ds, w)
	}
	return ds
}
