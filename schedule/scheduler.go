package schedule

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// Scheduler queues an employee's heartbeat and cron tasks when they come
// due. It keeps no record between runs: on Run it computes every entry's
// next time after now, so ticks missed while it was not running are not
// replayed, and a tick that finds its source's task still waiting in the
// queue coalesces with it.
type Scheduler struct {
	spec   Spec
	clock  clock.Clock
	queue  *Queue
	notify func(Event)

	mu   sync.Mutex
	next []time.Time // index 0: heartbeat (zero if none); 1+i: Cron[i]
	// from, when set by Carry, are the next times Run starts from.
	from []time.Time
}

// New returns a scheduler pushing spec's tasks onto q. notify, if not nil,
// receives heartbeat:tick and cron:tick events, each before its task
// starts.
func New(spec Spec, clk clock.Clock, q *Queue, notify func(Event)) *Scheduler {
	if notify == nil {
		notify = func(Event) {}
	}
	return &Scheduler{spec: spec, clock: clk, queue: q, notify: notify}
}

// Next returns the time of the next tick of any entry (zero when there is
// none or Run has not started): what `actctl status` shows.
func (s *Scheduler) Next() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return earliest(s.next)
}

// Carry makes Run go on from where prev stopped (prev has ended, and
// had the same spec): each entry's next tick is prev's, so an entry that
// came due while neither ran fires once when Run starts, however many of
// its ticks were missed; the others keep their times. What up does when
// an employee's process is restarted after a crash (docs/runtime.md,
// "Supervision"). Without Carry (or when prev's entries differ), Run
// computes every tick from now.
func (s *Scheduler) Carry(prev *Scheduler) {
	prev.mu.Lock()
	from := append([]time.Time(nil), prev.next...)
	prev.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(from) == 1+len(s.spec.Cron) && (from[0].IsZero() == (s.spec.Heartbeat == nil)) {
		s.from = from
	}
}

// Run queues ticks until ctx is done.
func (s *Scheduler) Run(ctx context.Context) error {
	next := s.first(s.clock.Now())
	for {
		s.setNext(next)
		due := earliest(next)
		if due.IsZero() {
			<-ctx.Done()
			return ctx.Err()
		}
		t := s.clock.NewTimer(due.Sub(s.clock.Now()))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C():
		}
		s.fire(next, s.clock.Now())
	}
}

// fire queues a task for every entry due by now and moves each past now.
func (s *Scheduler) fire(next []time.Time, now time.Time) {
	if hb := s.spec.Heartbeat; hb != nil && !next[0].After(now) {
		s.tick(EventHeartbeatTick, Task{Kind: KindHeartbeat, Prompt: HeartbeatPrompt, Source: "heartbeat", Due: next[0]})
		// Skip whole intervals that passed unseen (a suspended machine):
		// they are not replayed.
		missed := now.Sub(next[0]) / hb.Interval
		next[0] = next[0].Add((missed + 1) * hb.Interval)
	}
	for i, c := range s.spec.Cron {
		if next[1+i].IsZero() || next[1+i].After(now) {
			continue
		}
		s.tick(EventCronTick, Task{Kind: KindCron, Prompt: c.Prompt, Source: fmt.Sprintf("cron[%d]", i), Due: next[1+i]})
		next[1+i] = c.Next(now)
	}
}

// tick queues t and reports the tick before the task may start, so that
// the tick's event comes before every event of its task (task:done, a
// hook's prompt reaching the agent).
func (s *Scheduler) tick(name string, t Task) {
	queued, coalesced, release := s.queue.pushHeld(t)
	defer release()
	s.notify(Event{Name: name, Task: queued, Coalesced: coalesced})
}

// first is each entry's first tick: from Carry's, else the next after
// now.
func (s *Scheduler) first(now time.Time) []time.Time {
	s.mu.Lock()
	from := s.from
	s.mu.Unlock()
	if from != nil {
		return from
	}
	next := make([]time.Time, 1+len(s.spec.Cron))
	if hb := s.spec.Heartbeat; hb != nil {
		next[0] = now.Add(hb.Interval)
	}
	for i, c := range s.spec.Cron {
		next[1+i] = c.Next(now)
	}
	return next
}

func (s *Scheduler) setNext(next []time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = append(s.next[:0], next...)
}

func earliest(ts []time.Time) time.Time {
	var min time.Time
	for _, t := range ts {
		if !t.IsZero() && (min.IsZero() || t.Before(min)) {
			min = t
		}
	}
	return min
}
