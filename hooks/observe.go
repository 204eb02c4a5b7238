package hooks

import (
	"sync"
	"sync/atomic"
)

// Observation is what an observer of a Bus sees: an event as it is
// published, or (Hook set) the outcome of one hook it ran.
type Observation struct {
	Event Event
	// Hook is set for a hook run's outcome.
	Hook *Result
}

// Observer receives a bus's observations on C until Close. It never
// slows the publisher: when C is full an observation is dropped and
// counted (Dropped).
type Observer struct {
	C       <-chan Observation
	c       chan Observation
	dropped atomic.Uint64
	obs     *observers
}

// Dropped is how many observations did not fit in C.
func (o *Observer) Dropped() uint64 { return o.dropped.Load() }

// Close stops the observations; C is not closed (a send may race).
func (o *Observer) Close() { o.obs.remove(o) }

// observers are a bus's observers (the dashboard's live pages).
type observers struct {
	mu   sync.RWMutex
	list []*Observer
}

// Observe returns an observer of b's events and hook outcomes whose
// channel holds at most n observations (n < 1: 1).
func (b *Bus) Observe(n int) *Observer {
	if n < 1 {
		n = 1
	}
	o := &Observer{c: make(chan Observation, n), obs: &b.obs}
	o.C = o.c
	b.obs.mu.Lock()
	b.obs.list = append(b.obs.list, o)
	b.obs.mu.Unlock()
	return o
}

func (s *observers) remove(o *Observer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.list {
		if x == o {
			s.list = append(s.list[:i:i], s.list[i+1:]...)
			return
		}
	}
}

// send offers ob to every observer without waiting.
func (s *observers) send(ob Observation) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, o := range s.list {
		select {
		case o.c <- ob:
		default:
			o.dropped.Add(1)
		}
	}
}
