package up

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/tasklog"
)

// held is a turn of the test agent's `wait PATH`: it runs until release.
type held struct {
	path string
	out  chan Outcome
}

// hold prompts agent with `wait PATH` (waiting for the result) and returns
// once the agent is in that turn (it said "waiting").
func (h *harness) hold(agent string) *held {
	h.t.Helper()
	hd := &held{path: filepath.Join(h.t.TempDir(), "release"), out: make(chan Outcome, 1)}
	in := make(chan struct{})
	var once sync.Once
	sink := func(kind string, v any) {
		if raw, ok := v.(json.RawMessage); ok && bytes.Contains(raw, []byte(`waiting\n`)) {
			once.Do(func() { close(in) })
		}
	}
	go func() {
		o, err := h.m.Prompt(context.Background(), agent, "wait "+hd.path, true, sink)
		if err != nil && o.Error == "" {
			o.Error = err.Error()
		}
		hd.out <- o
	}()
	select {
	case <-in:
	case o := <-hd.out:
		h.t.Fatalf("the held turn ended before it waited: %+v", o)
	}
	return hd
}

// release ends the held turn and returns its outcome.
func (hd *held) release(t testing.TB) Outcome {
	t.Helper()
	if err := os.WriteFile(hd.path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return <-hd.out
}

// drain takes the events already published (without waiting) into seen.
func (h *harness) drain() {
	for {
		select {
		case ev := <-h.events:
			h.mu.Lock()
			h.seen = append(h.seen, ev)
			h.mu.Unlock()
		default:
			return
		}
	}
}

// seenOf returns the events seen so far for agent, in order.
func (h *harness) seenOf(agent string) []hooks.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []hooks.Event
	for _, ev := range h.seen {
		if ev.Agent == agent {
			out = append(out, ev)
		}
	}
	return out
}

// wantData checks that ev's Data has exactly the keys of want, with those
// values (a nil want value: the key is present, any non-empty value).
func wantData(t *testing.T, ev hooks.Event, want map[string]any) {
	t.Helper()
	if len(ev.Data) != len(want) {
		t.Errorf("%s %s: data %v, want the keys of %v", ev.Name, ev.Agent, ev.Data, want)
	}
	for k, w := range want {
		got, ok := ev.Data[k]
		switch {
		case !ok:
			t.Errorf("%s %s: no %q in %v", ev.Name, ev.Agent, k, ev.Data)
		case w == nil:
			if got == nil || got == "" || got == 0 {
				t.Errorf("%s %s: %q empty in %v", ev.Name, ev.Agent, k, ev.Data)
			}
		case fmt.Sprint(got) != fmt.Sprint(w):
			t.Errorf("%s %s: %q = %v, want %v", ev.Name, ev.Agent, k, got, w)
		}
	}
	if ev.Time.IsZero() {
		t.Errorf("%s %s: no time", ev.Name, ev.Agent)
	}
}

// TestCronTickQueuesTask: a cron entry fires when the (fake) clock
// reaches its time, not before; its prompt reaches the agent, and
// cron:tick and task:done name the task, kind and source.
func TestCronTickQueuesTask(t *testing.T) {
	h := newHarness(t, nil)
	e, err := schedule.ParseCron("*/5 * * * *", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	e.Prompt = "hello from cron"
	s := employee(t, "reporter", schedule.Spec{Cron: []schedule.Cron{e}})
	h.m.Sync([]Spec{s})
	h.wait("process:start", "reporter")
	h.clk.WaitPending(1)
	due := t0.Add(5 * time.Minute)
	if d, _ := h.clk.NextDue(); !d.Equal(due) {
		t.Fatalf("first cron tick due %v, want %v", d, due)
	}
	if st := h.m.Status()[0]; st.NextTick == nil || !st.NextTick.Equal(due) {
		t.Fatalf("status next tick %v, want %v", st.NextTick, due)
	}
	h.clk.Advance(5*time.Minute - time.Second)
	if d, ok := h.clk.NextDue(); !ok || !d.Equal(due) {
		t.Fatalf("the tick fired early (next due %v %v)", d, ok)
	}
	h.clk.Advance(time.Second)
	tick := h.wait("cron:tick", "reporter")
	wantData(t, tick, map[string]any{"task": 1, "kind": "cron", "source": "cron[0]"})
	if !tick.Time.Equal(due) {
		t.Errorf("cron:tick at %v, want %v", tick.Time, due)
	}
	wantData(t, h.wait("task:done", "reporter"), map[string]any{"task": 1, "kind": "cron", "source": "cron[0]"})
	if lines := h.promptLines(); len(lines) != 1 || lines[0][1] != "hello from cron" {
		t.Fatalf("prompts = %q, want the cron prompt once", lines)
	}
	h.clk.WaitPending(1)
	if d, _ := h.clk.NextDue(); !d.Equal(t0.Add(10 * time.Minute)) {
		t.Fatalf("next cron tick due %v, want 09:10", d)
	}
	sums, err := tasklog.Summaries(s.LogsDir)
	if err != nil || len(sums) != 1 || sums[0].Kind != "cron" || sums[0].Source != "cron[0]" || sums[0].StopReason != "end_turn" {
		t.Fatalf("summaries = %+v, %v", sums, err)
	}
}

// TestRuntimeEventsOnce: every runtime event fires once per occurrence,
// with its payload.
func TestRuntimeEventsOnce(t *testing.T) {
	h := newHarness(t, nil)
	e, err := schedule.ParseCron("*/5 * * * *", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	e.Prompt = "hello"
	emp := employee(t, "emp", schedule.Spec{Heartbeat: &schedule.Heartbeat{Interval: 7 * time.Minute, Seed: "x"}, Cron: []schedule.Cron{e}})
	h.m.Sync([]Spec{emp, service(t, "svc")})
	start := h.wait("process:start", "emp")
	wantData(t, start, map[string]any{"pid": nil, "state": "running", "restarts": 0})
	pid := h.wait("process:start", "svc").Data["pid"].(int)

	h.clk.WaitPending(1)
	h.clk.Set(t0.Add(5 * time.Minute)) // cron
	wantData(t, h.wait("cron:tick", "emp"), map[string]any{"task": 1, "kind": "cron", "source": "cron[0]"})
	wantData(t, h.wait("task:done", "emp"), map[string]any{"task": 1, "kind": "cron", "source": "cron[0]"})
	if ev := h.wait("idle", "emp"); ev.Data != nil {
		t.Errorf("idle data %v", ev.Data)
	}
	h.clk.WaitPending(1)
	h.clk.Set(t0.Add(7 * time.Minute)) // heartbeat
	wantData(t, h.wait("heartbeat:tick", "emp"), map[string]any{"task": 2, "kind": "heartbeat", "source": "heartbeat"})
	wantData(t, h.wait("task:done", "emp"), map[string]any{"task": 2, "kind": "heartbeat", "source": "heartbeat"})
	h.wait("idle", "emp")
	if o, _ := h.m.Prompt(context.Background(), "emp", "refuse", true, nil); o.Error == "" {
		t.Fatalf("a refused turn did not fail: %+v", o)
	}
	wantData(t, h.wait("task:failed", "emp"), map[string]any{"task": 3, "kind": "prompt", "error": "the turn ended: refusal"})
	h.wait("idle", "emp")

	o, err := h.m.Prompt(context.Background(), "svc", "hello", true, nil)
	if err != nil || o.SessionID == "" {
		t.Fatalf("prompt to svc: %+v %v", o, err)
	}
	wantData(t, h.wait("session:end", "svc"), map[string]any{"sessionId": o.SessionID, "task": 1})
	if err := kill(pid); err != nil {
		t.Fatal(err)
	}
	wantData(t, h.wait("process:crash", "svc"), map[string]any{"pid": pid, "state": "backoff", "backoff": "1s", "error": nil, "restarts": 0})
	h.clk.WaitPending(2) // the backoff and emp's schedule
	h.clk.Advance(time.Second)
	re := h.wait("process:start", "svc")
	wantData(t, re, map[string]any{"pid": nil, "state": "running", "restarts": 1})
	wantData(t, h.wait("process:restart", "svc"), map[string]any{"pid": re.Data["pid"], "state": "running", "restarts": 1})
	if _, err := h.m.Stop(context.Background(), "svc"); err != nil {
		t.Fatal(err)
	}
	wantData(t, h.wait("process:stop", "svc"), map[string]any{"pid": re.Data["pid"], "state": "stopped", "restarts": 1})

	h.drain()
	count := func(agent string) map[string]int {
		n := map[string]int{}
		for _, ev := range h.seenOf(agent) {
			n[ev.Name]++
		}
		return n
	}
	want := map[string]map[string]int{
		"emp": {"process:start": 1, "cron:tick": 1, "heartbeat:tick": 1, "task:done": 2, "task:failed": 1, "idle": 3,
			"prompt:before": 3, "prompt:after": 3, "error": 1, "user:prompt": 1, "session:start": 1},
		"svc": {"process:start": 2, "session:start": 3, "session:end": 1, "process:crash": 1, "process:restart": 1, "process:stop": 1,
			"prompt:before": 1, "prompt:after": 1, "user:prompt": 1},
	}
	for agent, w := range want {
		if got := count(agent); fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("%s: events %v, want %v", agent, got, w)
		}
	}
}

// TestConfigChangeRestartsBetweenTasks: a changed digest during a turn
// restarts the employee only once that turn ended (it ends normally, on
// the old process); the task queued behind it runs on the new process.
func TestConfigChangeRestartsBetweenTasks(t *testing.T) {
	h := newHarness(t, nil)
	s := employee(t, "worker", schedule.Spec{})
	h.m.Sync([]Spec{s})
	pid1 := h.wait("process:start", "worker").Data["pid"].(int)
	long := h.hold("worker")
	s.Digest = "2"
	h.m.Sync([]Spec{s})
	next, err := h.m.Prompt(context.Background(), "worker", "session", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st := h.m.Status()[0]; st.Pid != pid1 || st.State != "running" {
		t.Fatalf("restarted during the turn: %+v", st)
	}
	o := long.release(t)
	if o.Error != "" || o.StopReason != "end_turn" || o.SessionID != fmt.Sprintf("sess-%d-1", pid1) {
		t.Fatalf("the running turn was cut short: %+v", o)
	}
	done1 := h.wait("task:done", "worker")
	stop := h.wait("process:stop", "worker")
	pid2 := h.wait("process:start", "worker").Data["pid"].(int)
	done2 := h.wait("task:done", "worker")
	if done1.Data["task"] != o.Task || done2.Data["task"] != next.Task || pid2 == pid1 {
		t.Fatalf("order: %v %v %v pid %d -> %d", done1.Data, stop.Data, done2.Data, pid1, pid2)
	}
	lines := h.promptLines()
	if len(lines) != 2 || lines[0][0] != o.SessionID || lines[1][1] != "session" ||
		!strings.HasPrefix(lines[1][0], fmt.Sprintf("sess-%d-", pid2)) {
		t.Fatalf("prompts %q: want the second on the new process %d", lines, pid2)
	}
}

// TestHeartbeatsCoalesceWhileTaskRuns: ticks that come due while a task
// runs queue one heartbeat task, and a jump over several intervals is one
// tick, not one per interval.
func TestHeartbeatsCoalesceWhileTaskRuns(t *testing.T) {
	h := newHarness(t, nil)
	s := employee(t, "hb", schedule.Spec{Heartbeat: &schedule.Heartbeat{Interval: 10 * time.Minute, Seed: "x"}})
	h.m.Sync([]Spec{s})
	h.wait("process:start", "hb")
	long := h.hold("hb")
	step := func(d time.Duration, coalesced bool) {
		t.Helper()
		h.clk.WaitPending(1)
		h.clk.Advance(d)
		ev := h.wait("heartbeat:tick", "hb")
		if ev.Data["task"] != uint64(2) || (ev.Data["coalesced"] == true) != coalesced {
			t.Fatalf("tick after %v: %v, want task 2 coalesced %v", d, ev.Data, coalesced)
		}
	}
	step(10*time.Minute, false)
	step(10*time.Minute, true)
	step(10*time.Minute, true)
	step(35*time.Minute, true) // three intervals passed: one tick
	h.clk.WaitPending(1)
	if d, _ := h.clk.NextDue(); !d.Equal(t0.Add(70 * time.Minute)) {
		t.Fatalf("next heartbeat due %v, want the next interval after now (10:10)", d)
	}
	if st := h.m.Status()[0]; st.Queued != 1 || st.Running != 1 {
		t.Fatalf("status %+v, want task 1 running and one heartbeat queued", st)
	}
	if o := long.release(t); o.Error != "" {
		t.Fatalf("held turn: %+v", o)
	}
	h.wait("idle", "hb")
	h.drain()
	var ticks, done int
	for _, ev := range h.seenOf("hb") {
		switch ev.Name {
		case "heartbeat:tick":
			ticks++
		case "task:done":
			done++
		}
	}
	if ticks != 4 || done != 2 {
		t.Fatalf("%d ticks, %d tasks done; want 4 and 2 (the held one, one heartbeat)", ticks, done)
	}
	if lines := h.promptLines(); len(lines) != 2 || !strings.Contains(lines[1][1], schedule.HeartbeatFile) {
		t.Fatalf("prompts %q: want the held one and one heartbeat", lines)
	}
}

// TestPromptNoWait: without wait, a prompt to an employee returns its
// task id at once, queued behind the running task; Status shows both.
func TestPromptNoWait(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{employee(t, "worker", schedule.Spec{})})
	h.wait("process:start", "worker")
	long := h.hold("worker")
	var ids []uint64
	for _, p := range []string{"hello", "session"} {
		o, err := h.m.Prompt(context.Background(), "worker", p, false, nil)
		if err != nil || !o.Queued || o.StopReason != "" {
			t.Fatalf("prompt %q: %+v %v", p, o, err)
		}
		ids = append(ids, o.Task)
	}
	if ids[0] != 2 || ids[1] != 3 {
		t.Fatalf("task ids %v, want 2 and 3 (behind the running 1)", ids)
	}
	if st := h.m.Status()[0]; st.Running != 1 || st.Queued != 2 {
		t.Fatalf("status %+v, want task 1 running, 2 queued", st)
	}
	long.release(t)
	for _, id := range append([]uint64{1}, ids...) {
		if ev := h.wait("task:done", "worker"); ev.Data["task"] != id {
			t.Fatalf("task:done %v, want task %d (in queue order)", ev.Data, id)
		}
	}
	h.wait("idle", "worker")
	if st := h.m.Status()[0]; st.Running != 0 || st.Queued != 0 {
		t.Fatalf("status %+v after the queue ran empty", st)
	}
	if n := len(h.promptLines()); n != 3 {
		t.Fatalf("%d prompts reached the agent, want 3", n)
	}
}

// TestConfigChangeWaitsForServiceTurn: a service restarts for a config
// change only once its running session's turn ended.
func TestConfigChangeWaitsForServiceTurn(t *testing.T) {
	h := newHarness(t, nil)
	s := service(t, "api")
	h.m.Sync([]Spec{s})
	pid1 := h.wait("process:start", "api").Data["pid"].(int)
	long := h.hold("api")
	s.Digest = "2"
	h.m.Sync([]Spec{s})
	o := long.release(t)
	if o.Error != "" || o.StopReason != "end_turn" || !strings.HasPrefix(o.SessionID, fmt.Sprintf("sess-%d-", pid1)) {
		t.Fatalf("the running turn was cut short: %+v", o)
	}
	end := h.wait("session:end", "api")
	stop := h.wait("process:stop", "api")
	pid2 := h.wait("process:start", "api").Data["pid"].(int)
	if end.Data["sessionId"] != o.SessionID || stop.Data["pid"] != pid1 || pid2 == pid1 {
		t.Fatalf("session:end %v, process:stop %v, new pid %d", end.Data, stop.Data, pid2)
	}
	after, err := h.m.Prompt(context.Background(), "api", "session", true, nil)
	if err != nil || !strings.HasPrefix(after.SessionID, fmt.Sprintf("sess-%d-", pid2)) {
		t.Fatalf("prompt after the restart: %+v %v", after, err)
	}
}
