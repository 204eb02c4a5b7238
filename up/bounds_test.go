package up

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/internal/acptestagent"
	"github.com/actctl/actctl/internal/clock"
	"github.com/actctl/actctl/schedule"
)

// pending waits until the code under test has armed n timers of clk; a
// test of the old code, which armed none, fails instead of hanging.
func pending(t *testing.T, clk *clock.Fake, n int) {
	t.Helper()
	armed := make(chan struct{})
	go func() {
		clk.WaitPending(n)
		close(armed)
	}()
	select {
	case <-armed:
	case <-time.After(60 * time.Second): // a failure guard, not a wait
		t.Fatalf("no timer armed (%d pending, want %d)", clk.Pending(), n)
	}
}

// TestStartBound: a backend that never answers initialize has failed to
// start once the start bound has passed on the clock: process:crash
// naming the request, and a prompt waiting for it gets that error instead
// of waiting forever. (session/new runs under the same bound; when the
// clock moves is not tied to how far the real process got, so only the
// first request is named here.)
func TestStartBound(t *testing.T) {
	for _, method := range []string{"initialize"} {
		t.Run(strings.ReplaceAll(method, "/", "-"), func(t *testing.T) {
			h := newHarness(t, map[string]string{acptestagent.HangVar: method})
			dir := t.TempDir()
			h.m.Sync([]Spec{{Name: "api", Archetype: "service", LaunchMode: "acp-background", Workspace: dir,
				LogsDir: filepath.Join(dir, "logs"), Digest: "1"}})
			pending(t, h.clk, 1) // the start bound
			prompted := make(chan error, 1)
			go func() {
				_, err := h.m.Prompt(context.Background(), "api", "hello", true, nil)
				prompted <- err
			}()
			h.clk.Advance(time.Minute) // supervise.DefaultStartTimeout
			ev := h.wait("process:crash", "api")
			want := method + ": no answer within 1m0s, the start bound"
			if e, _ := ev.Data["error"].(string); !strings.Contains(e, want) {
				t.Errorf("crash error %q, want %q", e, want)
			}
			select {
			case err := <-prompted:
				if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "agent api") {
					t.Errorf("prompt: %v, want %q", err, want)
				}
			case <-time.After(60 * time.Second): // a failure guard
				t.Fatal("the prompt never returned")
			}
		})
	}
}

// TestRestartBound: a restart waits for a turn that never ends (the agent
// ignores session/cancel) the turn grace on the clock, then cancels it
// and, the grace later, kills the process; the restart then succeeds, the
// turn fails saying why, and the killed process is a stop, not a crash.
func TestRestartBound(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{employee(t, "worker", schedule.Spec{})})
	h.wait("process:start", "worker")
	streaming := make(chan struct{})
	var once sync.Once
	sink := func(kind string, v any) {
		if e, ok := v.(acpclient.Event); ok && strings.Contains(e.Text, "streaming") {
			once.Do(func() { close(streaming) })
		}
	}
	turned := make(chan error, 1)
	go func() {
		_, err := h.m.Prompt(context.Background(), "worker", "stubborn", true, sink)
		turned <- err
	}()
	<-streaming
	restarted := make(chan error, 1)
	go func() {
		_, err := h.m.Restart(context.Background(), "worker")
		restarted <- err
	}()
	pending(t, h.clk, 2)            // the turn's watchdog and the turn grace
	h.clk.Advance(30 * time.Second) // DefaultTurnGrace
	pending(t, h.clk, 2)            // the watchdog and the grace after the cancel
	h.clk.Advance(5 * time.Second)
	if err := <-turned; err == nil || !strings.Contains(err.Error(), "restart: the turn did not end within 30s") {
		t.Errorf("turn: %v", err)
	}
	if err := <-restarted; err != nil {
		t.Fatalf("restart: %v", err)
	}
	h.wait("process:stop", "worker")
	h.wait("process:start", "worker")
	for _, n := range h.names() {
		if n == "process:crash/worker" {
			t.Errorf("events %v: the process the restart killed is logged as a crash", h.names())
		}
	}
}

// TestStopBeforeStart: an agent stopped while its start is under way
// (here a backend that never answers initialize) publishes no
// process:stop: no process:start came, and there is no pid to name.
func TestStopBeforeStart(t *testing.T) {
	h := newHarness(t, map[string]string{acptestagent.HangVar: "initialize"})
	h.m.Sync([]Spec{service(t, "api")})
	waitStatus(t, h.m, "api", func(a AgentStatus) bool { return a.State == "starting" })
	st, err := h.m.Stop(context.Background(), "api")
	if err != nil || st.State != "stopped" {
		t.Fatalf("stop: %+v %v", st, err)
	}
	h.m.Shutdown()
	close(h.events)
	for ev := range h.events {
		if ev.Agent == "api" && (ev.Name == "process:stop" || ev.Name == "process:crash") {
			t.Errorf("%s %v for an agent that never started", ev.Name, ev.Data)
		}
	}
}
