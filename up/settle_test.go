package up

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/actctl/actctl/acpclient"
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

// TestReleaseMemoryBeforeStarts: a Sync that starts an agent gives the
// memory back before the first start (the apply's garbage, where the
// agents' buffers would be laid and zeroed), and a Sync that starts
// none does not.
func TestReleaseMemoryBeforeStarts(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, s)
	}
	launched := make(chan struct{}, 10)
	m := New(Options{Clock: clock.NewFake(t0), ReleaseMemory: func() { note("release") },
		Launch: func(context.Context, string, acpclient.Observer) (*acpclient.Client, error) {
			note("launch")
			launched <- struct{}{}
			return nil, errors.New("no backend here")
		}})
	defer m.Shutdown()
	s := service(t, "svc")
	m.Sync([]Spec{s})
	<-launched
	m.Sync([]Spec{s}) // holds it already: nothing starts
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"release", "launch"}; !slices.Equal(calls, want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
}

// TestSettledHook: Options.Settled alone makes a manager call it once
// starts and stops have settled, before ReleaseMemory when both are set
// (which then gives back the garbage of what Settled did).
func TestSettledHook(t *testing.T) {
	clk := clock.NewFake(t0)
	calls := make(chan string, 4)
	m := New(Options{Clock: clk, ReleaseMemory: func() { calls <- "release" }, Settled: func() { calls <- "settled" }})
	defer m.Shutdown()
	m.settled.poke()
	clk.WaitPending(1)
	clk.Advance(SettleAfter)
	if got := []string{<-calls, <-calls}; !slices.Equal(got, []string{"settled", "release"}) {
		t.Errorf("calls %v", got)
	}
	only := New(Options{Clock: clk, Settled: func() { calls <- "settled" }})
	defer only.Shutdown()
	if only.settled == nil {
		t.Fatal("no settler with Settled alone")
	}
}

// TestReleaseLater: a burst of ReleaseLater calls gives memory back
// once, SettleAfter after the last, and never calls Settled (a page view
// is no start or stop); without ReleaseMemory it does nothing.
func TestReleaseLater(t *testing.T) {
	clk := clock.NewFake(t0)
	calls := make(chan string, 4)
	m := New(Options{Clock: clk, ReleaseMemory: func() { calls <- "release" }, Settled: func() { calls <- "settled" }})
	defer m.Shutdown()
	m.ReleaseLater()
	clk.WaitPending(1)
	clk.Advance(SettleAfter / 2)
	m.ReleaseLater() // moves it on
	clk.Advance(SettleAfter / 2)
	clk.WaitPending(1)
	select {
	case c := <-calls:
		t.Fatalf("%s before SettleAfter from the last call", c)
	default:
	}
	clk.Advance(SettleAfter / 2)
	if c := <-calls; c != "release" {
		t.Fatalf("called %s", c)
	}
	select {
	case c := <-calls:
		t.Errorf("then %s", c)
	default:
	}
	New(Options{Clock: clk}).ReleaseLater() // no ReleaseMemory: nothing to call, no panic
}
