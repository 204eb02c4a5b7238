package up

import (
	"context"
	"slices"
	"testing"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/model"
	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/supervise"
)

// TestTurnEvents: a process's primary session publishes session:start,
// a person's prompt user:prompt, every turn prompt:before and
// prompt:after, a service's prompt session session:start and
// session:end, a failed turn error; a hook's prompt is no user:prompt.
func TestTurnEvents(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{employee(t, "worker", schedule.Spec{}), service(t, "api")})
	h.wait("process:start", "worker")
	h.wait("process:start", "api")
	data := func(ev hooks.Event, want map[string]any) {
		t.Helper()
		for k, v := range want {
			if ev.Data[k] != v {
				t.Errorf("%s: data %s = %v, want %v (%v)", ev.Name, k, ev.Data[k], v, ev.Data)
			}
		}
	}
	for _, agent := range []string{"worker", "api"} {
		if ev := h.wait(model.EventSessionStart, agent); ev.Data["primary"] != true || ev.Data["sessionId"] == "" {
			t.Errorf("%s: the primary session:start %v", agent, ev.Data)
		}
	}
	ctx := context.Background()
	o, err := h.m.Prompt(ctx, "worker", "hello", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	data(h.wait(model.EventUserPrompt, "worker"), map[string]any{"task": o.Task, "source": SourceCLI, "prompt": "hello"})
	data(h.wait(model.EventPromptBefore, "worker"), map[string]any{"task": o.Task, "source": SourceCLI, "prompt": "hello"})
	data(h.wait(model.EventPromptAfter, "worker"), map[string]any{"task": o.Task, "stopReason": "end_turn"})

	o, _ = h.m.PromptFrom(ctx, SourceHook, "worker", "refuse", true, nil)
	data(h.wait(model.EventPromptBefore, "worker"), map[string]any{"task": o.Task, "source": SourceHook})
	data(h.wait(model.EventPromptAfter, "worker"), map[string]any{"task": o.Task, "stopReason": "refusal", "error": "the turn ended: refusal"})
	data(h.wait(model.EventError, "worker"), map[string]any{"task": o.Task, "source": SourceHook, "error": "the turn ended: refusal"})
	h.wait(schedule.EventTaskFailed, "worker")

	o, err = h.m.Prompt(ctx, "api", "hello", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := h.wait(model.EventSessionStart, "api")
	data(start, map[string]any{"task": o.Task, "sessionId": o.SessionID})
	data(h.wait(model.EventSessionEnd, "api"), map[string]any{"task": o.Task, "sessionId": o.SessionID})
	data(h.wait(model.EventUserPrompt, "api"), map[string]any{"task": o.Task})
	h.wait(model.EventPromptAfter, "api")
	// The hook's prompt published before PromptFrom returned, so before
	// api's events, which are all seen now.
	if _, ok := h.claim(model.EventUserPrompt, "worker"); ok {
		t.Errorf("a hook's prompt published user:prompt: %v", h.names())
	}
}

// TestEventNamesDeclared: the names up's parts publish are the table's
// (model.Events), so that validation accepts a hook on each.
func TestEventNamesDeclared(t *testing.T) {
	for _, n := range []string{supervise.EventStart, supervise.EventStop, supervise.EventCrash, supervise.EventRestart,
		schedule.EventHeartbeatTick, schedule.EventCronTick, schedule.EventTaskDone, schedule.EventTaskFailed, schedule.EventIdle} {
		if !slices.Contains(model.HookEvents, n) {
			t.Errorf("event %s is published but not in model.Events", n)
		}
	}
}
