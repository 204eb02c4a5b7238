package up

import (
	"context"
	"strings"
	"testing"

	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/tasklog"
)

// TestCancelTask: a task waiting in an employee's queue is taken out and
// logged as never run; the running one's turn is cancelled (the process
// goes on and takes the next task); a task that neither waits nor runs is
// refused with a reason.
func TestCancelTask(t *testing.T) {
	h := newHarness(t, nil)
	s := employee(t, "worker", schedule.Spec{})
	h.m.Sync([]Spec{s})
	pid := h.wait("process:start", "worker").Data["pid"]
	ctx := context.Background()
	first, err := h.m.Prompt(ctx, "worker", "stream", false, nil) // runs until cancelled
	if err != nil {
		t.Fatal(err)
	}
	second, err := h.m.Prompt(ctx, "worker", "hello", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, h.m, "worker", func(a AgentStatus) bool { return a.Running == first.Task && a.Queued == 1 })
	if err := h.m.CancelTask("worker", second.Task); err != nil {
		t.Fatalf("cancel the waiting task: %v", err)
	}
	if err := h.m.CancelTask("worker", first.Task); err != nil {
		t.Fatalf("cancel the running task: %v", err)
	}
	ev := h.wait("task:failed", "worker")
	if e, _ := ev.Data["error"].(string); ev.Data["task"] != first.Task || !strings.Contains(e, "cancelled by the user") {
		t.Fatalf("task:failed of the running task: %+v", ev.Data)
	}
	if o, err := h.m.Prompt(ctx, "worker", "hello", true, nil); err != nil || o.StopReason != "end_turn" {
		t.Fatalf("the next task: %+v %v", o, err)
	}
	if st, _ := h.m.StatusOf("worker"); st.Pid == 0 || h.seenCount("process:start", "worker") != 1 {
		t.Errorf("the process did not go on: pid %d (was %v)", st.Pid, pid)
	}
	sums, err := tasklog.Summaries(s.LogsDir)
	if err != nil || len(sums) != 3 {
		t.Fatalf("summaries: %+v %v", sums, err)
	}
	for _, sum := range sums[:2] {
		if !strings.Contains(sum.Error, "cancelled by the user") {
			t.Errorf("task %d logged as %q", sum.Task, sum.Error)
		}
	}
	if err := h.m.CancelTask("worker", first.Task); err == nil || !strings.Contains(err.Error(), "no task") {
		t.Errorf("cancel an ended task: %v", err)
	}
}

// seenCount counts the events name of agent seen so far.
func (h *harness) seenCount(name, agent string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, ev := range h.seen {
		if ev.Name == name && ev.Agent == agent {
			n++
		}
	}
	return n
}
