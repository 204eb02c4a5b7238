package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// knownEvents are the events a hook may name: HookEvents and the
// declared webhooks' (webhook:NAME), for "did you mean".
func (c *Config) knownEvents() []string {
	events := slices.Clone(HookEvents)
	for _, name := range slices.Sorted(maps.Keys(c.Webhooks)) {
		events = append(events, EventWebhook+name)
	}
	return events
}

// validateHooks checks every hook: a known event, known agents, exactly
// one of run and prompt, and no prompt hook that would feed itself; and
// warns of the loops of hooks it sees (hookLoops).
func (c *Config) validateHooks() Diagnostics {
	var ds Diagnostics
	for _, name := range slices.Sorted(maps.Keys(c.Hooks)) {
		h := c.Hooks[name]
		p := func(field ...string) string { return Path(append([]string{"hooks", name}, field...)...) }
		if msg := CheckName(name); msg != "" {
			ds = append(ds, c.Diag(p(), "%s", msg))
		}
		if strings.HasPrefix(h.On, EventWebhook) {
			if d, ok := c.checkWebhookEvent(p("on"), h.On); !ok {
				ds = append(ds, d)
			} else if len(h.Agents) > 0 {
				ds = append(ds, c.Diag(p("agents"), "%s concerns no agent, so a hook on it cannot be limited to agents; drop agents", h.On))
			}
		} else if !slices.Contains(HookEvents, h.On) {
			msg := fmt.Sprintf("unknown event %q", h.On)
			if s := suggest(h.On, c.knownEvents()); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			ds = append(ds, c.Diag(p("on"), "%s; events are %s and webhook:NAME", msg, strings.Join(HookEvents, ", ")))
		} else if len(h.Agents) > 0 && !EventHasAgent(h.On) {
			ds = append(ds, c.Diag(p("agents"), "%s concerns no agent, so a hook on it cannot be limited to agents; drop agents", h.On))
		}
		for i, a := range h.Agents {
			if d, ok := c.checkAgent(p("agents")+fmt.Sprintf("[%d]", i), a); !ok {
				ds = append(ds, d)
			}
		}
		switch {
		case (h.Run == nil) == (h.Prompt == nil):
			ds = append(ds, c.Diag(p(), "a hook needs exactly one of run (a command) or prompt (a task for an agent)"))
		case h.Run != nil:
			if _, err := h.Run.TimeoutDuration(); err != nil {
				ds = append(ds, c.Diag(p("run", "timeout"), "%v", err))
			}
		case h.Prompt != nil:
			d, ok := c.checkAgent(p("prompt", "agent"), h.Prompt.Agent)
			if !ok {
				ds = append(ds, d)
			} else if feedsItself(h) {
				ds = append(ds, c.Diag(p("on"), "prompting %q on %s about %q itself would loop (each task it queues ends in another %s); limit agents to others", h.Prompt.Agent, h.On, h.Prompt.Agent, h.On))
			} else if d, ok := c.checkPromptable(p("prompt", "agent"), h.Prompt.Agent); !ok {
				ds = append(ds, d)
			}
		}
	}
	return append(ds, c.hookLoops()...)
}

// feedsItself: a prompt hook on an event that its own task causes, for the
// agent it prompts.
func feedsItself(h Hook) bool {
	if !slices.Contains(taskEvents, h.On) {
		return false
	}
	return len(h.Agents) == 0 || slices.Contains(h.Agents, h.Prompt.Agent)
}

// checkAgent checks that name is a declared agent (agents are never hub
// components).
func (c *Config) checkAgent(path, name string) (Diagnostic, bool) {
	if _, ok := c.Agents[name]; ok {
		return Diagnostic{}, true
	}
	msg := fmt.Sprintf("unknown agent %q", name)
	if s := suggest(name, slices.Sorted(maps.Keys(c.Agents))); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return c.Diag(path, "%s", msg), false
}

// checkPromptable checks that a prompt hook can reach agent name: up
// holds it, or it offers run (an agent that does not resolve is reported
// elsewhere). The message names why up does not hold it: a launch mode up
// does not run, or an archetype without start.
func (c *Config) checkPromptable(path, name string) (Diagnostic, bool) {
	r, err := c.Resolve(name)
	if err != nil || r.HeldByUp() || r.Offer(InteractRun) {
		return Diagnostic{}, true
	}
	why, fix := fmt.Sprintf("launchMode %q", r.LaunchMode), "add run to them"
	if UpRuns(r.LaunchMode) { // up runs its launch mode: start is what it lacks
		why, fix = fmt.Sprintf("archetype %s's interactionModes leave out start", r.ArchetypeName), "add start or run to them"
	}
	return c.Diag(path, "agent %q cannot be prompted by a hook: up does not hold it (%s) and it does not offer run (archetype %s's interactionModes); %s, or prompt an employee or service", name, why, r.ArchetypeName, fix), false
}
