package up

import (
	"context"
	"sync"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// SettleAfter is how long no process may start or stop before
// Options.ReleaseMemory is called (docs/runtime.md, "Limits").
const SettleAfter = 5 * time.Second

// settler calls f once process starts and stops have settled: none for
// SettleAfter. A wave of a thousand starts calls it once, after the
// last; no goroutine waits while nothing starts or stops.
type settler struct {
	clk  clock.Clock
	ctx  context.Context // ends the wait (Shutdown)
	f    func()
	mu   sync.Mutex
	due  time.Time // when f is due; zero: no wait runs
	busy bool      // a wait runs
}

// poke moves f's call to SettleAfter from now.
func (s *settler) poke() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.due = s.clk.Now().Add(SettleAfter)
	if !s.busy {
		s.busy = true
		go s.wait()
	}
}

// wait waits until the latest due time has passed, then calls f.
func (s *settler) wait() {
	for {
		s.mu.Lock()
		d := s.due.Sub(s.clk.Now())
		if d <= 0 {
			s.busy = false
			s.mu.Unlock()
			s.f()
			return
		}
		s.mu.Unlock()
		t := s.clk.NewTimer(d)
		select {
		case <-s.ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}
