package schedule

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// recorder is an Executor that reports each task it starts on started and
// waits for the test to release it (when gate is not nil).
type recorder struct {
	started chan Task
	gate    chan error
	mu      sync.Mutex
	active  int
	maxSeen int
}

func newRecorder(gated bool) *recorder {
	r := &recorder{started: make(chan Task, 100)}
	if gated {
		r.gate = make(chan error)
	}
	return r
}

func (r *recorder) Execute(ctx context.Context, t Task) error {
	r.mu.Lock()
	r.active++
	r.maxSeen = max(r.maxSeen, r.active)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.active--
		r.mu.Unlock()
	}()
	r.started <- t
	if r.gate == nil {
		return nil
	}
	select {
	case err := <-r.gate:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

type events struct {
	mu  sync.Mutex
	all []Event
	c   chan Event
}

func newEvents() *events { return &events{c: make(chan Event, 100)} }

func (e *events) add(ev Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
	e.c <- ev
}

// harness runs a queue and a scheduler on a fake clock.
type harness struct {
	clk    *clock.Fake
	q      *Queue
	s      *Scheduler
	exec   *recorder
	ev     *events
	cancel context.CancelFunc
	done   chan struct{}
}

var t0 = time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)

func start(t *testing.T, spec Spec, gated bool) *harness {
	t.Helper()
	h := &harness{clk: clock.NewFake(t0), exec: newRecorder(gated), ev: newEvents(), done: make(chan struct{})}
	h.q = NewQueue(h.exec, h.clk, h.ev.add)
	h.s = New(spec, h.clk, h.q, h.ev.add)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); h.q.Run(ctx) }()
	go func() { defer wg.Done(); h.s.Run(ctx) }()
	go func() { wg.Wait(); close(h.done) }()
	t.Cleanup(func() { cancel(); <-h.done })
	h.clk.WaitPending(1)
	return h
}

// advance moves the clock by d and waits until the scheduler has handled
// the tick and armed its next timer.
func (h *harness) advance(d time.Duration) {
	h.clk.Advance(d)
	h.clk.WaitPending(1)
}

func (h *harness) next(t *testing.T) Task {
	t.Helper()
	return <-h.exec.started
}

func (h *harness) waitEvent(name string) Event {
	for ev := range h.ev.c {
		if ev.Name == name {
			return ev
		}
	}
	panic("unreachable")
}

func TestHeartbeatEveryInterval(t *testing.T) {
	h := start(t, Spec{Heartbeat: &Heartbeat{Interval: 30 * time.Minute}}, false)
	if got := h.s.Next(); !got.Equal(t0.Add(30 * time.Minute)) {
		t.Fatalf("next tick %v", got)
	}
	for i := 1; i <= 3; i++ {
		h.advance(30 * time.Minute)
		task := h.next(t)
		if task.Kind != KindHeartbeat || task.Prompt != HeartbeatPrompt || !task.Due.Equal(t0.Add(time.Duration(i)*30*time.Minute)) {
			t.Fatalf("tick %d: %+v", i, task)
		}
		h.waitEvent(EventIdle)
	}
	// Nothing runs between ticks.
	h.clk.Advance(29 * time.Minute)
	select {
	case task := <-h.exec.started:
		t.Fatalf("early task %+v", task)
	default:
	}
}

// TestHeartbeatsCoalesce: while a task runs, heartbeats pile up as one.
func TestHeartbeatsCoalesce(t *testing.T) {
	h := start(t, Spec{Heartbeat: &Heartbeat{Interval: time.Minute}}, true)
	h.advance(time.Minute)
	first := h.next(t) // running, held by the gate
	for i := 0; i < 4; i++ {
		h.advance(time.Minute)
	}
	if n := h.q.Len(); n != 1 {
		t.Fatalf("%d heartbeats pending, want 1", n)
	}
	coalesced := 0
	h.ev.mu.Lock()
	for _, ev := range h.ev.all {
		if ev.Name == EventHeartbeatTick && ev.Coalesced {
			coalesced++
		}
	}
	h.ev.mu.Unlock()
	if coalesced != 3 {
		t.Errorf("%d coalesced ticks, want 3", coalesced)
	}
	h.exec.gate <- nil
	second := h.next(t)
	if second.ID == first.ID || !second.Due.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("second task %+v", second)
	}
	h.exec.gate <- nil
	h.waitEvent(EventIdle)
	if n := h.q.Len(); n != 0 {
		t.Errorf("%d still pending", n)
	}
}

// TestCronTickInZone: a cron entry fires at its time in its zone, across
// a daylight saving change, with its own prompt.
func TestCronTickInZone(t *testing.T) {
	c, err := ParseCron("0 9 * * *", "Europe/Paris")
	if err != nil {
		t.Fatal(err) // the database is embedded (time/tzdata)
	}
	c.Prompt = "morning review"
	h := start(t, Spec{Cron: []Cron{c}}, false)
	// 2026-06-01 is summer time: 09:00 in Paris is 07:00 UTC, next day.
	want := time.Date(2026, 6, 2, 7, 0, 0, 0, time.UTC)
	if got := h.s.Next(); !got.Equal(want) {
		t.Fatalf("next tick %v, want %v", got, want)
	}
	h.clk.Set(want.Add(-time.Second))
	select {
	case task := <-h.exec.started:
		t.Fatalf("early task %+v", task)
	default:
	}
	h.advance(time.Second)
	task := h.next(t)
	if task.Kind != KindCron || task.Prompt != "morning review" || task.Source != "cron[0]" || !task.Due.Equal(want) {
		t.Fatalf("task %+v", task)
	}
	if got := h.s.Next(); !got.Equal(want.Add(24 * time.Hour)) {
		t.Errorf("following tick %v", got)
	}
}

// TestMissedTicksNotReplayed: a scheduler started after a long stop
// queues nothing for the time it was down, and a clock jump inside one
// run (a suspended machine) yields one heartbeat, not one per interval.
func TestMissedTicksNotReplayed(t *testing.T) {
	h := start(t, Spec{Heartbeat: &Heartbeat{Interval: 10 * time.Minute}}, false)
	h.advance(5 * time.Hour)
	task := h.next(t)
	h.waitEvent(EventIdle)
	if !task.Due.Equal(t0.Add(10 * time.Minute)) {
		t.Errorf("due %v", task.Due)
	}
	if got, want := h.s.Next(), t0.Add(5*time.Hour+10*time.Minute); !got.Equal(want) {
		t.Errorf("next %v, want %v", got, want)
	}
	select {
	case task := <-h.exec.started:
		t.Fatalf("replayed %+v", task)
	default:
	}
	// A new scheduler (up restarted) starts counting from now.
	s2 := New(Spec{Heartbeat: &Heartbeat{Interval: 10 * time.Minute}}, h.clk, h.q, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s2.Run(ctx); close(done) }()
	h.clk.WaitPending(2)
	if got, want := s2.Next(), h.clk.Now().Add(10*time.Minute); !got.Equal(want) {
		t.Errorf("restarted scheduler next %v, want %v", got, want)
	}
	cancel()
	<-done
}

// TestQueueSerialInOrder: prompts run one at a time in push order; a
// failure is reported and does not stop the queue; tasks left when the
// queue stops get ErrStopped.
func TestQueueSerialInOrder(t *testing.T) {
	clk := clock.NewFake(t0)
	exec := newRecorder(true)
	ev := newEvents()
	q := NewQueue(exec, clk, ev.add)
	var dones []<-chan error
	for _, p := range []string{"a", "b", "c"} {
		_, done, coalesced := q.Push(Task{Kind: KindPrompt, Prompt: p})
		if coalesced {
			t.Fatal("prompts never coalesce")
		}
		dones = append(dones, done)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { q.Run(ctx); close(stopped) }()
	boom := errors.New("boom")
	for i, p := range []string{"a", "b"} {
		if task := <-exec.started; task.Prompt != p || task.ID != uint64(i+1) {
			t.Fatalf("task %d = %+v", i, task)
		}
		var err error
		if p == "b" {
			err = boom
		}
		exec.gate <- err
		if got := <-dones[i]; got != err {
			t.Errorf("%s result %v", p, got)
		}
	}
	if ev := <-ev.c; ev.Name != EventTaskDone || ev.Task.Prompt != "a" {
		t.Errorf("event %+v", ev)
	}
	if ev := <-ev.c; ev.Name != EventTaskFailed || ev.Err != boom {
		t.Errorf("event %+v", ev)
	}
	<-exec.started // c runs; d waits behind it
	_, dDone, _ := q.Push(Task{Kind: KindPrompt, Prompt: "d"})
	cancel()
	<-stopped
	if err := <-dDone; !errors.Is(err, ErrStopped) {
		t.Errorf("d: %v", err)
	}
	if err := <-dones[2]; !errors.Is(err, context.Canceled) {
		t.Errorf("c: %v", err)
	}
	if _, late, _ := q.Push(Task{Kind: KindPrompt}); !errors.Is(<-late, ErrStopped) {
		t.Error("a stopped queue took a task")
	}
	if exec.maxSeen != 1 {
		t.Errorf("%d tasks ran at once", exec.maxSeen)
	}
}

// TestBetweenWaitsForTheRunningTask: Between runs its function after the
// running task ends and before the next one starts (a config change
// restarting the agent between turns), and at once on an idle queue.
func TestBetweenWaitsForTheRunningTask(t *testing.T) {
	clk := clock.NewFake(t0)
	exec := newRecorder(true)
	q := NewQueue(exec, clk, nil)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { q.Run(ctx); close(stopped) }()
	q.Push(Task{Kind: KindPrompt, Prompt: "a"})
	q.Push(Task{Kind: KindPrompt, Prompt: "b"})
	<-exec.started // a runs
	var order []string
	between := q.Between(func() {
		_, running := q.Running()
		order = append(order, fmt.Sprintf("between running=%v pending=%d", running, q.Len()))
	})
	exec.gate <- nil // a ends
	if task := <-exec.started; task.Prompt != "b" {
		t.Fatalf("next task %+v", task)
	}
	if err := <-between; err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ";"); got != "between running=false pending=1" {
		t.Errorf("between ran as %q", got)
	}
	exec.gate <- nil // b ends
	ran := false
	if err := <-q.Between(func() { ran = true }); err != nil || !ran {
		t.Errorf("idle queue: %v %v", err, ran)
	}
	cancel()
	<-stopped
	if err := <-q.Between(func() {}); !errors.Is(err, ErrStopped) {
		t.Errorf("stopped queue: %v", err)
	}
}
