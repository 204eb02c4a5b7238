package hub

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"

	"cuelang.org/go/cue/token"

	"github.com/actctl/actctl/schema"
)

// Merge adds source's components to cfg under "source@name". Template
// references inside the source are qualified with it ("skill" ->
// "source@skill"); references already qualified (other@x) are kept. A
// template's backend is the workspace's backend of that name when there is
// one (built-ins carry the file layouts an Actant backend JSON cannot
// express), else the source's own. A hub backend without a file layout
// borrows the one of the workspace backend of the same name. Positions are
// recorded with cfg.SetPos so diagnostics name the hub file.
func Merge(cfg *schema.Config, source string, c *Components) {
	if c == nil {
		return
	}
	if cfg.Skills == nil {
		cfg.Skills = map[string]schema.Skill{}
	}
	if cfg.Prompts == nil {
		cfg.Prompts = map[string]schema.Prompt{}
	}
	if cfg.MCPServers == nil {
		cfg.MCPServers = map[string]schema.MCPServer{}
	}
	if cfg.Templates == nil {
		cfg.Templates = map[string]schema.Template{}
	}
	if cfg.Backends == nil {
		cfg.Backends = map[string]schema.Backend{}
	}
	key := func(n string) string { return source + "@" + n }
	pos := func(field, kind, n string) {
		if in, ok := c.Info[kind+"/"+n]; ok && in.Pos.IsValid() {
			cfg.SetPos(schema.Path(field, key(n)), in.Pos)
		}
	}
	for n, s := range c.Skills {
		cfg.Skills[key(n)] = s
		pos("skills", KindSkill, n)
	}
	for n, p := range c.Prompts {
		cfg.Prompts[key(n)] = p
		pos("prompts", KindPrompt, n)
	}
	for n, m := range c.MCPServers {
		cfg.MCPServers[key(n)] = m
		pos("mcpServers", KindMCP, n)
	}
	for n, b := range c.Backends {
		if isZeroFiles(b.Files) {
			if local, ok := cfg.Backends[n]; ok {
				b.Files = local.Files
			}
		}
		cfg.Backends[key(n)] = b
		pos("backends", KindBackend, n)
	}
	q := func(ref string) string {
		if schema.IsHubRef(ref) {
			return ref
		}
		return key(ref)
	}
	qs := func(refs []string) []string {
		out := make([]string, len(refs))
		for i, r := range refs {
			out[i] = q(r)
		}
		return out
	}
	for n, t := range c.Templates {
		t.Skills, t.Prompts, t.SubAgents = qs(t.Skills), qs(t.Prompts), qs(t.SubAgents)
		mcps := qs(t.MCPServers)
		for i, r := range t.MCPServers {
			if r == schema.ActctlServer {
				mcps[i] = r // actctl's own server, never the hub's
			}
		}
		t.MCPServers = mcps
		t.Commands = qs(t.Commands)
		if sb, ok := c.Sandbox[n]; ok {
			t.Settings = withSandbox(t.Settings, t.Backend, sb)
		}
		if !schema.IsHubRef(t.Backend) {
			if _, local := cfg.Backends[t.Backend]; !local {
				if s, ok := t.Settings[t.Backend]; ok {
					t.Settings = map[string]map[string]any{key(t.Backend): s}
				}
				t.Backend = key(t.Backend)
			}
		}
		t.Source = source
		cfg.Templates[key(n)] = t
		pos("templates", KindTemplate, n)
		addTemplateHooks(cfg, key(n), t.Hooks, c.Info[KindTemplate+"/"+n].Pos)
	}
}

// withSandbox is settings with backend's sandbox key set to the JSON sb.
func withSandbox(settings map[string]map[string]any, backend, sb string) map[string]map[string]any {
	var v any
	if json.Unmarshal([]byte(sb), &v) != nil {
		return settings
	}
	out := maps.Clone(settings)
	if out == nil {
		out = map[string]map[string]any{}
	}
	b := maps.Clone(out[backend])
	if b == nil {
		b = map[string]any{}
	}
	b["sandbox"] = v
	out[backend] = b
	return out
}

// addTemplateHooks makes each of a hub template's hooks a prompt hook of
// every agent of the template, named AGENT.EVENT ("updater.source-updated"),
// positioned at the template's file; a hook of the workspace of that name
// wins. An event about an agent is heard for the workspace's other agents:
// one about the agent itself would feed itself (docs/runtime.md, "Hooks").
func addTemplateHooks(cfg *schema.Config, tmpl string, hs []schema.TemplateHook, at token.Pos) {
	if len(hs) == 0 {
		return
	}
	agents := slices.Sorted(maps.Keys(cfg.Agents))
	for _, a := range agents {
		if cfg.Agents[a].Template != tmpl {
			continue
		}
		others := slices.DeleteFunc(slices.Clone(agents), func(o string) bool { return o == a })
		for _, h := range hs {
			hook := schema.Hook{On: h.On, Prompt: &schema.HookPrompt{Agent: a, Text: h.Text}, Template: tmpl}
			if schema.EventHasAgent(h.On) {
				if len(others) == 0 {
					continue // no other agent to hear of
				}
				hook.Agents = others
			}
			name := a + "." + strings.ReplaceAll(h.On, ":", "-")
			if _, ok := cfg.Hooks[name]; ok {
				continue
			}
			if cfg.Hooks == nil {
				cfg.Hooks = map[string]schema.Hook{}
			}
			cfg.Hooks[name] = hook
			if at.IsValid() {
				cfg.SetPos(schema.Path("hooks", name), at)
			}
		}
	}
}

func isZeroFiles(f schema.Files) bool {
	return len(f.Instructions) == 0 && f.Skills == nil && f.SubAgents == nil && f.Prompts == nil && f.Commands == nil && f.MCP == nil && f.Permissions == nil
}

// diffComponents lists what changed between two readings of a source
// (before nil: everything is added).
func diffComponents(source string, before, after *Components) []Change {
	var out []Change
	var bi map[string]Info
	if before != nil {
		bi = before.Info
	}
	for _, k := range slices.Sorted(maps.Keys(after.Info)) {
		a := after.Info[k]
		b, ok := bi[k]
		switch {
		case !ok:
			out = append(out, Change{Source: source, Kind: a.Kind, Name: a.Name, Op: "added", To: a.Version})
		case a.Digest != b.Digest || a.Version != b.Version:
			out = append(out, Change{Source: source, Kind: a.Kind, Name: a.Name, Op: "updated", From: b.Version, To: a.Version})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(bi)) {
		if _, ok := after.Info[k]; !ok {
			b := bi[k]
			out = append(out, Change{Source: source, Kind: b.Kind, Name: b.Name, Op: "removed", From: b.Version})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	return out
}
