package par

import (
	"slices"
	"sync/atomic"
	"testing"
)

// TestForCallsEachIndexOnce: every index is called exactly once, whatever
// the width, and For returns only after all calls.
func TestForCallsEachIndexOnce(t *testing.T) {
	for _, workers := range []int{-1, 0, 1, 2, 7, 100} {
		for _, n := range []int{0, 1, 5, 64} {
			counts := make([]atomic.Int32, n)
			For(n, workers, func(i int) { counts[i].Add(1) })
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("workers=%d n=%d: index %d called %d times", workers, n, i, c)
				}
			}
		}
	}
}

// TestForOneWorkerInOrder: with one worker the calls are sequential and in
// index order (the reconciler's crash tests rely on it).
func TestForOneWorkerInOrder(t *testing.T) {
	var got []int
	For(5, 1, func(i int) { got = append(got, i) })
	if !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("order = %v", got)
	}
}

// TestForBounded: no more than workers calls run at once.
func TestForBounded(t *testing.T) {
	var running, peak atomic.Int32
	For(200, 3, func(int) {
		r := running.Add(1)
		for {
			p := peak.Load()
			if r <= p || peak.CompareAndSwap(p, r) {
				break
			}
		}
		running.Add(-1)
	})
	if p := peak.Load(); p > 3 {
		t.Fatalf("peak concurrency %d > 3", p)
	}
}
