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
	rc := &refChecker{
		cfg:       cfg,
		skills:    slices.Sorted(maps.Keys(cfg.Skills)),
		prompts:   slices.Sorted(maps.Keys(cfg.Prompts)),
		mcps:      append(slices.Sorted(maps.Keys(cfg.MCPServers)), schema.ActctlServer),
		templates: slices.Sorted(maps.Keys(cfg.Templates)),
		backends:  slices.Sorted(maps.Keys(cfg.Backends)),
		commands:  slices.Sorted(maps.Keys(cfg.Commands)),
	}
	for _, name := range rc.backends {
		if schema.IsHubRef(name) {
			rc.ds = append(rc.ds, cfg.CheckBackend(name)...)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		rc.check(schema.Path("agents", name, "template"), "template", cfg.Agents[name].Template, rc.templates, false)
		rc.ds = append(rc.ds, cfg.CheckHubAgent(name)...)
	}
	for _, name := range rc.templates {
		rc.template(name, cfg.Templates[name])
	}
	return rc.ds
}

// refChecker collects CheckRefs' diagnostics against the names the config
// declares, sorted.
type refChecker struct {
	cfg                                                  *schema.Config
	ds                                                   schema.Diagnostics
	skills, prompts, mcps, templates, backends, commands []string
}

// check reports ref at path when it is not declared: only a hub reference
// ("src@x"), unless all (inside a hub template, every reference).
func (rc *refChecker) check(path, kind, ref string, declared []string, all bool) {
	if !all && !schema.IsHubRef(ref) {
		return // local references are checked by schema.Validate
	}
	if slices.Contains(declared, ref) {
		return
	}
	rc.ds = append(rc.ds, rc.cfg.Diag(path, "%s", unknownRef(rc.cfg.Hub, kind, ref, declared)))
}

// template checks the references of template name (all of them when it
// is a hub template, which also gets the rules of checkHubTemplate).
func (rc *refChecker) template(name string, t schema.Template) {
	hub := schema.IsHubRef(name)
	list := func(field, kind string, refs, declared []string) {
		for i, r := range refs {
			rc.check(schema.Path("templates", name, field)+fmt.Sprintf("[%d]", i), kind, r, declared, hub)
			if field == "subAgents" && r == name {
				rc.ds = append(rc.ds, rc.cfg.Diag(schema.Path("templates", name, "subAgents"), "template %q lists itself as a sub-agent", name))
			}
		}
	}
	rc.check(schema.Path("templates", name, "backend"), "backend", t.Backend, rc.backends, hub)
	list("skills", "skill", t.Skills, rc.skills)
	list("prompts", "prompt", t.Prompts, rc.prompts)
	list("mcpServers", "MCP server", t.MCPServers, rc.mcps)
	list("commands", "command", t.Commands, rc.commands)
	list("subAgents", "template", t.SubAgents, rc.templates)
	if hub {
		rc.ds = append(rc.ds, checkHubTemplate(rc.cfg, name, t)...)
	}
}

// unknownRef says that ref, a kind's reference, names nothing declared,
// with the nearest name of the same source (or, for a local reference,
// of all) when there is one, or that the source has no such component.
func unknownRef(hub map[string]schema.HubSource, kind, ref string, declared []string) string {
	src, name, _ := strings.Cut(ref, "@")
	var same []string
	for _, d := range declared {
		if s, n, ok := strings.Cut(d, "@"); ok && s == src {
			same = append(same, n)
		}
	}
	msg := fmt.Sprintf("unknown %s %q", kind, ref)
	if name == "" {
		return fmt.Sprintf("%s %q: no component name after %q", kind, ref, src+"@")
	}
	if s := schema.Suggest(name, same); s != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", src+"@"+s)
	}
	if len(same) == 0 && !schema.IsHubRef(ref) {
		if s := schema.Suggest(ref, declared); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return msg
	}
	if _, ok := hub[src]; ok {
		msg += fmt.Sprintf(" (hub source %q has no such %s)", src, kind)
	}
	return msg
}

// checkHubTemplate applies to a hub template the rules schema.Validate
// applies to local ones (it skips "source@name" keys).
func checkHubTemplate(cfg *schema.Config, name string, t schema.Template) schema.Diagnostics {
	if _, ok := cfg.Archetypes[t.Archetype]; !ok {
		return schema.Diagnostics{cfg.Diag(schema.Path("templates", name, "archetype"), "unknown archetype %q", t.Archetype)}
	}
	return cfg.CheckLaunch(schema.Path("templates", name, "backend"), name, cfg.TemplateLaunchMode(t))
}
