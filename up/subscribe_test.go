package up

import (
	"context"
	"strings"
	"testing"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/schedule"
)

// TestSubscriptionsLiveWithProcess: a running employee subscribes and
// unsubscribes its own; a service, a stopped employee or an unknown
// agent is refused; a stop or a crash of the process drops its
// subscriptions, and a restart does not bring them back.
func TestSubscriptionsLiveWithProcess(t *testing.T) {
	h := newHarness(t, nil)
	reg := hooks.NewRegistry()
	h.m.opts.Subscriptions = reg
	h.m.Sync([]Spec{employee(t, "worker", schedule.Spec{}), service(t, "api")})
	h.wait("process:start", "worker")
	h.wait("process:start", "api")
	ctx := context.Background()
	sub := func(agent, event string) (hooks.Subscription, error) {
		v, err := h.m.Handle(ctx, control.Request{Op: control.OpSubscribe, Agent: agent, Event: event, Text: "look at {{event.agent}}"}, nil)
		s, _ := v.(hooks.Subscription)
		return s, err
	}
	s1, err := sub("worker", "task:done")
	if err != nil || s1.ID == "" || s1.Agent != "worker" || !s1.Created.Equal(t0) {
		t.Fatalf("%+v %v", s1, err)
	}
	if _, err := sub("worker", "idle"); err != nil {
		t.Fatal(err)
	}
	for agent, want := range map[string]string{
		"api":    "subscribe: agent api is no employee",
		"nobody": "subscribe: agent nobody is not run by this actctl up",
	} {
		if _, err := sub(agent, "idle"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", agent, err, want)
		}
	}
	if _, err := h.m.Handle(ctx, control.Request{Op: control.OpUnsubscribe, Agent: "api", ID: s1.ID}, nil); err == nil {
		t.Error("another agent removed worker's subscription")
	}
	if _, err := h.m.Handle(ctx, control.Request{Op: control.OpUnsubscribe, Agent: "worker", ID: s1.ID}, nil); err != nil {
		t.Fatal(err)
	}
	v, _ := h.m.Handle(ctx, control.Request{Op: control.OpHooks}, nil)
	if l := v.([]hooks.Subscription); len(l) != 1 || l[0].Event != "idle" {
		t.Fatalf("listed %+v", l)
	}
	if _, err := h.m.Stop(ctx, "worker"); err != nil {
		t.Fatal(err)
	}
	h.wait("process:stop", "worker")
	if l := reg.List(); len(l) != 0 {
		t.Errorf("after the stop: %+v", l)
	}
	if _, err := sub("worker", "idle"); err == nil || !strings.Contains(err.Error(), "subscribe: agent worker is stopped: a subscription lives as long as the agent's process") {
		t.Errorf("a stopped employee subscribed: %v", err)
	}
	if _, err := h.m.Start(ctx, "worker"); err != nil {
		t.Fatal(err)
	}
	h.wait("process:start", "worker")
	if _, err := sub("worker", "idle"); err != nil {
		t.Fatal(err)
	}
	// A crash drops them too.
	if _, err := h.m.Prompt(ctx, "worker", "crash", true, nil); err == nil {
		t.Log("the crash prompt returned no error")
	}
	h.wait("process:crash", "worker")
	if l := reg.List(); len(l) != 0 {
		t.Errorf("after the crash: %+v", l)
	}
}

// TestSubscriptionPromptBound: a prompt over MaxSubscriptionPrompt is
// refused with the bound named, and nothing is registered (issue #30
// item 11); one at the bound is taken.
func TestSubscriptionPromptBound(t *testing.T) {
	h := newHarness(t, nil)
	reg := hooks.NewRegistry()
	h.m.opts.Subscriptions = reg
	h.m.Sync([]Spec{employee(t, "worker", schedule.Spec{})})
	h.wait("process:start", "worker")
	ctx := context.Background()
	big := strings.Repeat("x", 2<<20)
	_, err := h.m.Handle(ctx, control.Request{Op: control.OpSubscribe, Agent: "worker", Event: "idle", Text: big}, nil)
	if err == nil || err.Error() != "subscribe: the prompt is 2097152 bytes, over the bound of 65536 (64 KiB)" {
		t.Errorf("a 2 MiB prompt: %v", err)
	}
	if l := reg.List(); len(l) != 0 {
		t.Errorf("registered: %d", len(l))
	}
	if _, err := h.m.Handle(ctx, control.Request{Op: control.OpSubscribe, Agent: "worker", Event: "idle", Text: big[:64<<10]}, nil); err != nil {
		t.Errorf("a prompt at the bound: %v", err)
	}
}
