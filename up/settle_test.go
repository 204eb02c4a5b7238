package up

import (
	"context"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// TestSettledOncePerWave: a wave of process events calls Settled once,
// SettleAfter after the last; none is called while they keep coming,
// and no wait is left once it was.
func TestSettledOncePerWave(t *testing.T) {
	clk := clock.NewFake(t0)
	calls := make(chan struct{}, 10)
	s := &settler{clk: clk, ctx: context.Background(), f: func() { calls <- struct{}{} }}
	for range 1000 {
		s.poke()
		clk.Advance(time.Millisecond)
	}
	clk.WaitPending(1)
	clk.Advance(SettleAfter - 2*time.Millisecond) // 1 ms before the last poke's due time
	select {
	case <-calls:
		t.Fatal("Settled called before the wave settled")
	default:
	}
	clk.WaitPending(1) // the wait, re-armed for the last poke
	clk.Advance(time.Millisecond)
	<-calls
	s.mu.Lock()
	busy := s.busy
	s.mu.Unlock()
	if busy {
		t.Error("a wait is still running after Settled was called")
	}
	if n := clk.Pending(); n != 0 {
		t.Errorf("%d timers pending after Settled", n)
	}
	select {
	case <-calls:
		t.Error("Settled called twice for one wave")
	default:
	}
}
