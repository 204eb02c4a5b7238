package schema

import (
	"strings"
	"time"
)

// launchesOverACP reports whether a launch mode runs the backend as an ACP
// agent that actctl talks to (an employee's or service's background
// process, a one-shot run): only those make a backend without acp an error.
func launchesOverACP(launchMode string) bool {
	switch launchMode {
	case LaunchACPBackground, LaunchACPService, LaunchOneShot:
		return true
	}
	return false
}

// checkModes reports the problems of backend name's declared modes: an
// explicit mode whose command is missing.
func (c *Config) checkModes(name string) Diagnostics {
	var ds Diagnostics
	b := c.Backends[name]
	for _, m := range b.Modes {
		need, cmd := ModeACP, b.ACP
		if m == ModeOpen {
			need, cmd = ModeOpen, b.Open
		}
		if cmd == nil {
			ds = append(ds, c.Diag(Path("backends", name, "modes"),
				"backend %q lists mode %s but has no %s command; give it one (backends.%s.%s: {command: ...}) or leave %s out of modes",
				name, m, need, Path(name), need, m))
		}
	}
	return ds
}

// CheckLaunch reports a backend that cannot serve the launch mode of
// template name (launchMode: the effective one), at path. Only launch
// modes that run the backend over ACP need its acp command; any other
// agent simply offers fewer interaction modes (see OfferedModes).
func (c *Config) CheckLaunch(path, template, launchMode string) Diagnostics {
	t := c.Templates[template]
	b, ok := c.Backends[t.Backend]
	if !ok || !launchesOverACP(launchMode) || b.HasMode(ModeACP) {
		return nil
	}
	why := "has no acp command"
	if b.ACP != nil {
		why = "leaves acp out of its modes"
	}
	return Diagnostics{c.Diag(path,
		"backend %q %s, but launchMode %q (archetype %q) runs the agent's backend over ACP; give %q an acp command (backends.%s.acp: {command: ...}), use a backend that has one, or use an archetype that does not run it in the background",
		t.Backend, why, launchMode, t.Archetype, t.Backend, Path(t.Backend))}
}

// TemplateLaunchMode is the launch mode of template t: its own, else its
// archetype's.
func (c *Config) TemplateLaunchMode(t Template) string {
	if t.LaunchMode != "" {
		return t.LaunchMode
	}
	return c.Archetypes[t.Archetype].LaunchMode
}

// checkLiveness refuses a turnTimeout or stallAfter of kind name (a
// template or an archetype) that is no positive Go duration.
func (c *Config) checkLiveness(kind, name, turnTimeout, stallAfter string) Diagnostics {
	var ds Diagnostics
	for _, f := range []struct{ name, v string }{{"turnTimeout", turnTimeout}, {"stallAfter", stallAfter}} {
		if f.v == "" {
			continue
		}
		if d, err := time.ParseDuration(f.v); err != nil || d <= 0 {
			ds = append(ds, c.Diag(Path(kind, name, f.name), "%s %q: want a positive Go duration such as \"90s\", \"30m\" or \"2h\"", f.name, f.v))
		}
	}
	return ds
}

// checkAutoStart refuses an archetype that has autoStart but leaves start
// out of its interactionModes: up would be asked to start agents that do
// not offer start (docs/runtime.md, "actctl up").
func (c *Config) checkAutoStart(name string) Diagnostics {
	a := c.Archetypes[name]
	if !a.AutoStart || a.Allows(InteractStart) {
		return nil
	}
	return Diagnostics{c.Diag(Path("archetypes", name, "interactionModes"),
		"archetype %q has autoStart, but its interactionModes (%s) leave out start, which `actctl up` and `actctl start` need; add \"start\" to them, or set autoStart: false",
		name, orNoneModes(a.InteractionModes))}
}

// orNoneModes is list joined, or "no mode".
func orNoneModes(list []string) string {
	if len(list) == 0 {
		return "no mode"
	}
	return strings.Join(list, ", ")
}
