package schedule

import (
	"context"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// TestCarryCoalescesMissedTicks: a scheduler that carries on from one
// that ended (an employee restarted after a crash) fires each entry that
// came due while neither ran once, at once, however many ticks it missed,
// then keeps the entry's times; an entry not yet due keeps its time.
func TestCarryCoalescesMissedTicks(t *testing.T) {
	c, err := ParseCron("0 * * * *", "UTC") // hourly
	if err != nil {
		t.Fatal(err)
	}
	c.Prompt = "hourly"
	spec := Spec{Heartbeat: &Heartbeat{Interval: 10 * time.Minute}, Cron: []Cron{c}}
	clk, exec, ev := clock.NewFake(t0), newRecorder(false), newEvents()
	q := NewQueue(exec, clk, ev.add)
	ctx, cancel := context.WithCancel(context.Background())
	qdone := make(chan struct{})
	go func() { defer close(qdone); _ = q.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-qdone })

	first := New(spec, clk, q, ev.add)
	fctx, crash := context.WithCancel(ctx)
	fdone := make(chan struct{})
	go func() { defer close(fdone); _ = first.Run(fctx) }()
	clk.WaitPending(1)
	crash() // the process crashed: the schedule ends
	<-fdone
	clk.Advance(35 * time.Minute) // three heartbeats missed, no hour yet

	s := New(spec, clk, q, ev.add)
	s.Carry(first)
	go func() { _ = s.Run(ctx) }()
	task := <-exec.started
	if task.Kind != KindHeartbeat || !task.Due.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("task %+v, want the heartbeat due at the first missed tick", task)
	}
	clk.WaitPending(1)
	if got, want := s.Next(), t0.Add(40*time.Minute); !got.Equal(want) {
		t.Fatalf("next tick %v, want %v (the heartbeat's grid, the hour not yet due)", got, want)
	}
	// The ticks are published before the timer is armed: all are in.
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ticks := 0
	for _, e := range ev.all {
		if e.Name == EventHeartbeatTick || e.Name == EventCronTick {
			ticks++
		}
	}
	if ticks != 1 {
		t.Fatalf("%d ticks for the missed ones, want 1", ticks)
	}
}
