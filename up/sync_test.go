package up

import (
	"context"
	"testing"

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
