package up

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/internal/acptestagent"
	"github.com/actctl/actctl/internal/clock"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/tasklog"
)

func TestMain(m *testing.M) {
	if os.Getenv(acptestagent.Var) != "" {
		os.Exit(acptestagent.Main())
	}
	os.Exit(m.Run())
}

var t0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// harness runs a Manager on this test binary as the agent, with a fake
// clock, and records every published event.
type harness struct {
	t       testing.TB
	m       *Manager
	clk     *clock.Fake
	events  chan hooks.Event
	env     map[string]string
	prompts string // the agent's prompt log
	mu      sync.Mutex
	seen    []hooks.Event
	claimed []bool // per seen event: returned by wait
	// onPublish, if set (before the first Sync), sees each event as it
	// is published, on the publisher's goroutine.
	onPublish func(hooks.Event)
	logs      chan string // up's log lines, for waitLog
	// preset, if set (before the first Sync), is the agents' preset
	// (acpclient.Options.Preset): the client methods they may call.
	preset acpclient.Rule
	// rule, if set (before the first Sync), answers the agents'
	// permission requests (default: acpclient.AllowAll).
	rule acpclient.Rule
	// rules, if set (before the first Sync), are the agents' own
	// permission rules (acpclient.Options.Rules).
	rules acpclient.Rules
}

func newHarness(t testing.TB, env map[string]string) *harness {
	t.Helper()
	h := &harness{t: t, clk: clock.NewFake(t0), events: make(chan hooks.Event, 1000), env: env,
		prompts: filepath.Join(t.TempDir(), "prompts.log"), logs: make(chan string, 1000)}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	launchFn := func(ctx context.Context, agent string, obs acpclient.Observer) (*acpclient.Client, error) {
		e := map[string]string{acptestagent.Var: "1", "ACTCTL_TEST_PROMPT_LOG": h.prompts}
		for k, v := range h.env {
			e[k] = v
		}
		ws := filepath.Join(t.TempDir())
		return acpclient.Start(ctx, acpclient.Options{Launch: launch.Launch{Command: self, Env: e, Cwd: ws, Workspace: ws},
			ClientCwd: ws, Rule: cmp.Or(h.rule, acpclient.AllowAll), Rules: h.rules, Preset: h.preset, Observer: obs, Grace: 5 * time.Second})
	}
	publish := func(ev hooks.Event) {
		if h.onPublish != nil {
			h.onPublish(ev)
		}
		h.events <- ev
	}
	logf := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		t.Log(line)
		select {
		case h.logs <- line:
		default: // a test that reads no log lines
		}
	}
	h.m = New(Options{Launch: launchFn, Clock: h.clk, Publish: publish, Logf: logf, Grace: 5 * time.Second})
	t.Cleanup(h.m.Shutdown)
	return h
}

// wait returns the earliest event named name for agent that no wait
// returned yet: one seen while waiting for another is kept for later, so
// events of several agents can be awaited in any order.
func (h *harness) wait(name, agent string) hooks.Event {
	h.t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for {
		if ev, ok := h.claim(name, agent); ok {
			return ev
		}
		select {
		case ev := <-h.events:
			h.mu.Lock()
			h.seen = append(h.seen, ev)
			h.mu.Unlock()
		case <-deadline.C:
			h.t.Fatalf("no %s event for %s (saw %v)", name, agent, h.names())
		}
	}
}

// claim returns the earliest unclaimed seen event named name for agent.
func (h *harness) claim(name, agent string) (hooks.Event, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for len(h.claimed) < len(h.seen) {
		h.claimed = append(h.claimed, false)
	}
	for i, ev := range h.seen {
		if !h.claimed[i] && ev.Name == name && ev.Agent == agent {
			h.claimed[i] = true
			return ev, true
		}
	}
	return hooks.Event{}, false
}

func (h *harness) names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, ev := range h.seen {
		out = append(out, ev.Name+"/"+ev.Agent)
	}
	return out
}

// promptLines returns the agent's prompt log: session id and prompt.
func (h *harness) promptLines() [][2]string {
	b, _ := os.ReadFile(h.prompts)
	var out [][2]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if sid, p, ok := strings.Cut(l, "\t"); ok {
			out = append(out, [2]string{sid, p})
		}
	}
	return out
}

// employee and service are agents whose turns have a deadline and a
// stall time far beyond what the tests move the clock by (a day), but
// for the tests of those (turnwatch_test.go).
func employee(t testing.TB, name string, sched schedule.Spec) Spec {
	dir := t.TempDir()
	return Spec{Name: name, Archetype: "employee", LaunchMode: "acp-background", Schedule: &sched,
		Workspace: dir, LogsDir: filepath.Join(dir, "logs"), Digest: "1", TurnTimeout: 24 * time.Hour, StallAfter: 24 * time.Hour}
}

func service(t testing.TB, name string) Spec {
	dir := t.TempDir()
	return Spec{Name: name, Archetype: "service", LaunchMode: "acp-service", Workspace: dir, LogsDir: filepath.Join(dir, "logs"), Digest: "1",
		TurnTimeout: 24 * time.Hour, StallAfter: 24 * time.Hour}
}

// TestEmployeeHeartbeats: .heartbeat is seeded once and never
// overwritten; each interval one heartbeat task runs in the one primary
// session, pointing at .heartbeat, and is logged.
func TestEmployeeHeartbeats(t *testing.T) {
	h := newHarness(t, nil)
	s := employee(t, "triage", schedule.Spec{Heartbeat: &schedule.Heartbeat{Interval: 10 * time.Minute, Seed: "label new issues"}})
	h.m.Sync([]Spec{s})
	h.wait("process:start", "triage")
	hb := filepath.Join(s.Workspace, schedule.HeartbeatFile)
	if b, _ := os.ReadFile(hb); string(b) != "label new issues" {
		t.Fatalf(".heartbeat = %q, want the seed", b)
	}
	if err := os.WriteFile(hb, []byte("the agent's own notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Digest = "2" // a config change: restarted, but the file stays the agent's
	h.m.Sync([]Spec{s})
	h.wait("process:start", "triage")
	for i := 0; i < 2; i++ {
		h.clk.WaitPending(1)
		h.clk.Advance(10 * time.Minute)
		h.wait("heartbeat:tick", "triage")
		h.wait("task:done", "triage")
	}
	if b, _ := os.ReadFile(hb); string(b) != "the agent's own notes" {
		t.Fatalf(".heartbeat = %q: overwritten", b)
	}
	lines := h.promptLines()
	if len(lines) != 2 {
		t.Fatalf("prompts = %q, want 2 heartbeats", lines)
	}
	for _, l := range lines {
		if !strings.Contains(l[1], schedule.HeartbeatFile) || l[0] != lines[0][0] {
			t.Errorf("prompt %q: want the heartbeat prompt in session %s", l, lines[0][0])
		}
	}
	sums, err := tasklog.Summaries(s.LogsDir)
	if err != nil || len(sums) != 2 {
		t.Fatalf("summaries = %v, %v; want 2", sums, err)
	}
	for _, sm := range sums {
		if sm.Kind != "heartbeat" || sm.Error != "" {
			t.Errorf("summary %+v", sm)
		}
		if b, err := os.ReadFile(filepath.Join(s.LogsDir, sm.Log)); err != nil || !strings.Contains(string(b), "session/update") {
			t.Errorf("task log %s: %v %q", sm.Log, err, b)
		}
	}
}

// TestPromptQueuedBehindRunningTask: a prompt to an employee waits for
// the task that runs, then runs in the same session.
func TestPromptQueuedBehindRunningTask(t *testing.T) {
	h := newHarness(t, nil)
	s := employee(t, "worker", schedule.Spec{})
	h.m.Sync([]Spec{s})
	h.wait("process:start", "worker")
	ctx := context.Background()
	// "stream" runs until cancelled: the first task holds the queue.
	first, err := h.m.Prompt(ctx, "worker", "stream", false, nil)
	if err != nil || !first.Queued {
		t.Fatalf("prompt: %+v %v", first, err)
	}
	got := make(chan Outcome, 1)
	go func() {
		o, _ := h.m.Prompt(ctx, "worker", "hello", true, nil)
		got <- o
	}()
	st := waitStatus(t, h.m, "worker", func(a AgentStatus) bool { return a.Running == first.Task && a.Queued == 1 })
	if st.Queued != 1 {
		t.Fatalf("status %+v", st)
	}
	// Stopping the process ends the stuck turn; the queued prompt then
	// fails plainly (the agent is stopped), it is not lost silently.
	if _, err := h.m.Stop(ctx, "worker"); err != nil {
		t.Fatal(err)
	}
	o := <-got
	if o.Error == "" || !strings.Contains(o.Error, "stopped") {
		t.Fatalf("queued prompt after stop: %+v", o)
	}
	if _, err := h.m.Start(ctx, "worker"); err != nil {
		t.Fatal(err)
	}
	o, err = h.m.Prompt(ctx, "worker", "hello", true, nil)
	if err != nil || o.StopReason != "end_turn" {
		t.Fatalf("prompt after start: %+v %v", o, err)
	}
}

// TestServiceRestartedAfterKill: a killed service is restarted after its
// backoff and counts the restart; a crash loop ends fatal; start retries.
func TestServiceRestartedAfterKill(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{service(t, "api")})
	ev := h.wait("process:start", "api")
	pid := ev.Data["pid"].(int)
	if err := kill(pid); err != nil {
		t.Fatal(err)
	}
	crash := h.wait("process:crash", "api")
	if crash.Data["state"] != "backoff" || crash.Data["backoff"] != "1s" {
		t.Fatalf("crash event %v", crash.Data)
	}
	h.clk.WaitPending(1)
	h.clk.Advance(time.Second)
	re := h.wait("process:restart", "api")
	if re.Data["restarts"] != 1 || re.Data["pid"] == pid {
		t.Fatalf("restart event %v", re.Data)
	}
	st := waitStatus(t, h.m, "api", func(a AgentStatus) bool { return a.State == "running" })
	if st.Restarts != 1 {
		t.Fatalf("status %+v", st)
	}
	o, err := h.m.Prompt(context.Background(), "api", "session", true, nil)
	if err != nil || o.SessionID == "" {
		t.Fatalf("prompt to the restarted service: %+v %v", o, err)
	}
}

func TestServiceCrashLoopIsFatal(t *testing.T) {
	h := newHarness(t, map[string]string{"ACTCTL_TEST_CRASH_AFTER": "0s"})
	h.m.Sync([]Spec{service(t, "flaky")})
	for i := 0; ; i++ {
		ev := h.wait("process:crash", "flaky")
		if ev.Data["state"] == "fatal" {
			break
		}
		if i > 10 {
			t.Fatal("never fatal")
		}
		h.clk.WaitPending(1)
		d, _ := h.clk.NextDue()
		h.clk.Set(d)
	}
	st := waitStatus(t, h.m, "flaky", func(a AgentStatus) bool { return a.State == "fatal" })
	if st.LastError == "" {
		t.Fatalf("fatal without an error: %+v", st)
	}
	if _, err := h.m.Prompt(context.Background(), "flaky", "hello", true, nil); err == nil || !strings.Contains(err.Error(), "fatal") {
		t.Fatalf("prompt to a fatal service: %v", err)
	}
}

// waitStatus polls the manager's status (in-process, no process state)
// until ok holds.
func waitStatus(t *testing.T, m *Manager, name string, ok func(AgentStatus) bool) AgentStatus {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		for _, s := range m.Status() {
			if s.Name == name && ok(s) {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("status of %s never matched: %+v", name, m.Status())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRecordBeforeEvent: the agent's runtime record shows the new process
// before its process:start is published (and logged): hooks, `actctl
// status` and a user watching up's log find the pid there.
func TestRecordBeforeEvent(t *testing.T) {
	h := newHarness(t, nil)
	s := service(t, "api")
	s.Record = filepath.Join(t.TempDir(), ".actant.json")
	got := make(chan string, 10)
	h.onPublish = func(ev hooks.Event) {
		if ev.Name == "process:start" {
			rec, err := runrecord.Read(s.Record)
			if err != nil || rec.Status != "running" || rec.PID != ev.Data["pid"] {
				got <- fmt.Sprintf("record %+v (%v) at process:start of pid %v", rec, err, ev.Data["pid"])
				return
			}
			got <- ""
		}
	}
	h.m.Sync([]Spec{s})
	h.wait("process:start", "api")
	if msg := <-got; msg != "" {
		t.Fatal(msg)
	}
}
