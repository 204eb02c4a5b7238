//go:build linux

package up

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/clock"
	"github.com/actctl/actctl/schedule"
)

// BenchmarkUpThreads starts a Manager's agents (half services, half
// employees whose heartbeat, an hour, is never due), each a process of
// the test agent, and reports once all are started: threads, this
// process's OS threads (Threads: in /proc/self/status; docs/runtime.md,
// "Limits": independent of the number of agents); KB-rss/agent, the
// growth of this process's resident memory per agent; fds/agent, its
// open file descriptors per agent. Sizes: 200 and 1000 agents. Run one
// size once per process (-count 1): the runtime keeps the threads it
// made, and RSS is the process's (docs/benchmarks.md, "Threads at scale").
//
//	go test ./up/ -run '^$' -bench 'UpThreads/agents=200' -benchtime 1x
func BenchmarkUpThreads(b *testing.B) {
	for _, n := range []int{200, 1000} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			for range b.N {
				upThreads(b, n)
			}
		})
	}
}

// upThreads runs n agents and reports BenchmarkUpThreads's figures.
func upThreads(b *testing.B, n int) {
	ev := newEventLog()
	m := teamManager(b, clock.Real(), ev)
	var specs []Spec
	for i := range n {
		if i%2 == 0 {
			specs = append(specs, service(b, fmt.Sprintf("svc-%d", i)))
			continue
		}
		specs = append(specs, employee(b, fmt.Sprintf("emp-%d", i), schedule.Spec{Heartbeat: &schedule.Heartbeat{Interval: time.Hour, Seed: strconv.Itoa(i)}}))
	}
	rss0, fds0 := rssKB(b), openFDs(b)
	m.Sync(specs)
	ev.waitCount(b, "process:start", n, 10*time.Minute)
	b.ReportMetric(float64(statusField(b, "Threads:")), "threads")
	b.ReportMetric(float64(rssKB(b)-rss0)/float64(n), "KB-rss/agent")
	b.ReportMetric(float64(openFDs(b)-fds0)/float64(n), "fds/agent")
}

// openFDs is the number of this process's open file descriptors.
func openFDs(b *testing.B) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		b.Fatal(err)
	}
	return len(ents)
}

// statusField is a numeric field of /proc/self/status (in kB where it
// has that unit).
func statusField(b *testing.B, name string) int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, name); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatalf("no %s in /proc/self/status", name)
	return 0
}
