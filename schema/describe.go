package schema

import (
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/token"
)

// Where a resolved value came from (ResolvedValue.Source).
const (
	FromTemplate  = "template"  // written in the agent's local template
	FromAgent     = "agent"     // the agent's own override
	FromHub       = "hub"       // the hub template's ("hub SOURCE")
	FromArchetype = "archetype" // the archetype's policy ("archetype NAME")
	FromDefault   = "default"   // the schema's default: nobody wrote it
)

// ResolvedValue is one field of an agent as resolved, and where its value
// came from (`actctl describe`, docs/json.md).
type ResolvedValue struct {
	Field string `json:"field"`
	Value any    `json:"value"`
	// Source is FromTemplate, FromAgent, FromDefault, "hub SOURCE" or
	// "archetype NAME".
	Source string `json:"source"`
	// Position is where the value is written, "file:line:col"; empty for
	// a default.
	Position string `json:"position,omitempty"`
}

// Provenance lists every field of agent name as resolved (its template's
// fields, vars one by one, its permissions, launch mode, directory and
// conflict policy) with the source of each value.
func (c *Config) Provenance(name string) ([]ResolvedValue, error) {
	r, err := c.Resolve(name)
	if err != nil {
		return nil, err
	}
	p := provenance{c: c, r: r}
	t := r.Template
	out := []ResolvedValue{
		{Field: "template", Value: r.TemplateName, Source: p.agentSource(), Position: p.at(Path("agents", name, "template"))},
		p.field("version", t.Version),
		p.field("description", t.Description),
		p.field("backend", t.Backend),
		p.field("archetype", t.Archetype),
		p.override("launchMode", r.LaunchMode, r.Agent.LaunchMode != "", t.LaunchMode != ""),
		p.field("workspacePolicy", t.WorkspacePolicy),
		p.field("skills", t.Skills),
		p.field("prompts", t.Prompts),
		p.field("mcpServers", t.MCPServers),
		p.field("commands", t.Commands),
		p.field("subAgents", t.SubAgents),
		p.override("permissions", r.Permissions, r.Agent.Permissions != nil, true),
		p.field("schedule", t.Schedule),
		p.field("settings", t.Settings),
	}
	for _, k := range slices.Sorted(maps.Keys(r.Vars)) {
		out = append(out, p.variable(k))
	}
	return append(out, p.dir(), p.conflict()), nil
}

// provenance finds the sources of one resolved agent's values.
type provenance struct {
	c *Config
	r *Resolved
}

// agentSource is where the agent itself is declared.
func (p provenance) agentSource() string {
	if p.r.Agent.Adhoc {
		return "proxy (.actant/adhoc.json)"
	}
	return FromAgent
}

// field is a template field the agent cannot override.
func (p provenance) field(f string, v any) ResolvedValue {
	return p.fromTemplate(f, v, Path("templates", p.r.TemplateName, f))
}

// fromTemplate is the value v of the template at path: the template's
// (or the hub's) when written there, else the schema's default.
func (p provenance) fromTemplate(f string, v any, path string) ResolvedValue {
	rv := ResolvedValue{Field: f, Value: v, Source: FromDefault}
	if src, _, ok := strings.Cut(p.r.TemplateName, "@"); ok {
		if rv.Position = p.at(path); rv.Position != "" || !isZero(v) {
			rv.Source = FromHub + " " + src
		}
		return rv
	}
	if rv.Position = p.at(path); rv.Position != "" {
		rv.Source = FromTemplate
	}
	return rv
}

// override is a field the agent may override (byAgent), else the
// template's; a launch mode the template leaves out is the archetype's.
func (p provenance) override(f string, v any, byAgent, templateHasIt bool) ResolvedValue {
	if byAgent {
		return ResolvedValue{Field: f, Value: v, Source: FromAgent, Position: p.at(Path("agents", p.r.Name, f))}
	}
	if !templateHasIt {
		return ResolvedValue{Field: f, Value: v, Source: FromArchetype + " " + p.r.ArchetypeName, Position: p.at(Path("archetypes", p.r.ArchetypeName, f))}
	}
	return p.fromTemplate(f, v, Path("templates", p.r.TemplateName, f))
}

// variable is one var: the agent's, else the template's.
func (p provenance) variable(k string) ResolvedValue {
	f := "vars." + k
	if _, ok := p.r.Agent.Vars[k]; ok {
		return ResolvedValue{Field: f, Value: p.r.Vars[k], Source: FromAgent, Position: p.at(Path("agents", p.r.Name, "vars", k))}
	}
	return p.fromTemplate(f, p.r.Vars[k], Path("templates", p.r.TemplateName, "vars", k))
}

// dir is where the agent is materialized: its workDir, the workspace
// root, or its instance directory.
func (p provenance) dir() ResolvedValue {
	switch {
	case p.r.Archetype.Workspace != WorkspaceProject:
		return ResolvedValue{Field: "dir", Value: p.r.Dir, Source: FromArchetype + " " + p.r.ArchetypeName}
	case p.r.Agent.WorkDir != "":
		return ResolvedValue{Field: "dir", Value: p.r.Dir, Source: p.agentSource(), Position: p.at(Path("agents", p.r.Name, "workDir"))}
	}
	return ResolvedValue{Field: "dir", Value: p.r.Dir, Source: FromDefault}
}

// conflict is the workDirConflict policy: the agent's or the archetype's.
func (p provenance) conflict() ResolvedValue {
	if p.r.Agent.WorkDirConflict != "" {
		return ResolvedValue{Field: "workDirConflict", Value: p.r.Conflict, Source: p.agentSource(), Position: p.at(Path("agents", p.r.Name, "workDirConflict"))}
	}
	a := p.r.ArchetypeName
	return ResolvedValue{Field: "workDirConflict", Value: p.r.Conflict, Source: FromArchetype + " " + a, Position: p.at(Path("archetypes", a, "workDirConflict"))}
}

// at is where the value at path is written in the user's (or a hub's)
// files, "file:line:col"; "" when nobody wrote it there (a default, or a
// parent's position only).
func (p provenance) at(path string) string {
	pos, ok := p.c.pos[path]
	if !ok && p.c.value.Exists() {
		if v := p.c.value.LookupPath(cue.ParsePath(path)); v.Exists() {
			pos = v.Pos()
		}
	}
	if !pos.IsValid() || filepath.Base(pos.Filename()) == schemaFile {
		return ""
	}
	return positionOf(pos)
}

// positionOf is "file:line:col".
func positionOf(pos token.Pos) string {
	return fmt.Sprintf("%s:%d:%d", pos.Filename(), pos.Line(), pos.Column())
}

// isZero reports whether v is empty: "", nil, an empty list or map.
func isZero(v any) bool {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return true
	}
	switch rv.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer:
		return rv.IsNil() || (rv.Kind() != reflect.Pointer && rv.Len() == 0)
	}
	return rv.IsZero()
}
