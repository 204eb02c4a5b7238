package hub

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// CheckRefs validates every hub reference in cfg once sources are merged:
// the references of local templates and agents that name "src@x", and
// every reference inside hub templates (diagnostics positioned at the hub
// file), plus the archetype rules the schema checks for local templates.
func CheckRefs(cfg *schema.Config) schema.Diagnostics {
	var ds schema.Diagnostics
	check := func(path, kind, ref string, declared []string, all bool) {
		if !all && !schema.IsHubRef(ref) {
			return // local references are checked by schema.Validate
		}
		if slices.Contains(declared, ref) {
			return
		}
		src, name, _ := strings.Cut(ref, "@")
		var same []string
		for _, d := range declared {
			if s, n, ok := strings.Cut(d, "@"); ok && s == src {
				same = append(same, n)
			}
		}
		msg := fmt.Sprintf("unknown %s %q", kind, ref)
		if name == "" {
			msg = fmt.Sprintf("%s %q: no component name after %q", kind, ref, src+"@")
		} else if s := schema.Suggest(name, same); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", src+"@"+s)
		} else if len(same) == 0 && !schema.IsHubRef(ref) {
			if s := schema.Suggest(ref, declared); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
		} else if _, ok := cfg.Hub[src]; ok {
			msg += fmt.Sprintf(" (hub source %q has no such %s)", src, kind)
		}
		ds = append(ds, cfg.Diag(path, "%s", msg))
	}
	skills, prompts, mcps, templates, backends := slices.Sorted(maps.Keys(cfg.Skills)), slices.Sorted(maps.Keys(cfg.Prompts)), append(slices.Sorted(maps.Keys(cfg.MCPServers)), schema.ActctlServer), slices.Sorted(maps.Keys(cfg.Templates)), slices.Sorted(maps.Keys(cfg.Backends))
	for _, name := range backends {
		if schema.IsHubRef(name) {
			ds = append(ds, cfg.CheckBackend(name)...)
		}
	}
	commands := slices.Sorted(maps.Keys(cfg.Commands))
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		check(schema.Path("agents", name, "template"), "template", cfg.Agents[name].Template, templates, false)
		ds = append(ds, cfg.CheckHubAgent(name)...)
	}
	for _, name := range templates {
		t := cfg.Templates[name]
		hub := schema.IsHubRef(name)
		idx := func(field string, i int) string {
			return schema.Path("templates", name, field) + fmt.Sprintf("[%d]", i)
		}
		check(schema.Path("templates", name, "backend"), "backend", t.Backend, backends, hub)
		for i, r := range t.Skills {
			check(idx("skills", i), "skill", r, skills, hub)
		}
		for i, r := range t.Prompts {
			check(idx("prompts", i), "prompt", r, prompts, hub)
		}
		for i, r := range t.MCPServers {
			check(idx("mcpServers", i), "MCP server", r, mcps, hub)
		}
		for i, r := range t.Commands {
			check(idx("commands", i), "command", r, commands, hub)
		}
		for i, r := range t.SubAgents {
			check(idx("subAgents", i), "template", r, templates, hub)
			if r == name {
				ds = append(ds, cfg.Diag(schema.Path("templates", name, "subAgents"), "template %q lists itself as a sub-agent", name))
			}
		}
		if hub {
			ds = append(ds, checkHubTemplate(cfg, name, t)...)
		}
	}
	return ds
}

// checkHubTemplate applies to a hub template the rules schema.Validate
// applies to local ones (it skips "source@name" keys).
func checkHubTemplate(cfg *schema.Config, name string, t schema.Template) schema.Diagnostics {
	if _, ok := cfg.Archetypes[t.Archetype]; !ok {
		return schema.Diagnostics{cfg.Diag(schema.Path("templates", name, "archetype"), "unknown archetype %q", t.Archetype)}
	}
	return cfg.CheckLaunch(schema.Path("templates", name, "backend"), name, cfg.TemplateLaunchMode(t))
}
