package schedule

import (
	"fmt"
	"slices"
	"time"
)

// Pending returns the tasks waiting, in the order they will run (the
// running one not included): the dashboard's queue (docs/dashboard.md).
func (q *Queue) Pending() []Task {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]Task, len(q.pending))
	for i, e := range q.pending {
		out[i] = e.task
	}
	return out
}

// Tick is one tick to come: when, and which entry ("heartbeat",
// "cron[0]", ...).
type Tick struct {
	Time   time.Time
	Source string
}

// Upcoming returns the next n ticks of every entry, in time order, from
// the ticks the running schedule waits for (none before Run started).
func (s *Scheduler) Upcoming(n int) []Tick {
	s.mu.Lock()
	next := slices.Clone(s.next)
	s.mu.Unlock()
	return upcoming(s.spec, next, n)
}

// upcoming is Upcoming of spec whose entries are next due at next
// (index 0 the heartbeat, 1+i Cron[i]; zero: never).
func upcoming(spec Spec, next []time.Time, n int) []Tick {
	var out []Tick
	for len(out) < n {
		i := -1
		for j, t := range next {
			if !t.IsZero() && (i < 0 || t.Before(next[i])) {
				i = j
			}
		}
		if i < 0 {
			break
		}
		t := next[i]
		if i == 0 {
			out = append(out, Tick{Time: t, Source: "heartbeat"})
			next[0] = t.Add(spec.Heartbeat.Interval)
			continue
		}
		out = append(out, Tick{Time: t, Source: fmt.Sprintf("cron[%d]", i-1)})
		next[i] = spec.Cron[i-1].Next(t)
	}
	return out
}
