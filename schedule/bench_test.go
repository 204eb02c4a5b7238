package schedule

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// BenchmarkTickToTask: the in-process cost from a heartbeat timer firing
// (fake clock) to the task reaching the Executor: scheduler wake-up, queue
// push, queue goroutine hand-off.
func BenchmarkTickToTask(b *testing.B) {
	clk := clock.NewFake(t0)
	got := make(chan Task, 1)
	q := NewQueue(ExecutorFunc(func(ctx context.Context, t Task) error { got <- t; return nil }), clk, nil)
	s := New(Spec{Heartbeat: &Heartbeat{Interval: time.Minute}}, clk, q, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go q.Run(ctx)
	go s.Run(ctx)
	clk.WaitPending(1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clk.Advance(time.Minute)
		<-got
		clk.WaitPending(1)
	}
}

// BenchmarkTickLatencyRealClock: with the wall clock and a 2 ms heartbeat,
// how late each task reaches the Executor after its due time (p50, p99,
// max as metrics; the target in docs/benchmarks.md is 100 ms).
func BenchmarkTickLatencyRealClock(b *testing.B) {
	clk := clock.Real()
	lat := make(chan time.Duration, 1)
	q := NewQueue(ExecutorFunc(func(ctx context.Context, t Task) error {
		select {
		case lat <- time.Since(t.Due):
		case <-ctx.Done():
		}
		return nil
	}), clk, nil)
	s := New(Spec{Heartbeat: &Heartbeat{Interval: 2 * time.Millisecond}}, clk, q, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go q.Run(ctx)
	go s.Run(ctx)
	all := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		all = append(all, <-lat)
	}
	b.StopTimer()
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-us")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-us")
	b.ReportMetric(float64(all[len(all)-1].Microseconds()), "max-us")
}
