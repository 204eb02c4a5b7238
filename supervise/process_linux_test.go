package supervise

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// groupMembers lists the live (not zombie) processes of process group
// pgid, from /proc.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces.
		rest := b[bytes.LastIndexByte(b, ')')+2:]
		f := strings.Fields(string(rest))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitGroupGone polls until no process of group pgid is alive. Polling is
// needed: an orphaned grandchild is reaped by init, not by us.
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for len(groupMembers(t, pgid)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still has %v", pgid, groupMembers(t, pgid))
		}
		<-tick.C
	}
}

type observed struct {
	c chan Event
}

func (o observed) next(t *testing.T, name string) Event {
	t.Helper()
	for ev := range o.c {
		if ev.Name == name {
			return ev
		}
	}
	panic("unreachable")
}

// superviseShell supervises sh -c script; the script's stdout is returned
// to read from.
func superviseShell(t *testing.T, script string) (*Supervisor, *clock.Fake, observed, *bufio.Reader) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	obs := observed{c: make(chan Event, 100)}
	// The script forks a child (sleep) into the same group, as an agent
	// forks tools, and waits for it.
	s := New("svc", Command{Path: "/bin/sh", Args: []string{"-c", script}, Stdout: w}, unbounded(ServicePolicy()), clk, func(ev Event) { obs.c <- ev })
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.Run(ctx) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return s, clk, obs, bufio.NewReader(r)
}

func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(line)
}

// TestRealProcessRestartAndStop: a killed service is restarted after its
// backoff (driven by the fake clock) with a new pid, nothing of the old
// process group survives, and Stop leaves no process behind.
func TestRealProcessRestartAndStop(t *testing.T) {
	s, clk, obs, out := superviseShell(t, "sleep 1000 & echo $!; wait")
	ctx := context.Background()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	first := obs.next(t, EventStart)
	child, _ := strconv.Atoi(readLine(t, out))
	if first.Pid <= 0 || len(groupMembers(t, first.Pid)) != 2 || syscall.Kill(child, 0) != nil {
		t.Fatalf("start event %+v, group %v, child %d", first, groupMembers(t, first.Pid), child)
	}
	if st := s.Status(); st.State != Running || st.Pid != first.Pid {
		t.Errorf("status %+v", st)
	}

	// Kill the leader only: its child sleep is left, and must go too.
	if err := syscall.Kill(first.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	crash := obs.next(t, EventCrash)
	if crash.State != Backoff || crash.Delay != time.Second || crash.Pid != first.Pid || crash.Err == nil {
		t.Errorf("crash event %+v", crash)
	}
	waitGroupGone(t, first.Pid)

	clk.WaitPending(1)
	if st := s.Status(); st.State != Backoff || !st.NextStart.Equal(clk.Now().Add(time.Second)) {
		t.Errorf("status in backoff %+v", st)
	}
	clk.Advance(time.Second)
	restart := obs.next(t, EventRestart)
	readLine(t, out) // the new child is up
	if restart.Pid == first.Pid || restart.Pid <= 0 || restart.Restarts != 1 {
		t.Errorf("restart event %+v (first pid %d)", restart, first.Pid)
	}
	if st := s.Status(); st.State != Running || st.Restarts != 1 || st.Pid != restart.Pid {
		t.Errorf("status after restart %+v", st)
	}

	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if ev := obs.next(t, EventStop); ev.Pid != restart.Pid || ev.State != Stopped {
		t.Errorf("stop event %+v", ev)
	}
	waitGroupGone(t, restart.Pid)
	if st := s.Status(); st.State != Stopped || st.Pid != 0 {
		t.Errorf("status after stop %+v", st)
	}
}

// TestRealProcessStopKillsAfterGrace: a process that ignores SIGTERM is
// killed, group and all, when the grace period ends.
func TestRealProcessStopKillsAfterGrace(t *testing.T) {
	s, clk, obs, out := superviseShell(t, `trap "" TERM; sleep 1000 & echo ready; wait; wait`)
	ctx := context.Background()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	pid := obs.next(t, EventStart).Pid
	readLine(t, out) // TERM is ignored from here on
	stopped := make(chan error, 1)
	go func() { stopped <- s.Stop(ctx) }()
	clk.WaitPending(1) // the grace timer
	if st := s.Status(); st.State != Stopping {
		t.Errorf("state during grace %s", st.State)
	}
	if len(groupMembers(t, pid)) == 0 {
		t.Fatal("the group died on SIGTERM; the test needs one that ignores it")
	}
	clk.Advance(ServicePolicy().Grace)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	waitGroupGone(t, pid)
	if ev := obs.next(t, EventStop); ev.State != Stopped {
		t.Errorf("stop event %+v", ev)
	}
}

// TestStartFailure: a program that cannot start is a crash into backoff,
// and a background agent is left crashed.
func TestStartFailure(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	obs := observed{c: make(chan Event, 10)}
	s := New("bg", Command{Path: "/nonexistent/agent"}, unbounded(BackgroundPolicy()), clk, func(ev Event) { obs.c <- ev })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	s.Start(ctx)
	ev := obs.next(t, EventCrash)
	if ev.State != Crashed || ev.Err == nil || !strings.Contains(ev.Err.Error(), "/nonexistent/agent") {
		t.Errorf("crash %+v", ev)
	}
	cancel()
	<-done
	if err := s.Start(context.Background()); err != ErrNotRunning {
		t.Errorf("start after Run returned: %v", err)
	}
}

// TestCrashLoopToFatal: a service that exits at once is restarted after
// 1, 2, 4 and 8 s (the fake clock), then declared fatal at its fifth
// failure; a start request tries again with the backoff back at 1 s.
func TestCrashLoopToFatal(t *testing.T) {
	s, clk, obs, _ := superviseShell(t, "exit 3")
	ctx := context.Background()
	s.Start(ctx)
	for i, wait := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
		ev := obs.next(t, EventCrash)
		if ev.State != Backoff || ev.Delay != wait || ev.Restarts != i || ev.Err == nil || !strings.Contains(ev.Err.Error(), "exit status 3") {
			t.Fatalf("crash %d: %+v", i, ev)
		}
		clk.WaitPending(1)
		clk.Advance(wait)
	}
	if ev := obs.next(t, EventCrash); ev.State != Fatal || ev.Restarts != 4 {
		t.Fatalf("fifth crash: %+v", ev)
	}
	if st := s.Status(); st.State != Fatal || st.LastErr == nil {
		t.Errorf("status %+v", st)
	}
	if n := clk.Pending(); n != 0 {
		t.Errorf("%d timers armed in fatal", n)
	}
	s.Start(ctx)
	if ev := obs.next(t, EventCrash); ev.State != Backoff || ev.Delay != time.Second {
		t.Errorf("after a manual start: %+v", ev)
	}
}

// TestRestartRequest: Restart (what a config change does) stops the
// running process, group and all, and starts a new one.
func TestRestartRequest(t *testing.T) {
	s, _, obs, out := superviseShell(t, "sleep 1000 & echo $!; wait")
	ctx := context.Background()
	s.Start(ctx)
	first := obs.next(t, EventStart)
	readLine(t, out) // its child is up
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	// Restart returns once the new start is under way: whoever waited
	// for it (a task queue) must not find the agent stopped.
	if st := s.Status().State; st != Starting && st != Running {
		t.Fatalf("state %s right after Restart returned, want starting or running", st)
	}
	if ev := obs.next(t, EventStop); ev.Pid != first.Pid {
		t.Errorf("stop event %+v", ev)
	}
	second := obs.next(t, EventRestart)
	if second.Pid == first.Pid || second.Pid <= 0 {
		t.Errorf("restart event %+v", second)
	}
	waitGroupGone(t, first.Pid) // the first run's child included
	readLine(t, out)
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	waitGroupGone(t, second.Pid)
}
