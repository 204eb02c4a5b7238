package hooks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/actctl/actctl/model"
)

// TestRegistry: subscriptions get ids, are removed only by their agent,
// dropped all at once with their agent's process, bounded per agent, and
// refused for an unknown event or agents on an event about none.
func TestRegistry(t *testing.T) {
	r := NewRegistry()
	a, err := r.Add(Subscription{Agent: "triage", Event: "task:done", Agents: []string{"api"}, Prompt: "p"})
	if err != nil || a.ID != "s1" || a.HookName() != "triage/s1" {
		t.Fatalf("%+v %v", a, err)
	}
	b, _ := r.Add(Subscription{Agent: "triage", Event: "webhook:gh", Prompt: "p"})
	c, _ := r.Add(Subscription{Agent: "other", Event: "idle", Prompt: "p"})
	if _, err := r.Remove("other", a.ID); err == nil || !strings.Contains(err.Error(), `unsubscribe: no such subscription "s1" for agent other`) {
		t.Errorf("another agent's subscription removed: %v", err)
	}
	if _, err := r.Remove("triage", b.ID); err != nil {
		t.Error(err)
	}
	if n := r.Drop("triage"); n != 1 {
		t.Errorf("dropped %d, want 1", n)
	}
	if l := r.List(); len(l) != 1 || l[0].ID != c.ID {
		t.Errorf("left %+v", l)
	}
	for _, tc := range []struct {
		s    Subscription
		want string
	}{
		{Subscription{Agent: "x", Event: "task:dne", Prompt: "p"}, `subscribe: unknown event "task:dne"`},
		{Subscription{Agent: "x", Event: "actctl:start", Agents: []string{"a"}, Prompt: "p"}, "actctl:start concerns no agent"},
		{Subscription{Agent: "x", Event: "idle"}, "needs its agent and a prompt"},
	} {
		if _, err := r.Add(tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
	}
	for i := range MaxSubscriptions {
		if _, err := r.Add(Subscription{Agent: "many", Event: "idle", Prompt: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Add(Subscription{Agent: "many", Event: "idle", Prompt: "one more"}); err == nil || !strings.Contains(err.Error(), "already has 32 subscriptions") {
		t.Errorf("over the bound: %v", err)
	}
}

// TestSubscriptionLoopBounded: an agent subscribed to its own task:done
// is prompted MaxChain times from one event, then the prompt is dropped
// with one warning; the config's hooks and the subscription both run.
func TestSubscriptionLoopBounded(t *testing.T) {
	b, p, w, _ := loopBus(t, map[string]model.Hook{"cfg": promptHook("idle", "x", "y")})
	reg := NewRegistry()
	b.opts.Runtime = reg
	s, err := reg.Add(Subscription{Agent: "a", Event: "task:done", Prompt: "again: {{event.agent}} did {{event.name}}"})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Matching(Event{Name: "task:done", Agent: "a"}); len(got) != 1 || got[0] != "a/"+s.ID {
		t.Errorf("matching %v", got)
	}
	b.Publish(Event{Name: "task:done", Agent: "a"})
	b.Wait()
	if len(p.chains) != MaxChain {
		t.Fatalf("%d prompts, want %d", len(p.chains), MaxChain)
	}
	if len(w.all) != 1 || !strings.Contains(w.all[0], "hook loop: a prompt to a caused through 9 hooks (a/s1 -> a/s1") {
		t.Errorf("warnings %q", w.all)
	}
	reg.Drop("a")
	if got := b.Matching(Event{Name: "task:done", Agent: "a"}); len(got) != 0 {
		t.Errorf("after the drop, matching %v", got)
	}
}
