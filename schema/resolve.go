package schema

import (
	"fmt"
	"path/filepath"
)

// Resolved is an agent with everything it refers to looked up and every
// default applied: the view the materializer, the proxy and the commands
// work from.
type Resolved struct {
	Name          string
	Agent         Agent
	TemplateName  string
	Template      Template
	BackendName   string
	Backend       Backend
	ArchetypeName string
	Archetype     Archetype
	// Vars are the template's vars overlaid with the agent's.
	Vars map[string]string
	// Permissions: the agent's override, else the template's; Unset when
	// neither gives any (no permission key is written, the client answers as
	// standard).
	Permissions Permissions
	LaunchMode  string
	// Dir is the absolute directory the agent is materialized into: its
	// workDir (default the workspace root) for project archetypes, else
	// $ACTANT_HOME/instances/<name>.
	Dir string
	// Conflict is the effective workDirConflict policy.
	Conflict string
}

// Resolve looks up agent name and everything it references. The config is
// expected to have passed validation; Resolve still fails cleanly on a
// dangling reference.
func (c *Config) Resolve(name string) (*Resolved, error) {
	a, ok := c.Agents[name]
	if !ok {
		return nil, fmt.Errorf("agent %q is not declared", name)
	}
	return c.ResolveAgent(name, a)
}

// ResolveAgent resolves an agent value that need not be declared in the
// config (proxy -t creates agents on the fly).
func (c *Config) ResolveAgent(name string, a Agent) (*Resolved, error) {
	t, ok := c.Templates[a.Template]
	if !ok {
		return nil, fmt.Errorf("agent %q: template %q is not declared", name, a.Template)
	}
	b, ok := c.Backends[t.Backend]
	if !ok {
		return nil, fmt.Errorf("agent %q: backend %q is not declared", name, t.Backend)
	}
	arch, ok := c.Archetypes[t.Archetype]
	if !ok {
		return nil, fmt.Errorf("agent %q: archetype %q is not declared", name, t.Archetype)
	}
	r := &Resolved{
		Name: name, Agent: a,
		TemplateName: a.Template, Template: t,
		BackendName: t.Backend, Backend: b,
		ArchetypeName: t.Archetype, Archetype: arch,
		Vars:        map[string]string{},
		Permissions: t.Permissions,
		LaunchMode:  arch.LaunchMode,
		Conflict:    arch.WorkDirConflict,
	}
	for k, v := range t.Vars {
		r.Vars[k] = v
	}
	for k, v := range a.Vars {
		r.Vars[k] = v
	}
	if a.Permissions != nil {
		r.Permissions = *a.Permissions
	}
	if t.LaunchMode != "" {
		r.LaunchMode = t.LaunchMode
	}
	if a.LaunchMode != "" {
		r.LaunchMode = a.LaunchMode
	}
	if a.WorkDirConflict != "" {
		r.Conflict = a.WorkDirConflict
	}
	if arch.Workspace == WorkspaceProject {
		switch {
		case a.WorkDir == "":
			r.Dir = c.Root
		default:
			r.Dir = c.workDirPath(a.WorkDir)
		}
	} else {
		r.Dir = filepath.Join(c.Home, "instances", name)
	}
	return r, nil
}
