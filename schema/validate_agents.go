package schema

// validateAgent checks one agent: its template reference, its launch mode
// and its workDir (README, the list of checks). An agent whose template
// comes from a hub gets what can be checked before the hub is read here,
// the rest from CheckHubAgent.
func (c *Config) validateAgent(name string) Diagnostics {
	a := c.Agents[name]
	workDir := Path("agents", name, "workDir")
	if d, ok := checkRef(c, Path("agents", name, "template"), "template", a.Template, c.Templates); !ok {
		return Diagnostics{d}
	}
	if msg := climbsOut(a.WorkDir); msg != "" {
		return Diagnostics{c.Diag(workDir, "%s", msg)}
	}
	if IsHubRef(a.Template) {
		if msg := CheckWorkDir(c.workDirPath(a.WorkDir), c.Home); a.WorkDir != "" && msg != "" {
			return Diagnostics{c.Diag(workDir, "%s", msg)}
		}
		return nil
	}
	ds := c.validateCheckout(name)
	if a.LaunchMode != "" {
		ds = append(ds, c.CheckLaunch(Path("agents", name, "launchMode"), a.Template, a.LaunchMode)...)
	}
	return append(ds, c.checkAgentDir(name)...)
}

// checkAgentDir checks the directory of an agent whose template is known:
// a workDir only for a project archetype, never a place actctl refuses
// (CheckWorkDir), and an existing directory (missingWorkDir).
func (c *Config) checkAgentDir(name string) Diagnostics {
	a := c.Agents[name]
	t := c.Templates[a.Template]
	workDir := Path("agents", name, "workDir")
	if arch, ok := c.Archetypes[t.Archetype]; !ok || arch.Workspace != WorkspaceProject {
		if a.WorkDir != "" {
			return Diagnostics{c.Diag(workDir, "workDir is only used by archetypes whose workspace is \"project\"; %q (archetype %s) lives in $ACTANT_HOME/instances/%s", name, t.Archetype, name)}
		}
		return nil
	}
	r, err := c.Resolve(name)
	if err != nil {
		return nil // the template's own diagnostics say why
	}
	if msg := CheckWorkDir(r.Dir, c.Home); msg != "" {
		return Diagnostics{c.Diag(workDir, "%s", msg)}
	}
	if msg := missingWorkDir(a.WorkDir, r.Dir); msg != "" {
		return Diagnostics{c.Diag(workDir, "%s", msg)}
	}
	return nil
}

// CheckHubAgent checks the directory of agent name when its template
// comes from a hub, once the hub's templates are merged (the hub calls
// it): what Validate could not know before, whether the archetype takes a
// workDir and whether that directory exists. What Validate already
// reported of the workDir is not reported again.
func (c *Config) CheckHubAgent(name string) Diagnostics {
	a, ok := c.Agents[name]
	if !ok || !IsHubRef(a.Template) {
		return nil
	}
	if _, ok := c.Templates[a.Template]; !ok {
		return nil
	}
	if climbsOut(a.WorkDir) != "" || (a.WorkDir != "" && CheckWorkDir(c.workDirPath(a.WorkDir), c.Home) != "") {
		return nil
	}
	return c.checkAgentDir(name)
}
