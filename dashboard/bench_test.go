package dashboard

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
)

// benchAgents are n agents with a last task each: one in ten a repo
// agent on demand (no process), the others half employees.
func benchAgents(n int) *fake {
	f := newFake()
	now := time.Now()
	for i := range n {
		arch := "service"
		if i%2 == 0 {
			arch = "employee"
		}
		start := now.Add(-time.Hour)
		a := Agent{AgentStatus: up.AgentStatus{Name: fmt.Sprintf("agent-%03d", i), Archetype: arch,
			State: "running", Pid: 1000 + i, StartedAt: &start, NextTick: &now, Restarts: i % 3}, Backend: "claude-code",
			LastTask: &tasklog.Summary{Task: uint64(i), Source: "heartbeat", StopReason: "end_turn", Time: now}}
		if i%10 == 9 {
			a.Archetype, a.State, a.Pid, a.StartedAt, a.NextTick, a.OnDemand = "repo", "created", 0, nil, nil, true
		}
		f.agents[a.Name] = a
	}
	return f
}

// BenchmarkAgentsPage renders the agents page of 200 agents (20 repo
// agents on demand among them), the server's time for it
// (docs/dashboard.md, "Benchmarks").
func BenchmarkAgentsPage(b *testing.B) {
	s, err := New(benchAgents(200), Options{Token: testToken, Addr: testAddr})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, request("GET", "/", ""))
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkLiveEvent is what one event costs the dashboard with 8 live
// pages open: the timeline entry and the agent's card, encoded once and
// queued to each page. An idle dashboard sends nothing (no timer), so
// this is its whole cost: at one event a second, ns/op is the share of
// a core in nanoseconds per second.
func BenchmarkLiveEvent(b *testing.B) {
	s, err := New(benchAgents(200), Options{Token: testToken, Addr: testAddr})
	if err != nil {
		b.Fatal(err)
	}
	var subs []*sub
	for range 8 {
		subs = append(subs, s.live.subscribe())
	}
	ev := hooks.Observation{Event: hooks.Event{Name: "process:crash", Agent: "agent-007", Time: time.Now(),
		Data: map[string]any{"state": "backoff", "backoff": "1s", "pid": 1007}}}
	b.ReportAllocs()
	for b.Loop() {
		s.Observe(ev)
		for _, sb := range subs {
			<-sb.c
			<-sb.c
		}
	}
}

// BenchmarkLiveTaskDone is what a task's end costs with 8 live pages
// open: its timeline entry, the agent's card and its "tasks" message
// (the queue, and the history row read from the task's log).
func BenchmarkLiveTaskDone(b *testing.B) {
	f := benchAgents(200)
	f.logs["agent-007/7"] = []byte(hostileLog())
	f.setQueue("agent-007", Queued{ID: 8, Kind: "heartbeat", Prompt: "check the queue", Running: true})
	s, err := New(f, Options{Token: testToken, Addr: testAddr})
	if err != nil {
		b.Fatal(err)
	}
	var subs []*sub
	for range 8 {
		subs = append(subs, s.live.subscribe())
	}
	ev := hooks.Observation{Event: hooks.Event{Name: "task:done", Agent: "agent-007", Time: time.Now(),
		Data: map[string]any{"task": 7, "kind": "heartbeat"}}}
	b.ReportAllocs()
	for b.Loop() {
		s.Observe(ev)
		for _, sb := range subs {
			<-sb.c
			<-sb.c
			if m := <-sb.c; m.event != "tasks" {
				b.Fatalf("message %s", m.event)
			}
		}
	}
}
