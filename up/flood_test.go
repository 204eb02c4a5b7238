package up

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/model"
	"github.com/actctl/actctl/schedule"
)

// TestHookFloodKeepsCoalescing: while a task runs, a flood of webhook
// deliveries whose hook prompts the employee queues one task each (none
// lost, in order), and the heartbeat ticks that come due meanwhile still
// coalesce into one heartbeat task behind them.
func TestHookFloodKeepsCoalescing(t *testing.T) {
	h := newHarness(t, nil)
	s := employee(t, "triage", schedule.Spec{Heartbeat: &schedule.Heartbeat{Interval: 10 * time.Minute, Seed: "x"}})
	h.m.Sync([]Spec{s})
	h.wait("process:start", "triage")
	queued := make(chan hooks.Result, 100)
	bus, err := hooks.New(map[string]model.Hook{"new-issue": {On: "webhook:gh", Prompt: &model.HookPrompt{Agent: "triage", Text: "issue {{event.data.payload.n}}"}}},
		hooks.Options{Prompter: HookPrompter{M: h.m}, Report: func(r hooks.Result) { queued <- r }})
	if err != nil {
		t.Fatal(err)
	}
	long := h.hold("triage")
	const flood = 20
	for i := range flood {
		bus.Publish(hooks.Event{Name: "webhook:gh", Data: map[string]any{"payload": map[string]any{"n": i}}})
		if r := <-queued; r.Err != nil { // one at a time: the tasks queue in order
			t.Fatalf("delivery %d: %v", i, r.Err)
		}
	}
	for i, coalesced := range []bool{false, true, true} {
		h.clk.WaitPending(1)
		h.clk.Advance(10 * time.Minute)
		ev := h.wait("heartbeat:tick", "triage")
		if ev.Data["task"] != uint64(flood+2) || (ev.Data["coalesced"] == true) != coalesced {
			t.Fatalf("tick %d: %v, want task %d coalesced %v", i, ev.Data, flood+2, coalesced)
		}
	}
	if o := long.release(t); o.Error != "" {
		t.Fatalf("held turn: %+v", o)
	}
	h.wait("idle", "triage")
	bus.Wait()
	lines := h.promptLines()
	if len(lines) != flood+2 {
		t.Fatalf("%d prompts, want the held one, %d deliveries and one heartbeat: %q", len(lines), flood, lines)
	}
	for i := range flood {
		if want := fmt.Sprint("issue ", i); lines[i+1][1] != want {
			t.Errorf("prompt %d = %q, want %q", i+1, lines[i+1][1], want)
		}
	}
	if !strings.Contains(lines[flood+1][1], schedule.HeartbeatFile) {
		t.Errorf("last prompt %q, want the one heartbeat", lines[flood+1][1])
	}
}

// TestPromptFloodBounded: prompts to an employee wait up to
// schedule.MaxWaiting behind its running turn; one more is refused at once
// with ErrQueueFull (a hook's prompt fails, logged by the bus, and no task
// is made), and the queued ones still run.
func TestPromptFloodBounded(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{employee(t, "triage", schedule.Spec{})})
	h.wait("process:start", "triage")
	long := h.hold("triage")
	for i := range schedule.MaxWaiting {
		if o, err := h.m.Prompt(context.Background(), "triage", fmt.Sprint("p", i), false, nil); err != nil || o.Task == 0 {
			t.Fatalf("prompt %d: %+v, %v", i, o, err)
		}
	}
	o, err := h.m.Prompt(context.Background(), "triage", "one too many", false, nil)
	if !errors.Is(err, schedule.ErrQueueFull) || o.Task != 0 {
		t.Fatalf("prompt past the bound: %+v, %v", o, err)
	}
	if o := long.release(t); o.Error != "" {
		t.Fatalf("held turn: %+v", o)
	}
	h.wait("idle", "triage")
	if lines := h.promptLines(); len(lines) != schedule.MaxWaiting+1 {
		t.Fatalf("%d prompts ran, want the held one and %d queued", len(lines), schedule.MaxWaiting)
	}
}
