package up

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/actctl/actctl/schedule"
)

func reportP50(b *testing.B, unit string, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, unit+"(p50)")
	b.ReportMetric(float64(ds[len(ds)-1].Microseconds())/1000, unit+"(max)")
}

// BenchmarkTickToTaskDone: from a heartbeat tick (the fake clock moved)
// to the end of the task it queued, on a warm employee whose agent
// answers at once: an upper bound of tick-to-task latency (docs/benchmarks.md).
func BenchmarkTickToTaskDone(b *testing.B) {
	h := newHarness(b, nil)
	s := employee(b, "bench", schedule.Spec{Heartbeat: &schedule.Heartbeat{Interval: time.Minute, Seed: "x"}})
	h.m.Sync([]Spec{s})
	h.wait("process:start", "bench")
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		h.clk.WaitPending(1)
		start := time.Now()
		h.clk.Advance(time.Minute)
		h.wait("task:done", "bench")
		ds = append(ds, time.Since(start))
	}
	reportP50(b, "ms-tick-to-done", ds)
}

// BenchmarkRestartAfterKill: from SIGKILL of a service to its new process
// being up (initialized, session open), without the 1 s backoff, which the
// fake clock skips: restart latency = backoff + this.
func BenchmarkRestartAfterKill(b *testing.B) {
	h := newHarness(b, nil)
	h.m.Sync([]Spec{service(b, "svc")})
	pid := h.wait("process:start", "svc").Data["pid"].(int)
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := kill(pid); err != nil {
			b.Fatal(err)
		}
		h.wait("process:crash", "svc")
		h.clk.WaitPending(1)
		d, _ := h.clk.NextDue()
		h.clk.Set(d)
		ev := h.wait("process:start", "svc")
		ds = append(ds, time.Since(start))
		pid = ev.Data["pid"].(int)
		// The restart count would reach fatal only for quick failures;
		// move past the failure window so every kill is a fresh crash.
		h.clk.Advance(2 * time.Minute)
	}
	reportP50(b, "ms-kill-to-up", ds)
}

// BenchmarkPromptWarmService: one prompt to a warm service in a new
// session, in process (no actctl start, no backend start).
func BenchmarkPromptWarmService(b *testing.B) {
	h := newHarness(b, nil)
	h.m.Sync([]Spec{service(b, "svc")})
	h.wait("process:start", "svc")
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := h.m.Prompt(context.Background(), "svc", "hello", true, nil); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	reportP50(b, "ms-prompt", ds)
}
