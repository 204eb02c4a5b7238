package up

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/tasklog"
)

// TestTurnDeadline: an employee's turn that never ends (the agent never
// answers session/prompt and ignores session/cancel) is shown as stalled
// after stallAfter (status, task:stalled), and at turnTimeout (the
// defaults: 10m, 30m) it is cancelled and, the grace later, its process
// ended; the task fails saying so (its waiter, task:failed, the task
// log), the supervisor restarts the process (on-failure), and the prompt
// queued behind it runs on the new one. On the old code the queue
// stopped for good and the prompt behind it waited forever.
func TestTurnDeadline(t *testing.T) {
	h := newHarness(t, nil)
	s := employee(t, "worker", schedule.Spec{})
	s.TurnTimeout, s.StallAfter = 0, 0 // the defaults
	h.m.Sync([]Spec{s})
	pid := h.wait("process:start", "worker").Data["pid"]
	ctx := context.Background()
	first := make(chan Outcome, 1)
	go func() {
		o, _ := h.m.Prompt(ctx, "worker", "silent", true, nil)
		first <- o
	}()
	waitStatus(t, h.m, "worker", func(a AgentStatus) bool { return a.Turn != nil && a.Turn.Task == 1 })
	second := make(chan Outcome, 1)
	go func() {
		o, _ := h.m.Prompt(ctx, "worker", "hello", true, nil)
		second <- o
	}()
	waitStatus(t, h.m, "worker", func(a AgentStatus) bool { return a.Queued == 1 })

	pending(t, h.clk, 1) // the turn's watchdog
	h.clk.Advance(10 * time.Minute)
	if ev := h.wait("task:stalled", "worker"); ev.Data["task"] != uint64(1) || ev.Data["source"] != SourceCLI {
		t.Errorf("task:stalled %v", ev.Data)
	}
	st := waitStatus(t, h.m, "worker", func(a AgentStatus) bool { return a.Turn != nil && a.Turn.Stalled })
	if st.Turn.ElapsedMs != (10*time.Minute).Milliseconds() || !st.Turn.Deadline.Equal(t0.Add(30*time.Minute)) || st.Queued != 1 {
		t.Errorf("status of the stalled turn: %+v, turn %+v", st, *st.Turn)
	}

	pending(t, h.clk, 1)
	h.clk.Advance(20 * time.Minute) // the deadline: cancelled
	pending(t, h.clk, 1)            // the grace (5s here)
	h.clk.Advance(5 * time.Second)  // the process is ended
	const want = "ended by its deadline: the turn did not end within 30m0s (turnTimeout)"
	if o := <-first; !strings.Contains(o.Error, want) {
		t.Errorf("the stuck prompt: %+v, want %q", o, want)
	}
	if ev := h.wait("task:failed", "worker"); !strings.Contains(ev.Data["error"].(string), want) {
		t.Errorf("task:failed %v", ev.Data)
	}
	if ev := h.wait("process:crash", "worker"); ev.Data["state"] != "backoff" || ev.Data["pid"] != pid {
		t.Errorf("process:crash %v", ev.Data)
	}
	pending(t, h.clk, 1) // the backoff
	h.clk.Advance(time.Second)
	if ev := h.wait("process:restart", "worker"); ev.Data["restarts"] != 1 {
		t.Errorf("process:restart %v", ev.Data)
	}
	if o := <-second; o.Error != "" || o.StopReason != "end_turn" {
		t.Errorf("the prompt queued behind it: %+v", o)
	}
	sums, err := tasklog.Summaries(s.LogsDir)
	if err != nil || len(sums) != 2 || !strings.Contains(sums[0].Error, want) || sums[1].Error != "" {
		t.Fatalf("summaries %+v, %v", sums, err)
	}
}

// TestEmployeeRestartedAfterCrash: an employee (restart on-failure, the
// default) whose process is killed is restarted after the backoff, as a
// service is; its schedule waits meanwhile, and the heartbeats missed
// while it was down run once after the restart, then keep their times.
// On the old code it stayed crashed ("schedule paused").
func TestEmployeeRestartedAfterCrash(t *testing.T) {
	h := newHarness(t, nil)
	s := employee(t, "triage", schedule.Spec{Heartbeat: &schedule.Heartbeat{Interval: 10 * time.Minute, Seed: "x"}})
	h.m.Sync([]Spec{s})
	pid := h.wait("process:start", "triage").Data["pid"].(int)
	pending(t, h.clk, 1) // the schedule
	if err := kill(pid); err != nil {
		t.Fatal(err)
	}
	if ev := h.wait("process:crash", "triage"); ev.Data["state"] != "backoff" || ev.Data["backoff"] != "1s" {
		t.Fatalf("process:crash %v", ev.Data)
	}
	h.waitLog("triage: schedule paused: the agent is restarting")
	h.clk.Advance(35 * time.Minute) // three heartbeats due while down; the backoff too
	h.wait("process:restart", "triage")
	if ev := h.wait("heartbeat:tick", "triage"); ev.Data["task"] != uint64(1) {
		t.Errorf("heartbeat:tick %v", ev.Data)
	}
	h.wait("task:done", "triage")
	st := waitStatus(t, h.m, "triage", func(a AgentStatus) bool { return a.NextTick != nil && a.Restarts == 1 })
	if want := t0.Add(40 * time.Minute); !st.NextTick.Equal(want) {
		t.Errorf("next tick %v, want %v", st.NextTick, want)
	}
	h.drain()
	n := 0
	for _, ev := range h.seenOf("triage") {
		if ev.Name == "heartbeat:tick" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d heartbeat ticks for the three missed, want 1", n)
	}
}

// TestRestartNeverStaysCrashed: restart "never" leaves a killed employee
// crashed, its schedule paused.
func TestRestartNeverStaysCrashed(t *testing.T) {
	h := newHarness(t, nil)
	s := employee(t, "triage", schedule.Spec{Heartbeat: &schedule.Heartbeat{Interval: 10 * time.Minute, Seed: "x"}})
	s.Restart = "never"
	h.m.Sync([]Spec{s})
	pid := h.wait("process:start", "triage").Data["pid"].(int)
	if err := kill(pid); err != nil {
		t.Fatal(err)
	}
	if ev := h.wait("process:crash", "triage"); ev.Data["state"] != "crashed" {
		t.Fatalf("process:crash %v", ev.Data)
	}
	h.waitLog("triage: schedule paused: the agent is crashed")
	assertPaused(t, h, "triage")
}
