package up

import (
	"errors"
	"fmt"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/supervise"
)

// MaxSubscriptionPrompt bounds the prompt of a runtime subscription
// (docs/runtime.md, "Runtime subscriptions"): it is kept for the life of
// the employee's process and queued as a task each time its event fires.
const MaxSubscriptionPrompt = 64 << 10

// CheckSubscriptionPrompt refuses a prompt over MaxSubscriptionPrompt
// (up, and the MCP server before it asks up).
func CheckSubscriptionPrompt(prompt string) error {
	if len(prompt) > MaxSubscriptionPrompt {
		return fmt.Errorf("subscribe: the prompt is %d bytes, over the bound of %d (64 KiB)", len(prompt), MaxSubscriptionPrompt)
	}
	return nil
}

// handleSubscription answers the requests of runtime subscriptions
// (docs/runtime.md, "Runtime subscriptions"): an employee whose process
// runs subscribes; it unsubscribes only its own; OpHooks lists them all.
func (m *Manager) handleSubscription(req control.Request) (any, error) {
	reg := m.opts.Subscriptions
	if reg == nil {
		return nil, errors.New("this actctl up takes no subscriptions")
	}
	switch req.Op {
	case control.OpHooks:
		return reg.List(), nil
	case control.OpUnsubscribe:
		s, err := reg.Remove(req.Agent, req.ID)
		if err == nil {
			m.opts.Logf("%s: unsubscribed from %s (%s)", req.Agent, s.Event, s.ID)
		}
		return s, err
	}
	if err := CheckSubscriptionPrompt(req.Text); err != nil {
		return nil, err
	}
	a, err := m.agent(req.Agent)
	if err != nil {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	if a.queue == nil {
		return nil, fmt.Errorf("subscribe: agent %s is no employee: only an employee subscribes (its queue takes the prompts)", req.Agent)
	}
	starts, _ := a.counts()
	if st := a.sup.Status(); st.State != supervise.Running {
		return nil, fmt.Errorf("subscribe: agent %s is %s: a subscription lives as long as the agent's process", req.Agent, st.State)
	}
	s, err := reg.Add(hooks.Subscription{Agent: req.Agent, Event: req.Event, Agents: req.Agents, Prompt: req.Text, Created: m.opts.Clock.Now()})
	if err != nil {
		return nil, err
	}
	// A stop or crash (and a new start) between the check and the Add
	// dropped nothing of this one: it goes with the process it was made
	// for.
	if now, _ := a.counts(); now != starts || a.sup.Status().State != supervise.Running {
		_, _ = reg.Remove(req.Agent, s.ID)
		return nil, fmt.Errorf("subscribe: agent %s's process ended while it subscribed: a subscription lives as long as the agent's process", req.Agent)
	}
	m.opts.Logf("%s: subscribed to %s (%s)", req.Agent, s.Event, s.ID)
	return s, nil
}

// dropSubscriptions removes agent's subscriptions: its process ended
// (why: process:stop or process:crash).
func (m *Manager) dropSubscriptions(agent, why string) {
	if m.opts.Subscriptions == nil {
		return
	}
	if n := m.opts.Subscriptions.Drop(agent); n > 0 {
		m.opts.Logf("%s: %d subscription(s) removed (%s)", agent, n, why)
	}
}
