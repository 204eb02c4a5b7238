package up

import (
	"context"
	"testing"
	"time"

	"github.com/actctl/actctl/schedule"
)

// TestSyncRemovesAndReplaces: an agent removed from the config is
// stopped; one whose launch mode changed is replaced by a new one of the
// new shape (here a service becoming an employee, which gets a queue).
func TestSyncRemovesAndReplaces(t *testing.T) {
	h := newHarness(t, nil)
	svc, gone := service(t, "api"), service(t, "old")
	h.m.Sync([]Spec{svc})
	h.wait("process:start", "api")
	h.m.Sync([]Spec{svc, gone})
	h.wait("process:start", "old")
	h.m.Sync([]Spec{svc})
	h.wait("process:stop", "old")
	if _, err := h.m.Prompt(context.Background(), "old", "hello", true, nil); err == nil {
		t.Error("a removed agent still takes prompts")
	}
	emp := employee(t, "api", schedule.Spec{})
	h.m.Sync([]Spec{emp})
	h.wait("process:stop", "api")
	h.wait("process:start", "api")
	o, err := h.m.Prompt(context.Background(), "api", "hello", false, nil)
	if err != nil || !o.Queued {
		t.Fatalf("the replaced agent has no queue: %+v %v", o, err)
	}
	if st := h.m.Status(); len(st) != 1 || st[0].LaunchMode != "acp-background" {
		t.Fatalf("status %+v", st)
	}
}

// TestTaskIDsContinue: a new up numbers its tasks after the last one
// logged, so that an id names one task across restarts.
func TestTaskIDsContinue(t *testing.T) {
	emp := employee(t, "worker", schedule.Spec{})
	for _, want := range []uint64{1, 2} {
		h := newHarness(t, nil)
		h.m.Sync([]Spec{emp})
		h.wait("process:start", "worker")
		o, err := h.m.Prompt(context.Background(), "worker", "hello", true, nil)
		if err != nil || o.Task != want {
			t.Fatalf("task %d: %+v %v", want, o, err)
		}
		h.m.Shutdown()
	}
	svc := service(t, "api")
	svc.LogsDir = emp.LogsDir // a service's prompts continue the same way
	h := newHarness(t, nil)
	h.m.Sync([]Spec{svc})
	h.wait("process:start", "api")
	if o, err := h.m.Prompt(context.Background(), "api", "hello", true, nil); err != nil || o.Task != 3 {
		t.Fatalf("service prompt: %+v %v", o, err)
	}
}

// TestConfigChangeReplacesScheduleTimer: once Sync returns, the schedule
// of the old config holds no timer any more: the next timer is the new
// schedule's. The old scheduler stopped its timer later, on its own
// goroutine: a test that waited for a pending timer and advanced the
// clock could fire the old one, and the new schedule never ticked.
func TestConfigChangeReplacesScheduleTimer(t *testing.T) {
	h := newHarness(t, nil)
	s := employee(t, "hb", schedule.Spec{Heartbeat: &schedule.Heartbeat{Interval: 10 * time.Minute, Seed: "x"}})
	h.m.Sync([]Spec{s})
	h.wait("process:start", "hb")
	h.clk.WaitPending(1)
	h.clk.Advance(time.Minute) // the new schedule is due a minute after the old
	s.Digest = "2"
	h.m.Sync([]Spec{s})
	if d, ok := h.clk.NextDue(); ok && d.Equal(t0.Add(10*time.Minute)) {
		t.Fatal("after the config change the old schedule's timer is still pending")
	}
	h.wait("process:start", "hb") // the restart's grace timer is gone
	h.clk.WaitPending(1)
	if n := h.clk.Pending(); n != 1 {
		t.Fatalf("%d timers pending, want the new schedule's only", n)
	}
	if d, _ := h.clk.NextDue(); !d.Equal(t0.Add(11 * time.Minute)) {
		t.Fatalf("next heartbeat due %v, want 09:11 (the new schedule)", d)
	}
}
