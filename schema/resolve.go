package schema

import (
	"fmt"
	"path/filepath"
)

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
