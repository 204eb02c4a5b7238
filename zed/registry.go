package zed

import (
	"fmt"
	"maps"
	"slices"
)

// registryIDs are the ids Zed itself gives agent servers: the ACP
// registry's agents, which a registry install writes under their id, and
// the keys older Zed (before v0.221) read as its built-in agents
// (docs/formats.md, "Zed"). An entry of actctl's under one of them takes
// that id: Zed shows the registry's agent as installed (as ours), and
// installing it from the registry later collides.
var registryIDs = map[string]string{
	"claude-acp":      "Claude Code (ACP registry)",
	"codex-acp":       "Codex (ACP registry)",
	"gemini":          "Gemini CLI (ACP registry; built in before Zed v0.221)",
	"cursor":          "Cursor (ACP registry)",
	"pi":              "Pi (ACP registry)",
	"opencode":        "OpenCode (ACP registry)",
	"antigravity-acp": "Antigravity's ACP server (ACP registry)",
	"antigravity":     "Antigravity (ACP registry)",
	"claude":          "Claude Code (built in before Zed v0.221)",
	"codex":           "Codex (built in before Zed v0.221)",
}

// RegistryWarnings returns a warning for each entry name that is one of
// Zed's own agent ids, sorted by name.
func RegistryWarnings[V any](entries map[string]V) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		if who, ok := registryIDs[name]; ok {
			out = append(out, fmt.Sprintf("zed: agent_servers.%q is Zed's own id for %s: this entry takes its place there, and installing that agent from Zed's registry collides with it; name the entries apart with --prefix (e.g. --prefix actctl-) or rename the agent", name, who))
		}
	}
	return out
}
