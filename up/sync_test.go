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
