//go:build linux

package up

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/internal/acptestagent"
	"github.com/actctl/actctl/internal/clock"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/schedule"
)

// Team size of the runtime at scale (docs/benchmarks.md; issue #21 item 7).
const (
	teamEmployees = 200
	teamServices  = 20
	// teamIdle is the window in which up's CPU is measured with nothing
	// due: every employee's first heartbeat is a minute after its start.
	teamIdle = 20 * time.Second
)

// BenchmarkUpTeam runs a Manager on the real clock with 200 employees
// (heartbeat 1m) and 20 services, each a process of the test agent
// (internal/acptestagent), once, and reports in its sub-benchmarks:
//
//   - status: ms-status(p50/p99/max) of Manager.Status, the answer of
//     `actctl status` without actctl's own start (b.N calls);
//   - lease-session: ms-lease-session(p50/p99/max), a lease's initialize
//     and session/new on a warm service with the team running (b.N leases;
//     target <= 20 ms);
//   - team, measured once:
//     KB-rss/agent, the growth of this process's resident memory (up's
//     own: the agents are other processes) from before the Sync to all
//     220 agents started, per agent;
//     %cpu-idle, this process's CPU over teamIdle with every agent warm
//     and nothing due, in % of one core (target < 1%);
//     ms-tick-late(p50/p99/max), each heartbeat tick's task queued (its
//     heartbeat:tick event, published as the task enters the queue) after
//     its due time (target p99 <= 100 ms): the clock records the due time
//     of every heartbeat timer, and dues and ticks are paired in order,
//     which is exact while ticks come in the order their timers were due
//     (a reordering within a burst only swaps whose lateness is whose);
//     ms-prompt50(p50/p99/max) and ms-prompt50-all, 50 concurrent prompts
//     to one service, each in a session of its own;
//     ms-crash-to-start, a service killed (SIGKILL) to its new process
//     started, the first backoff step included (target <= 1.5 s).
//
// It starts 220 processes and waits a heartbeat (about two minutes):
// skipped with -short, and like every benchmark never run without -bench.
//
//	go test ./up/ -run '^$' -bench UpTeam -benchtime 50x
func BenchmarkUpTeam(b *testing.B) {
	if testing.Short() {
		b.Skip("starts 220 agents and waits a heartbeat")
	}
	clk := &dueClock{Clock: clock.Real()}
	ev := newEventLog()
	m := teamManager(b, clk, ev)
	var specs []Spec
	for i := 0; i < teamEmployees; i++ {
		specs = append(specs, employee(b, fmt.Sprintf("emp-%d", i), schedule.Spec{Heartbeat: &schedule.Heartbeat{Interval: time.Minute, Seed: strconv.Itoa(i)}}))
	}
	for i := 0; i < teamServices; i++ {
		specs = append(specs, service(b, fmt.Sprintf("svc-%d", i)))
	}
	rss0 := rssKB(b)
	m.Sync(specs)
	ev.waitCount(b, "process:start", len(specs), 3*time.Minute)
	rssPerAgent := float64(rssKB(b)-rss0) / float64(len(specs))

	cpu0, wall0 := cpuTime(b), time.Now()
	<-time.After(teamIdle) // a measuring window, not a wait for an event
	idle := 100 * (cpuTime(b) - cpu0).Seconds() / time.Since(wall0).Seconds()

	b.Run("status", func(b *testing.B) {
		reportSpreadUp(b, "ms-status", timeN(b.N, func() { m.Status() }))
	})
	h := &harness{t: b, m: m}
	cwd := b.TempDir()
	b.Run("lease-session", func(b *testing.B) {
		reportSpreadUp(b, "ms-lease-session", timeN(b.N, func() {
			c := h.lease("svc-0", "yes")
			if _, err := c.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}}); err != nil {
				b.Fatal(err)
			}
			c.close()
		}))
	})

	ev.waitCount(b, "task:done", teamEmployees, 3*time.Minute)
	late := lateness(clk.heartbeatDues(), ev.times("heartbeat:tick"))
	all := time.Now()
	prompts := concurrentPrompts(b, m, "svc-1", 50)
	prompt50 := time.Since(all)
	crash := crashToStart(b, ev, "svc-2")
	b.Run("team", func(b *testing.B) {
		b.ReportMetric(rssPerAgent, "KB-rss/agent")
		b.ReportMetric(idle, "%cpu-idle")
		reportSpreadUp(b, "ms-tick-late", late)
		reportSpreadUp(b, "ms-prompt50", prompts)
		b.ReportMetric(float64(prompt50.Microseconds())/1000, "ms-prompt50-all")
		b.ReportMetric(float64(crash.Microseconds())/1000, "ms-crash-to-start")
	})
}

// crashToStart kills agent's process (SIGKILL, as a crash) and returns
// the time to its next process:start: the first backoff step (1 s) and
// the new process's start, initialize and session (target <= 1.5 s).
func crashToStart(b *testing.B, ev *eventLog, agent string) time.Duration {
	n := len(ev.times("process:start"))
	pid := ev.pid(agent)
	if pid <= 0 {
		b.Fatalf("no pid of %s's process:start", agent) // kill(0) would be the process group
	}
	start := time.Now()
	if err := kill(pid); err != nil {
		b.Fatal(err)
	}
	ev.waitCount(b, "process:start", n+1, time.Minute)
	return time.Since(start)
}

// concurrentPrompts sends n prompts to agent at once, each waited for,
// and returns how long each took.
func concurrentPrompts(b *testing.B, m *Manager, agent string, n int) []time.Duration {
	ds := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			if _, err := m.Prompt(context.Background(), agent, "hello", true, nil); err != nil {
				b.Error(err)
			}
			ds[i] = time.Since(start)
		}()
	}
	wg.Wait()
	return ds
}

// teamManager is a Manager on clk whose agents are this test binary as
// the test agent, each in a directory of its own; ev gets its events.
func teamManager(b *testing.B, clk clock.Clock, ev *eventLog) *Manager {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	prompts := filepath.Join(b.TempDir(), "prompts.log")
	launchFn := func(ctx context.Context, agent string, obs acpclient.Observer) (*acpclient.Client, error) {
		ws := filepath.Join(b.TempDir())
		return acpclient.Start(ctx, acpclient.Options{
			Launch:    launch.Launch{Command: self, Env: map[string]string{acptestagent.Var: "1", "ACTCTL_TEST_PROMPT_LOG": prompts}, Cwd: ws, Workspace: ws},
			ClientCwd: ws, Rule: acpclient.AllowAll, Observer: obs, Grace: 5 * time.Second})
	}
	m := New(Options{Launch: launchFn, Clock: clk, Publish: ev.add, Grace: 5 * time.Second, StartTimeout: 2 * time.Minute})
	b.Cleanup(m.Shutdown)
	return m
}

// dueClock is a real clock that records when each heartbeat timer (a
// minute, as the team's heartbeat) is due.
type dueClock struct {
	clock.Clock
	mu   sync.Mutex
	dues []time.Time
}

func (c *dueClock) NewTimer(d time.Duration) clock.Timer {
	if d > 50*time.Second && d <= time.Minute {
		c.mu.Lock()
		c.dues = append(c.dues, c.Now().Add(d))
		c.mu.Unlock()
	}
	return c.Clock.NewTimer(d)
}

// heartbeatDues are the due times of the heartbeat timers that expired.
func (c *dueClock) heartbeatDues() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []time.Time
	for _, d := range c.dues {
		if !d.After(time.Now()) {
			out = append(out, d)
		}
	}
	return out
}

// lateness pairs the sorted dues with the sorted tick times.
func lateness(dues, ticks []time.Time) []time.Duration {
	sort.Slice(dues, func(i, j int) bool { return dues[i].Before(dues[j]) })
	sort.Slice(ticks, func(i, j int) bool { return ticks[i].Before(ticks[j]) })
	n := min(len(dues), len(ticks))
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = ticks[i].Sub(dues[i])
	}
	return out
}

// eventLog keeps the time each event was published (never blocking the
// publisher), for counting and timing.
type eventLog struct {
	mu     sync.Mutex
	at     map[string][]time.Time
	pids   map[string]int // agent -> pid of its last process:start
	notify chan struct{}
}

func newEventLog() *eventLog {
	return &eventLog{at: map[string][]time.Time{}, pids: map[string]int{}, notify: make(chan struct{}, 1)}
}

func (l *eventLog) add(ev hooks.Event) {
	now := time.Now()
	l.mu.Lock()
	l.at[ev.Name] = append(l.at[ev.Name], now)
	if pid, ok := ev.Data["pid"].(int); ok && ev.Name == "process:start" {
		l.pids[ev.Agent] = pid
	}
	l.mu.Unlock()
	select {
	case l.notify <- struct{}{}:
	default:
	}
}

func (l *eventLog) pid(agent string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pids[agent]
}

func (l *eventLog) times(name string) []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Time(nil), l.at[name]...)
}

// waitCount waits until n events named name were published.
func (l *eventLog) waitCount(b *testing.B, name string, n int, limit time.Duration) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for len(l.times(name)) < n {
		select {
		case <-l.notify:
		case <-deadline.C:
			b.Fatalf("%d %s events of %d after %s", len(l.times(name)), name, n, limit)
		}
	}
}

// timeN times f n times.
func timeN(n int, f func()) []time.Duration {
	ds := make([]time.Duration, n)
	for i := range ds {
		start := time.Now()
		f()
		ds[i] = time.Since(start)
	}
	return ds
}

// reportSpreadUp reports the p50, p99 and max of ds, in ms.
func reportSpreadUp(b *testing.B, unit string, ds []time.Duration) {
	if len(ds) == 0 {
		b.Fatalf("%s: no samples", unit)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	at := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) / 1000 }
	b.ReportMetric(at(0.5), unit+"(p50)")
	b.ReportMetric(at(0.99), unit+"(p99)")
	b.ReportMetric(at(1), unit+"(max)")
}

// rssKB is this process's resident memory (VmRSS).
func rssKB(b *testing.B) int { return statusField(b, "VmRSS:") }

// cpuTime is this process's user and system time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
