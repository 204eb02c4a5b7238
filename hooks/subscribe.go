package hooks

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/actctl/actctl/model"
)

// Subscription is a hook an agent added at run time (MCP's subscribe,
// docs/runtime.md "Runtime subscriptions"): on Event, for the agents
// listed (every agent when empty), prompt Agent, the subscriber, with
// Prompt ({{event.*}} filled). It lives as long as the agent's process.
type Subscription struct {
	ID      string    `json:"id"`
	Agent   string    `json:"agent"`
	Event   string    `json:"event"`
	Agents  []string  `json:"agents,omitempty"`
	Prompt  string    `json:"prompt"`
	Created time.Time `json:"created"`
}

// HookName is the subscription's name among hooks (in a chain, in
// reports): "AGENT/ID".
func (s Subscription) HookName() string { return s.Agent + "/" + s.ID }

// MaxSubscriptions bounds the subscriptions of one agent.
const MaxSubscriptions = 32

// ErrNoSubscription is the error of removing a subscription the agent
// does not have.
var ErrNoSubscription = errors.New("no such subscription")

// Registry holds the runtime subscriptions of an `actctl up`; a Bus with
// it (Options.Runtime) runs them as prompt hooks. Safe for concurrent use.
type Registry struct {
	mu   sync.Mutex
	next int
	subs []Subscription // in the order added
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

// Add records s, giving it an ID, and returns it. The event must be one
// of model.HookEvents (webhook:NAME too: the caller checks the webhook is
// declared), and an agent holds at most MaxSubscriptions.
func (r *Registry) Add(s Subscription) (Subscription, error) {
	if err := checkEvent(s.Event, s.Agents); err != nil {
		return Subscription{}, err
	}
	if s.Agent == "" || s.Prompt == "" {
		return Subscription{}, errors.New("subscribe: a subscription needs its agent and a prompt")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, o := range r.subs {
		if o.Agent == s.Agent {
			n++
		}
	}
	if n >= MaxSubscriptions {
		return Subscription{}, fmt.Errorf("subscribe: agent %s already has %d subscriptions (at most %d): unsubscribe one first", s.Agent, n, MaxSubscriptions)
	}
	r.next++
	s.ID = "s" + strconv.Itoa(r.next)
	if s.Created.IsZero() {
		s.Created = time.Now()
	}
	s.Agents = slices.Clone(s.Agents)
	r.subs = append(r.subs, s)
	return s, nil
}

func checkEvent(event string, agents []string) error {
	if !slices.Contains(model.HookEvents, event) && !strings.HasPrefix(event, model.EventWebhook) {
		return fmt.Errorf("subscribe: unknown event %q (docs/runtime.md, \"Events\")", event)
	}
	if len(agents) > 0 && !model.EventHasAgent(event) {
		return fmt.Errorf("subscribe: %s concerns no agent, so a subscription to it cannot be limited to agents", event)
	}
	return nil
}

// Remove removes agent's subscription id; another agent's is not found.
func (r *Registry) Remove(agent, id string) (Subscription, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, s := range r.subs {
		if s.ID == id && s.Agent == agent {
			r.subs = slices.Delete(r.subs, i, i+1)
			return s, nil
		}
	}
	return Subscription{}, fmt.Errorf("unsubscribe: %w %q for agent %s", ErrNoSubscription, id, agent)
}

// Drop removes every subscription of agent (its process ended) and
// returns how many there were.
func (r *Registry) Drop(agent string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.subs)
	r.subs = slices.DeleteFunc(r.subs, func(s Subscription) bool { return s.Agent == agent })
	return n - len(r.subs)
}

// List returns the subscriptions, in the order added.
func (r *Registry) List() []Subscription {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.subs)
}

// hooks are the subscriptions as the bus's hooks.
func (r *Registry) hooks() []hook {
	var out []hook
	for _, s := range r.List() {
		out = append(out, hook{name: s.HookName(), timeout: model.DefaultHookTimeout,
			spec: model.Hook{On: s.Event, Agents: s.Agents, Prompt: &model.HookPrompt{Agent: s.Agent, Text: s.Prompt}}})
	}
	return out
}
