package plugin

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/schema"
)

// AgentTurn is one turn a plugin of kind agent asks of its sub-agent.
type AgentTurn struct {
	// Plugin is the plugin asking.
	Plugin string
	// Agent is the agent or template of the workspace asked.
	Agent string
	// Preset is the permissions of the sub-agent's session.
	Preset string
	// Prompt is the plugin's prompt with the text in it.
	Prompt string
}

// Runner runs a sub-agent's one-shot turn and returns the text of its
// reply (the agent's message chunks); an error or a stop reason other
// than end_turn is a failure of the plugin.
type Runner func(ctx context.Context, t AgentTurn) (string, error)

// SubAgents are one main session's sub-agents (docs/plugins.md, "The
// model"): Ask runs a turn in the sub-agent session of t.Plugin, which
// its first turn starts and the next ones use again; Close ends them
// all, with the main session, and fails the Asks after it.
type SubAgents interface {
	Ask(ctx context.Context, t AgentTurn) (string, error)
	Close()
}

// Options are what a Set needs beyond the config.
type Options struct {
	// SubAgents, if set, makes the sub-agents of each main session
	// (Filter), on its first agent plugin's turn; they end with it.
	SubAgents func() SubAgents
	// Runner runs the turns of the agent plugins where SubAgents is not
	// set, one call each (nil too: each fails as its onError says).
	Runner Runner
	// Env is the base environment of command plugins (nil: the process's).
	Env []string
}

// step is one plugin of a chain, ready to run.
type step struct {
	name string
	p    schema.Plugin
	b    schema.Bounds
	re   []*regexp.Regexp // redact
}

// Set is an agent's plugins, built once; Filter makes a session's.
type Set struct {
	steps    []*step // declared order
	inbound  []*step // the inbound chain (chains)
	outbound []*step // the outbound chain (chains)
	redact   []*step // the redact steps, declared order
	opts     Options
}

// New builds the Set of the plugins names (an agent's list, schema.PluginsOf)
// from cfg; nil when names is empty.
func New(cfg *schema.Config, names []string, o Options) (*Set, error) {
	if len(names) == 0 {
		return nil, nil
	}
	s := &Set{opts: o}
	for _, n := range names {
		p, ok := cfg.Plugins[n]
		if !ok {
			return nil, fmt.Errorf("plugin %q is not declared", n)
		}
		st := &step{name: n, p: p, b: p.Bounds()}
		for _, pat := range p.Patterns {
			re, err := regexp.Compile(pat)
			if err != nil {
				return nil, fmt.Errorf("plugin %s: pattern %q: %w", n, pat, err)
			}
			st.re = append(st.re, re)
		}
		s.steps = append(s.steps, st)
		if p.Kind == schema.PluginRedact {
			s.redact = append(s.redact, st)
		}
	}
	s.inbound, s.outbound = s.chains()
	return s, nil
}

// chains are the inbound chain (declared order) and the outbound one
// (reverse order), each with the redact plugins first, wherever they
// are listed: no other plugin (a sub-agent, a command) sees what they
// name (docs/plugins.md, "Order").
func (s *Set) chains() (inbound, outbound []*step) {
	redact := func(st *step) bool { return st.p.Kind == schema.PluginRedact }
	for _, first := range []bool{true, false} {
		for _, st := range s.steps {
			if redact(st) == first && st.p.Inbound() {
				inbound = append(inbound, st)
			}
		}
		for _, st := range slices.Backward(s.steps) {
			if redact(st) == first && st.p.Outbound() {
				outbound = append(outbound, st)
			}
		}
	}
	return inbound, outbound
}

// ForAgent is the Set of agent r's plugins (nil: none).
func ForAgent(cfg *schema.Config, r *schema.Resolved, o Options) (*Set, error) {
	s, err := New(cfg, schema.PluginsOf(r), o)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", r.Name, err)
	}
	return s, nil
}

// FilterFunc is the Set's acpclient.FilterFunc (nil for a nil Set: no
// plugin, nothing on the session's path).
func (s *Set) FilterFunc() acpclient.FilterFunc {
	if s == nil {
		return nil
	}
	return func(emit func(acpclient.Event)) acpclient.Filter { return s.Filter(emit) }
}

// Filter is a new session's Filter; emit receives its plugin steps.
func (s *Set) Filter(emit func(acpclient.Event)) acpclient.Filter {
	if emit == nil {
		emit = func(acpclient.Event) {}
	}
	return &session{set: s, emit: emit, turn: newTurnState(), sessionTurns: map[*step]int{}}
}

// Redact is text with the Set's redact patterns applied (what a log
// records of a prompt: docs/plugins.md); a nil Set returns text.
func (s *Set) Redact(text string) string {
	if s == nil {
		return text
	}
	for _, st := range s.redact {
		text = st.redactString(text)
	}
	return text
}
