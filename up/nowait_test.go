package up

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/actctl/actctl/schedule"
)

// TestPromptNoWaitDropsSink: a prompt that is not waited for streams
// nothing to the caller's sink, for an employee and a service alike. The
// sink must be dropped before the task is queued: an idle employee's
// queue starts the task at once, and the turn's output read it meanwhile
// (a data race `go test -race` reported in TestPromptQueuedBehindRunningTask).
func TestPromptNoWaitDropsSink(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{employee(t, "worker", schedule.Spec{}), service(t, "api")})
	h.wait("process:start", "worker")
	h.wait("process:start", "api")
	var calls atomic.Int32
	sink := func(string, any) { calls.Add(1) }
	for _, agent := range []string{"worker", "api"} {
		o, err := h.m.Prompt(context.Background(), agent, "hello", false, sink)
		if err != nil || !o.Queued {
			t.Fatalf("prompt %s: %+v %v", agent, o, err)
		}
	}
	h.wait("task:done", "worker")
	h.wait("session:end", "api")
	if n := calls.Load(); n != 0 {
		t.Fatalf("the sink of prompts not waited for got %d calls", n)
	}
}
