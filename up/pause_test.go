package up

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/tasklog"
)

// waitLog returns the first log line of up containing want, skipping
// the lines before it.
func (h *harness) waitLog(want string) string {
	h.t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case l := <-h.logs:
			if strings.Contains(l, want) {
				return l
			}
		case <-deadline.C:
			h.t.Fatalf("no log line %q", want)
		}
	}
}

// TestStoppedEmployeePausesSchedule: a stopped employee's schedule is
// paused (one log line, no next tick, no timer), so no tick writes a
// failed task; a start resumes it from then (issue #26 item 3).
func TestStoppedEmployeePausesSchedule(t *testing.T) {
	h := newHarness(t, nil)
	s := employee(t, "triage", schedule.Spec{Heartbeat: &schedule.Heartbeat{Interval: 10 * time.Minute, Seed: "x"}})
	h.m.Sync([]Spec{s})
	h.wait("process:start", "triage")
	h.clk.WaitPending(1)
	ctx := context.Background()
	if _, err := h.m.Stop(ctx, "triage"); err != nil {
		t.Fatal(err)
	}
	h.waitLog("triage: schedule paused: the agent is stopped")
	assertPaused(t, h, "triage")
	h.clk.Advance(time.Hour) // nothing is due: no tick, no failed task

	if _, err := h.m.Start(ctx, "triage"); err != nil {
		t.Fatal(err)
	}
	h.waitLog("triage: schedule resumed")
	h.clk.WaitPending(1)
	st := waitStatus(t, h.m, "triage", func(a AgentStatus) bool { return a.NextTick != nil })
	if want := h.clk.Now().Add(10 * time.Minute); !st.NextTick.Equal(want) {
		t.Fatalf("next tick %v, want %v (from the start)", st.NextTick, want)
	}
	h.clk.Advance(10 * time.Minute)
	h.wait("heartbeat:tick", "triage")
	h.wait("task:done", "triage")
	for _, ev := range h.seenOf("triage") {
		if ev.Name == "task:failed" {
			t.Errorf("task:failed while stopped: %v", ev.Data)
		}
	}
	sums, err := tasklog.Summaries(s.LogsDir)
	if err != nil || len(sums) != 1 || sums[0].Error != "" {
		t.Fatalf("summaries = %+v, %v; want the one task after the start", sums, err)
	}
}

// TestDeadEmployeePausesSchedule: an employee whose process is down for
// good, crashed (restart "never") or fatal (restart "on-failure", the
// default, after its crash loop), ticks no more.
func TestDeadEmployeePausesSchedule(t *testing.T) {
	for _, restart := range []string{"never", "on-failure"} {
		t.Run(restart, func(t *testing.T) {
			h := newHarness(t, map[string]string{"ACTCTL_TEST_CRASH_AFTER": "0s"})
			s := employee(t, "triage", schedule.Spec{Heartbeat: &schedule.Heartbeat{Interval: 10 * time.Minute, Seed: "x"}})
			s.Restart = restart
			want := "crashed"
			if restart == "on-failure" {
				want = "fatal"
			}
			h.m.Sync([]Spec{s})
			for i := 0; ; i++ {
				ev := h.wait("process:crash", "triage")
				if ev.Data["state"] == want {
					break
				}
				if i > 10 {
					t.Fatalf("never %s", want)
				}
				h.clk.WaitPending(1) // the backoff (the schedule waits for the restart)
				d, _ := h.clk.NextDue()
				h.clk.Set(d)
			}
			h.waitLog("triage: schedule paused: the agent is " + want)
			assertPaused(t, h, "triage")
			if sums, _ := tasklog.Summaries(s.LogsDir); len(sums) != 0 {
				t.Fatalf("summaries %+v, want none", sums)
			}
		})
	}
}

// assertPaused checks that agent shows no next tick and that no timer
// is left to fire one.
func assertPaused(t *testing.T, h *harness, agent string) {
	t.Helper()
	for _, st := range h.m.Status() {
		if st.Name == agent && st.NextTick != nil {
			t.Fatalf("status %+v: a next tick while paused", st)
		}
	}
	if n := h.clk.Pending(); n != 0 {
		t.Fatalf("%d timers pending while paused, want none", n)
	}
}

// TestRestartKeepsSchedule: the stop of a restart (a person's, a config
// change's) does not pause the schedule: its next tick stays.
func TestRestartKeepsSchedule(t *testing.T) {
	h := newHarness(t, nil)
	s := employee(t, "triage", schedule.Spec{Heartbeat: &schedule.Heartbeat{Interval: 10 * time.Minute, Seed: "x"}})
	h.m.Sync([]Spec{s})
	h.wait("process:start", "triage")
	h.clk.WaitPending(1)
	if _, err := h.m.Restart(context.Background(), "triage"); err != nil {
		t.Fatal(err)
	}
	h.wait("process:stop", "triage")
	h.wait("process:start", "triage")
	for len(h.logs) > 0 {
		if l := <-h.logs; strings.Contains(l, "schedule") {
			t.Errorf("restart logged %q", l)
		}
	}
	st := waitStatus(t, h.m, "triage", func(a AgentStatus) bool { return a.State == "running" })
	if want := t0.Add(10 * time.Minute); st.NextTick == nil || !st.NextTick.Equal(want) {
		t.Fatalf("next tick %v after a restart, want %v", st.NextTick, want)
	}
}
