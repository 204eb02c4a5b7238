package schema

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Interaction modes: how a person or a program uses an agent. An
// archetype allows some of them; an agent offers those its backend can
// serve (see OfferedModes).
const (
	InteractOpen  = "open"
	InteractStart = "start"
	InteractChat  = "chat"
	InteractRun   = "run"
	InteractProxy = "proxy"
)

// ServedModes returns the modes the backend supports, sorted: they follow
// from the commands it declares (an acp command gives "acp" and
// "resolve", an open command "open"); an explicit modes list only narrows
// them.
func (b Backend) ServedModes() []string {
	out := []string{}
	if b.ACP != nil {
		out = append(out, ModeACP, ModeResolve)
	}
	if b.Open != nil {
		out = append(out, ModeOpen)
	}
	if b.Modes != nil {
		kept := out[:0]
		for _, m := range out {
			if slices.Contains(b.Modes, m) {
				kept = append(kept, m)
			}
		}
		out = kept
	}
	sort.Strings(out)
	return out
}

// HasMode reports whether the backend supports mode m (see ServedModes).
func (b Backend) HasMode(m string) bool { return slices.Contains(b.ServedModes(), m) }

// interactionNeeds is the backend mode an interaction mode needs: open
// starts the backend's own UI, everything else talks ACP to it.
func interactionNeeds(m string) string {
	if m == InteractOpen {
		return ModeOpen
	}
	return ModeACP
}

// OfferedModes returns the interaction modes an agent of archetype arch on
// backend b offers: those the archetype allows that the backend can serve,
// in the archetype's order. proxy, run, chat and start need the backend's
// acp mode; open needs its open mode. This is the one answer proxy, zed,
// run and chat ask.
func OfferedModes(arch Archetype, b Backend) []string {
	served := b.ServedModes()
	out := []string{}
	for _, m := range arch.InteractionModes {
		if slices.Contains(served, interactionNeeds(m)) {
			out = append(out, m)
		}
	}
	return out
}

// Offers returns the interaction modes the agent offers: OfferedModes,
// less start when no command serves it for the agent (only `actctl up`
// and `actctl start` do, for the launch modes up runs: UpRuns).
func (r *Resolved) Offers() []string {
	out := OfferedModes(r.Archetype, r.Backend)
	if !UpRuns(r.LaunchMode) {
		out = slices.DeleteFunc(out, func(m string) bool { return m == InteractStart })
	}
	return out
}

// UpRuns reports whether `actctl up` runs agents of launch mode m (and
// so serves their start mode): acp-service and acp-background.
func UpRuns(m string) bool { return m == LaunchACPService || m == LaunchACPBackground }

// Offer reports whether the agent offers interaction mode m.
func (r *Resolved) Offer(m string) bool { return slices.Contains(r.Offers(), m) }

// NotOffered explains why the agent does not offer interaction mode m,
// naming what it does offer and the field that would give it m.
func (r *Resolved) NotOffered(m string) string {
	return r.notOffered(fmt.Sprintf("agent %q", r.Name), m)
}

// TemplateNotOffered is NotOffered for an agent made from the template
// (`run -t`, `proxy -t`): the message names the template.
func (r *Resolved) TemplateNotOffered(m string) string {
	return r.notOffered(fmt.Sprintf("template %q", r.TemplateName), m)
}

func (r *Resolved) notOffered(subject, m string) string {
	offers := "nothing"
	if o := r.Offers(); len(o) > 0 {
		offers = strings.Join(o, ", ")
	}
	if !r.Archetype.Allows(m) {
		return fmt.Sprintf("%s does not offer %s: its archetype %q allows %s, so it offers %s; to allow %s, add it to `archetypes: %s: interactionModes` in actant.cue",
			subject, m, r.ArchetypeName, orNone(r.Archetype.InteractionModes), offers, m, r.ArchetypeName)
	}
	if m == InteractStart && !UpRuns(r.LaunchMode) {
		return fmt.Sprintf("%s does not offer start: its launch mode %q is not one `actctl up` runs (acp-service, acp-background), so it offers %s; set launchMode to one of them in its template to start it with up",
			subject, r.LaunchMode, offers)
	}
	need := interactionNeeds(m)
	return fmt.Sprintf("%s does not offer %s: its backend %q has no %s command (it supports %s), so it offers %s; give backend %q an %s command (`backends: %s: %s: {command: ...}`), or use a backend that has one",
		subject, m, r.BackendName, need, orNone(r.Backend.ServedModes()), offers, r.BackendName, need, r.BackendName, need)
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
		name, orNone(a.InteractionModes))}
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "no mode"
	}
	return strings.Join(list, ", ")
}

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
