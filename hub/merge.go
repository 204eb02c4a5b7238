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
	m := &merger{cfg: cfg, source: source, c: c}
	cfg.Skills = put(m, orNew(cfg.Skills), c.Skills, "skills", KindSkill)
	cfg.Prompts = put(m, orNew(cfg.Prompts), c.Prompts, "prompts", KindPrompt)
	cfg.MCPServers = put(m, orNew(cfg.MCPServers), c.MCPServers, "mcpServers", KindMCP)
	cfg.Templates = orNew(cfg.Templates)
	cfg.Backends = orNew(cfg.Backends)
	for n, b := range c.Backends {
		if isZeroFiles(b.Files) {
			if local, ok := cfg.Backends[n]; ok {
				b.Files = local.Files
			}
		}
		cfg.Backends[m.key(n)] = b
		m.pos("backends", KindBackend, n)
	}
	for n, t := range c.Templates {
		cfg.Templates[m.key(n)] = m.template(n, t)
		m.pos("templates", KindTemplate, n)
		addTemplateHooks(cfg, m.key(n), t.Hooks, c.Info[KindTemplate+"/"+n].Pos)
	}
}

// merger merges one source's components into a config (see Merge).
type merger struct {
	cfg    *schema.Config
	source string
	c      *Components
}

// key is the config's name of the source's component n: "source@n".
func (m *merger) key(n string) string { return m.source + "@" + n }

// pos records the position of the component kind/n under field.
func (m *merger) pos(field, kind, n string) {
	if in, ok := m.c.Info[kind+"/"+n]; ok && in.Pos.IsValid() {
		m.cfg.SetPos(schema.Path(field, m.key(n)), in.Pos)
	}
}

// orNew is dst, or a new map when dst is nil.
func orNew[T any](dst map[string]T) map[string]T {
	if dst == nil {
		return map[string]T{}
	}
	return dst
}

// put adds the components src to dst as "source@name" with their
// positions, and returns dst.
func put[T any](m *merger, dst, src map[string]T, field, kind string) map[string]T {
	for n, v := range src {
		dst[m.key(n)] = v
		m.pos(field, kind, n)
	}
	return dst
}

// template is the source's template n as merged: its references
// qualified with the source (actctl's own MCP server stays actctl's), its
// sandbox in its settings, and its backend the workspace's of that name
// when there is one, else the source's.
func (m *merger) template(n string, t schema.Template) schema.Template {
	t.Skills, t.Prompts, t.SubAgents = m.qualify(t.Skills), m.qualify(t.Prompts), m.qualify(t.SubAgents)
	mcps := m.qualify(t.MCPServers)
	for i, r := range t.MCPServers {
		if r == schema.ActctlServer {
			mcps[i] = r // actctl's own server, never the hub's
		}
	}
	t.MCPServers = mcps
	t.Commands = m.qualify(t.Commands)
	if sb, ok := m.c.Sandbox[n]; ok {
		t.Settings = withSandbox(t.Settings, t.Backend, sb)
	}
	if !schema.IsHubRef(t.Backend) {
		if _, local := m.cfg.Backends[t.Backend]; !local {
			if s, ok := t.Settings[t.Backend]; ok {
				t.Settings = map[string]map[string]any{m.key(t.Backend): s}
			}
			t.Backend = m.key(t.Backend)
		}
	}
	t.Source = m.source
	return t
}

// qualify qualifies each reference with the source ("skill" ->
// "source@skill"); references already qualified (other@x) are kept.
func (m *merger) qualify(refs []string) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		if schema.IsHubRef(r) {
			out[i] = r
		} else {
			out[i] = m.key(r)
		}
	}
	return out
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
