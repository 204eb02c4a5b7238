package hub

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/actctl/actctl/schema"
)

// templateJSON is Actant's AgentTemplate as published in actant-hub.
// Fields actctl has no use for (metadata, provider, schedule.hooks,
// permissions.sandbox) are read as raw JSON so they can be noted.
type templateJSON struct {
	Name            string `json:"name"`
	Version         string `json:"version"`
	Description     string `json:"description"`
	Archetype       string `json:"archetype"`
	LaunchMode      string `json:"launchMode"`
	WorkspacePolicy string `json:"workspacePolicy"`
	Backend         struct {
		Type string `json:"type"`
	} `json:"backend"`
	DomainContext struct {
		Skills     []json.RawMessage `json:"skills"`
		Prompts    []json.RawMessage `json:"prompts"`
		MCPServers []json.RawMessage `json:"mcpServers"`
		SubAgents  []json.RawMessage `json:"subAgents"`
	} `json:"domainContext"`
	Permissions json.RawMessage   `json:"permissions"`
	Schedule    *scheduleJSON     `json:"schedule"`
	Vars        map[string]string `json:"vars"`
}

// scheduleJSON is a template's schedule: heartbeat, cron, and hooks (which
// actctl makes prompt hooks, see templateHook).
type scheduleJSON struct {
	Heartbeat *struct {
		IntervalMs int64  `json:"intervalMs"`
		Interval   string `json:"interval"`
		Prompt     string `json:"prompt"`
	} `json:"heartbeat"`
	Cron []struct {
		Pattern  string `json:"pattern"`
		Prompt   string `json:"prompt"`
		Timezone string `json:"timezone"`
	} `json:"cron"`
	Hooks []struct {
		EventName string `json:"eventName"`
		Prompt    string `json:"prompt"`
	} `json:"hooks"`
}

var (
	archetypes  = []string{schema.ArchTool, schema.ArchRepo, schema.ArchService, schema.ArchEmployee}
	presets     = []string{schema.PresetPermissive, schema.PresetStandard, schema.PresetRestricted, schema.PresetReadonly}
	defaultMode = []string{"default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"}
)

// readTemplate maps an Actant template onto schema.Template, validating
// what the CUE schema would: archetype, launch mode, permissions, version.
// Every problem is reported at its key; a template with one is not added.
func (r *reader) readTemplate(f string) {
	var tj templateJSON
	if !r.decodeJSON(f, &tj) || !r.checkVersion(f, tj.Version) {
		return
	}
	c := &templateCheck{r: r, f: f, name: componentName(f, tj.Name), ok: true}
	t := c.fields(tj)
	t.Skills = c.refs("skills", tj.DomainContext.Skills, false)
	t.Prompts = c.refs("prompts", tj.DomainContext.Prompts, false)
	t.MCPServers = c.refs("mcpServers", tj.DomainContext.MCPServers, true)
	t.SubAgents = c.refs("subAgents", tj.DomainContext.SubAgents, false)
	perms, sandbox, err := r.permissions(f, tj.Permissions)
	if err != nil {
		c.bad("permissions", "%v", err)
	}
	t.Permissions = perms
	r.sandbox(f, c.name, t.Backend, sandbox)
	if tj.Schedule != nil {
		t.Schedule, t.Hooks = c.schedule(tj.Schedule)
	}
	c.archetypeSchedule(t)
	if !c.ok {
		return
	}
	in := Info{Kind: KindTemplate, Name: c.name, Version: tj.Version, Description: tj.Description, File: f,
		Digest: digestOf(map[string][]byte{path.Base(f): r.files[f]}), Pos: r.pos(f, 0)}
	if r.addInfo(in) {
		r.c.Templates[c.name] = t
	}
}

// templateCheck reads one template file: each problem is reported at its
// key and makes the template invalid (ok false).
type templateCheck struct {
	r    *reader
	f    string // the template's file
	name string // the template's name
	ok   bool
}

// bad reports a problem at the first occurrence of key in the file.
func (c *templateCheck) bad(key, format string, args ...any) {
	c.r.errorf(c.f, keyOffset(c.r.files[c.f], key), "template %q: %s", c.name, fmt.Sprintf(format, args...))
	c.ok = false
}

// fields maps the template's scalar fields, checking the backend,
// archetype, launch mode and workspace policy.
func (c *templateCheck) fields(tj templateJSON) schema.Template {
	t := schema.Template{
		Version:         firstNonEmpty(tj.Version, "0.1.0"),
		Description:     tj.Description,
		Backend:         tj.Backend.Type,
		Archetype:       firstNonEmpty(tj.Archetype, schema.ArchTool),
		LaunchMode:      tj.LaunchMode,
		WorkspacePolicy: tj.WorkspacePolicy,
		Vars:            tj.Vars,
	}
	if t.Backend == "" {
		c.bad("backend", "backend.type is required (e.g. {\"type\": \"claude-code\"})")
	}
	if !slices.Contains(archetypes, t.Archetype) {
		c.bad("archetype", "unknown archetype %q (want tool, repo, service or employee)", t.Archetype)
	}
	if t.LaunchMode != "" && !slices.Contains(schema.LaunchModes, t.LaunchMode) {
		c.bad("launchMode", "unknown launchMode %q", t.LaunchMode)
	}
	if t.WorkspacePolicy != "" && t.WorkspacePolicy != "persistent" && t.WorkspacePolicy != "ephemeral" {
		c.bad("workspacePolicy", "unknown workspacePolicy %q (want persistent or ephemeral)", t.WorkspacePolicy)
	}
	return t
}

// refs reads domainContext.<field>: names, or objects with a name; with
// allowInline an object that has a command or url also declares that MCP
// server (inlineMCP).
func (c *templateCheck) refs(field string, raw []json.RawMessage, allowInline bool) []string {
	out := []string{}
	for i, m := range raw {
		var s string
		if json.Unmarshal(m, &s) == nil {
			if s == "" {
				c.bad(field, "domainContext.%s[%d] is empty", field, i)
				continue
			}
			out = append(out, s)
			continue
		}
		var obj mcpJSON
		if err := json.Unmarshal(m, &obj); err != nil || obj.Name == "" {
			c.bad(field, "domainContext.%s[%d]: want a name or an object with a name", field, i)
			continue
		}
		if allowInline && (obj.Command != "" || obj.URL != "") {
			c.r.inlineMCP(c.f, c.name, obj)
		}
		out = append(out, obj.Name)
	}
	return out
}

// schedule maps the template's heartbeat and cron (nil when it has
// neither) and its hooks, checked as schema.CheckSchedule checks a local
// schedule.
func (c *templateCheck) schedule(s *scheduleJSON) (*schema.Schedule, []schema.TemplateHook) {
	sch := &schema.Schedule{}
	if hb := s.Heartbeat; hb != nil {
		iv := hb.Interval
		if iv == "" {
			if hb.IntervalMs <= 0 {
				c.bad("heartbeat", "schedule.heartbeat needs a positive intervalMs")
			}
			iv = msInterval(hb.IntervalMs)
		}
		sch.Heartbeat = &schema.Heartbeat{Interval: iv, Prompt: hb.Prompt}
	}
	for i, cr := range s.Cron {
		if cr.Pattern == "" {
			c.bad("cron", "schedule.cron[%d] has no pattern", i)
		}
		sch.Cron = append(sch.Cron, schema.Cron{Pattern: cr.Pattern, Prompt: cr.Prompt, Timezone: cr.Timezone})
	}
	var hooks []schema.TemplateHook
	for _, h := range s.Hooks {
		hooks = c.r.templateHook(c.f, c.name, hooks, h.EventName, h.Prompt)
	}
	for _, p := range schema.CheckSchedule(sch) {
		c.bad("schedule", "schedule.%s: %s", p.Field, p.Message)
	}
	if sch.Heartbeat == nil && len(sch.Cron) == 0 {
		return nil, hooks
	}
	return sch, hooks
}

// archetypeSchedule: an employee needs a schedule, a service must not
// have one.
func (c *templateCheck) archetypeSchedule(t schema.Template) {
	switch t.Archetype {
	case schema.ArchEmployee:
		if t.Schedule == nil {
			c.bad("archetype", "an employee needs a schedule (heartbeat or cron)")
		}
	case schema.ArchService:
		if t.Schedule != nil {
			c.bad("schedule", "a service must not have a heartbeat or cron schedule")
		}
	}
}

// inlineMCP registers an MCP server a template declares inline. The same
// name declared twice must mean the same server.
func (r *reader) inlineMCP(f, tmpl string, m mcpJSON) {
	s := m.server()
	if (s.Command == "") == (s.URL == "") {
		r.errorf(f, keyOffset(r.files[f], "mcpServers"), "template %q: inline MCP server %q needs exactly one of command or url", tmpl, m.Name)
		return
	}
	if old, ok := r.c.MCPServers[m.Name]; ok {
		a, _ := json.Marshal(old)
		b, _ := json.Marshal(s)
		if string(a) != string(b) {
			r.errorf(f, keyOffset(r.files[f], "mcpServers", m.Name), "template %q: inline MCP server %q differs from the one defined in %s", tmpl, m.Name, r.display(r.c.Info[KindMCP+"/"+m.Name].File))
		}
		return
	}
	in := Info{Kind: KindMCP, Name: m.Name, Version: m.Version, Description: m.Description, File: f,
		Digest: digestOf(map[string][]byte{m.Name: mustJSON(s)}), Pos: r.pos(f, keyOffset(r.files[f], "mcpServers", m.Name))}
	if r.addInfo(in) {
		r.c.MCPServers[m.Name] = s
	}
}

// permissions reads a preset name or {defaultMode, allow, deny, ask,
// additionalDirectories}, and returns Actant's sandbox as given (see
// sandbox); other keys have no equivalent and are noted.
func (r *reader) permissions(f string, raw json.RawMessage) (schema.Permissions, json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return schema.Permissions{Preset: schema.PresetStandard}, nil, nil
	}
	var preset string
	if json.Unmarshal(raw, &preset) == nil {
		if !slices.Contains(presets, preset) {
			return schema.Permissions{}, nil, fmt.Errorf("unknown permissions preset %q (want permissive, standard, restricted or readonly)", preset)
		}
		return schema.Permissions{Preset: preset}, nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return schema.Permissions{}, nil, fmt.Errorf("permissions: want a preset name or an object: %w", err)
	}
	sandbox := m["sandbox"]
	delete(m, "sandbox")
	var p schema.Permissions
	var dropped []string
	for k, v := range m {
		var err error
		switch k {
		case "defaultMode":
			err = json.Unmarshal(v, &p.DefaultMode)
			if err == nil && !slices.Contains(defaultMode, p.DefaultMode) {
				err = fmt.Errorf("unknown defaultMode %q (want %s)", p.DefaultMode, strings.Join(defaultMode, ", "))
			}
		case "allow":
			err = json.Unmarshal(v, &p.Allow)
		case "deny":
			err = json.Unmarshal(v, &p.Deny)
		case "ask":
			err = json.Unmarshal(v, &p.Ask)
		case "additionalDirectories":
			err = json.Unmarshal(v, &p.AdditionalDirectories)
		default:
			dropped = append(dropped, k)
		}
		if err != nil {
			return schema.Permissions{}, nil, fmt.Errorf("permissions.%s: %w", k, err)
		}
	}
	if len(dropped) > 0 {
		sort.Strings(dropped)
		r.note("%s: permissions fields %v ignored (no equivalent in actctl)", r.display(f), dropped)
	}
	return p, sandbox, nil
}

// msInterval renders milliseconds as the largest exact unit: 120000 -> "2m".
func msInterval(ms int64) string {
	switch {
	case ms > 0 && ms%3_600_000 == 0:
		return strconv.FormatInt(ms/3_600_000, 10) + "h"
	case ms > 0 && ms%60_000 == 0:
		return strconv.FormatInt(ms/60_000, 10) + "m"
	case ms > 0 && ms%1000 == 0:
		return strconv.FormatInt(ms/1000, 10) + "s"
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
