package up

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/model"
	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/supervise"
)

// Every turn has a deadline (docs/runtime.md, "Turns"): at its
// turnTimeout the turn is cancelled; when the cancelled turn has not
// ended a grace later, the process group is ended and the supervisor
// restarts it by its restart policy. A turn with no update from the agent
// for stallAfter is shown as stalled (status, task:stalled) before that.

// turnWatch is one running turn as the watchdog sees it.
type turnWatch struct {
	task   schedule.Task
	source string
	run    *taskRun
	cancel context.CancelCauseFunc
	// limit is the turn's deadline from its start; stall how long it may
	// go without an update.
	limit, stall time.Duration
}

// deadlineError ends a turn at its deadline: the turn's error, in the
// task log's summary and task:failed.
type deadlineError struct {
	limit  time.Duration
	killed atomic.Bool // its process was ended after the grace
}

func (e *deadlineError) Error() string {
	msg := fmt.Sprintf("ended by its deadline: the turn did not end within %s (turnTimeout) and was cancelled", e.limit)
	if e.killed.Load() {
		msg += "; it did not end within the grace either, so its process was ended (restarted by its restart policy)"
	}
	return msg
}

// watch starts the watchdog of one turn; stop ends it (the turn ended)
// and returns once it has.
func (a *agent) watch(t schedule.Task, source string, run *taskRun, cancel context.CancelCauseFunc) (stop func()) {
	a.mu.Lock()
	w := turnWatch{task: t, source: source, run: run, cancel: cancel, limit: a.spec.TurnTimeout, stall: a.spec.StallAfter}
	a.mu.Unlock()
	if w.limit <= 0 {
		w.limit = model.DefaultTurnTimeout
	}
	if w.stall <= 0 {
		w.stall = model.DefaultStallAfter
	}
	run.begin(a.m.opts.Clock, t, source, w.limit, w.stall)
	done, over := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(over)
		a.watchdog(w, done)
	}()
	return func() {
		close(done)
		<-over
	}
}

// watchdog waits for the turn's deadline (done: the turn ended first),
// reporting each stall on the way: one timer at a time, armed for the
// next moment something could be due.
func (a *agent) watchdog(w turnWatch, done <-chan struct{}) {
	clk := a.m.opts.Clock
	start := clk.Now()
	deadline, check := start.Add(w.limit), start.Add(w.stall)
	var reported time.Time
	for {
		if !a.sleepUntil(earlier(deadline, check), done) {
			return
		}
		now := clk.Now()
		if !now.Before(deadline) {
			a.deadline(w, done)
			return
		}
		last := w.run.lastUpdate()
		if now.Sub(last) < w.stall {
			check = last.Add(w.stall)
			continue
		}
		if !last.Equal(reported) {
			reported = last
			a.stalled(w, last, now)
		}
		check = now.Add(w.stall)
	}
}

// earlier is the earlier of two times.
func earlier(x, y time.Time) time.Time {
	if y.Before(x) {
		return y
	}
	return x
}

// sleepUntil waits on the clock until at; false when done came first.
func (a *agent) sleepUntil(at time.Time, done <-chan struct{}) bool {
	clk := a.m.opts.Clock
	t := clk.NewTimer(at.Sub(clk.Now()))
	select {
	case <-done:
		t.Stop()
		return false
	case <-t.C():
		return true
	}
}

// stalled reports a turn with no update from the agent since last.
func (a *agent) stalled(w turnWatch, last, now time.Time) {
	a.m.opts.Logf("%s: task %d stalled: no update from the agent for %s (its deadline, turnTimeout, is %s after its start)",
		a.name, w.task.ID, now.Sub(last).Round(time.Second), w.limit)
	data := map[string]any{"task": w.task.ID, "kind": string(w.task.Kind), "since": last}
	if w.source != "" {
		data["source"] = w.source
	}
	a.m.opts.Publish(hooks.Event{Name: model.EventTaskStalled, Agent: a.name, Time: now, Data: data, Chain: chainOf(w.task)})
}

// deadline ends a turn at its deadline: it is cancelled, and when it has
// not ended the grace later its process is killed: not drained, so the
// supervisor takes it as a crash and restarts it by its policy.
func (a *agent) deadline(w turnWatch, done <-chan struct{}) {
	a.m.opts.Logf("%s: task %d: the turn did not end within %s (turnTimeout): cancelling it", a.name, w.task.ID, w.limit)
	cause := &deadlineError{limit: w.limit}
	w.cancel(cause)
	if !a.sleepUntil(a.m.opts.Clock.Now().Add(a.m.grace()), done) {
		return
	}
	cause.killed.Store(true)
	a.m.opts.Logf("%s: task %d: the cancelled turn did not end within %s: ending its process group", a.name, w.task.ID, a.m.grace())
	a.mu.Lock()
	c := a.client
	a.mu.Unlock()
	if c != nil {
		_ = c.Kill()
	}
}

// settle follows a turn its deadline ended: when its process was ended
// (by the deadline, or by the client at the cancel's grace), the next
// turn must find it gone, not prompt the dead one, so settle waits until
// it has exited and the supervisor has seen it end; a process that
// answered the cancel and lives is waited for at most the grace.
func (a *agent) settle(c *acpclient.Client) {
	clk := a.m.opts.Clock
	t := clk.NewTimer(a.m.grace())
	defer t.Stop()
	select {
	case <-c.Done():
	case <-t.C():
		return
	}
	for {
		a.mu.Lock()
		ch := a.changed
		a.mu.Unlock()
		if st := a.sup.Status(); st.State != supervise.Running || st.Pid != c.Pid() {
			return // the supervisor has seen it end
		}
		<-ch
	}
}
