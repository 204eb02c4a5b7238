package up

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/supervise"
	"github.com/actctl/actctl/tasklog"
)

// agent is one running agent: its supervisor, the ACP client of its
// current process, and for an employee its task queue and scheduler.
type agent struct {
	m     *Manager
	name  string
	sup   *supervise.Supervisor
	queue *schedule.Queue // employees only
	route router          // the primary session's output, to the running task

	// gate: a turn holds it shared, a restart for a config change holds it
	// exclusively, so a restart waits for the running turn and the next
	// turn waits for the restart.
	gate sync.RWMutex

	mu        sync.Mutex
	spec      Spec
	client    *acpclient.Client // of the current process; nil when none runs
	changed   chan struct{}     // closed (and replaced) on every lifecycle event
	sched     *schedule.Scheduler
	schedEnd  context.CancelFunc
	schedDone chan struct{} // closed when the schedule's Run returned
	paused    bool          // the schedule waits for a start (pauseSchedule)
	// carry is the schedule that ended when the process crashed into
	// backoff: the restart's schedule goes on from its ticks.
	carry  *schedule.Scheduler
	seq    uint64 // ids of service prompts
	starts int    // process:start events so far
	fails  int    // process:crash events so far
	// startFails counts the crashes of starts (no process was up): a
	// prompt waiting for the agent fails on one (running).
	startFails int
	stopSup    context.CancelFunc
	stopQ      context.CancelFunc                   // ends the queue (employees)
	leases     map[string]*leased                   // sessions held for lease clients, by id
	convos     map[string]*convo                    // the dashboard's conversations, by session id (converse.go)
	cancelNext uint64                               // the queue's running task, cancelled before its turn was registered (CancelTask)
	turns      map[*taskRun]context.CancelCauseFunc // the turns running, to cancel

	unlockTask func() // releases the agent's lock (takeLock)
	lockLater  bool   // a limit kept newAgent from taking it (lockAtStart)

	// demand serialises an on-demand agent's starts and stops; opening
	// counts the conversations being opened, under it (ondemand.go).
	demand  sync.Mutex
	opening int
}

func newAgent(m *Manager, s Spec) (*agent, error) {
	a := &agent{m: m, name: s.Name, spec: s, changed: make(chan struct{})}
	policy := supervise.PolicyFor(s.Restart)
	if m.opts.Grace > 0 {
		policy.Grace = m.opts.Grace
	}
	if m.opts.StartTimeout > 0 {
		policy.StartTimeout = m.opts.StartTimeout
	}
	a.sup = supervise.New(s.Name, a, policy, m.opts.Clock, a.observe)
	if s.OnDemand {
		a.lockLater = true // held while its process runs (ondemand.go)
	} else if err := a.takeLock(); errors.As(err, new(*launch.LimitError)) {
		a.lockLater = true // taken at its start, retried with the backoff
	} else if err != nil {
		return nil, err
	}
	if s.employee() {
		if h := s.Schedule.Heartbeat; h != nil {
			if _, err := schedule.SeedHeartbeat(s.Workspace, h.Seed); err != nil {
				a.releaseLock()
				return nil, err
			}
		}
		a.queue = schedule.NewQueue(schedule.ExecutorFunc(a.execute), m.opts.Clock, a.taskEvent)
		a.queue.OnDrop(a.dropped)
	}
	// Task ids continue after the last one logged, so that `actctl logs
	// --task ID` names one task across restarts of up.
	last, err := tasklog.LastID(s.LogsDir)
	if err != nil {
		m.opts.Logf("%s: %v (task ids start at 1)", s.Name, err)
	}
	a.seq = last
	if a.queue != nil {
		a.queue.StartAfter(last)
	}
	return a, nil
}

// run starts the agent's goroutines and its process.
func (a *agent) run() {
	m := a.m
	ctx, cancel := context.WithCancel(m.procCtx)
	a.stopSup = cancel
	m.procs.Add(1)
	go func() {
		defer m.procs.Done()
		_ = a.sup.Run(ctx)
	}()
	if a.queue != nil {
		qctx, stopQ := context.WithCancel(m.taskCtx)
		a.stopQ = stopQ
		m.tasks.Add(1)
		go func() {
			defer m.tasks.Done()
			_ = a.queue.Run(qctx)
		}()
		a.startScheduler(a.spec.Schedule, nil)
	}
	if !a.spec.OnDemand {
		_ = a.sup.Start(ctx)
	}
}

// startScheduler (re)starts the employee's schedule; ticks are computed
// from now, so nothing missed is replayed, unless it carries on from
// the schedule carry (schedule.Carry). The old schedule has ended (its
// timer stopped, no tick of it to come) when it returns.
func (a *agent) startScheduler(spec *schedule.Spec, carry *schedule.Scheduler) {
	m := a.m
	ctx, cancel := context.WithCancel(m.taskCtx)
	s, done := schedule.New(*spec, m.opts.Clock, a.queue, a.taskEvent), make(chan struct{})
	if carry != nil {
		s.Carry(carry)
	}
	a.mu.Lock()
	if a.paused {
		a.mu.Unlock()
		cancel()
		return // resumeSchedule starts it with the spec of the day
	}
	end, ended := a.schedEnd, a.schedDone
	a.sched, a.schedEnd, a.schedDone = s, cancel, done
	a.mu.Unlock()
	if end != nil {
		end()
		<-ended
	}
	m.tasks.Add(1)
	go func() {
		defer m.tasks.Done()
		defer close(done)
		_ = s.Run(ctx)
	}()
}

// update takes a new spec; a changed digest restarts the process between
// two turns (and a fatal or crashed one gets another chance).
func (a *agent) update(s Spec) {
	a.mu.Lock()
	old := a.spec
	a.spec = s
	if old.Digest != s.Digest {
		a.carry = nil // a config change computes its ticks from now
	}
	a.mu.Unlock()
	if old.Digest == s.Digest {
		return
	}
	if s.OnDemand {
		a.stopForChange()
		return
	}
	if s.employee() {
		a.startScheduler(s.Schedule, nil)
	}
	restart := func() {
		unlock, err := a.lockGate(a.m.procCtx, "config changed")
		if err != nil {
			return // up is shutting down
		}
		defer unlock()
		if st := a.sup.Status().State; st == supervise.Stopped {
			return // stopped by a person: a config change does not start it
		}
		a.m.opts.Logf("%s: config changed: restarting", a.name)
		if err := a.sup.Restart(a.m.procCtx); err != nil && !errors.Is(err, context.Canceled) {
			a.m.opts.Logf("%s: restart: %v", a.name, err)
		}
	}
	if a.queue != nil {
		// In the queue, between two tasks: the running one ends on the
		// old process (within the turn grace), the next one runs on the
		// new.
		ended := make(chan struct{})
		a.queue.Between(func() {
			close(ended)
			restart()
		})
		a.m.procs.Add(1)
		go func() {
			defer a.m.procs.Done()
			a.bound(a.m.procCtx, ended, "config changed")
		}()
		return
	}
	a.m.procs.Add(1)
	go func() {
		defer a.m.procs.Done()
		restart()
	}()
}

// sameShape reports whether s can be taken by update: same launch mode
// and restart policy (the supervisor's), and a task queue exactly when
// the agent has one. A new turnTimeout or stallAfter needs neither: the
// next turn takes it.
func (a *agent) sameShape(s Spec) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.spec.LaunchMode == s.LaunchMode && a.spec.Restart == s.Restart && a.spec.employee() == s.employee()
}

// remove stops the agent for good (it left the config).
func (a *agent) remove() {
	_ = a.sup.Drain(a.m.procCtx) // its end is a stop, whatever kills it
	a.mu.Lock()
	if a.schedEnd != nil {
		a.schedEnd()
	}
	a.sched, a.paused = nil, true // gone: no tick, no pause to report
	a.mu.Unlock()
	if a.stopQ != nil {
		a.stopQ() // the running turn is cancelled; waiting tasks fail
	}
	_ = a.sup.Stop(a.m.procCtx)
	a.stopSup()
	a.releaseLock()
}

// Start launches a process for the supervisor; it is up once the ACP
// connection is initialized and the primary session open.
func (a *agent) Start(ctx context.Context) (supervise.Process, error) {
	if err := a.lockAtStart(); err != nil {
		return nil, err
	}
	c, err := a.m.opts.Launch(ctx, a.name, &a.route)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.client = c
	a.mu.Unlock()
	c.AfterDone(func() {
		c.Close()
		a.mu.Lock()
		if a.client == c {
			a.client = nil
		}
		a.mu.Unlock()
	})
	return c, nil
}

// observe records and publishes a lifecycle event.
func (a *agent) observe(ev supervise.Event) {
	a.mu.Lock()
	switch ev.Name {
	case supervise.EventStart:
		a.starts++
	case supervise.EventCrash:
		a.fails++
		if ev.Pid == 0 {
			a.startFails++
		}
	}
	close(a.changed)
	a.changed = make(chan struct{})
	record := a.spec.Record
	a.mu.Unlock()
	if ev.Name == supervise.EventStop || ev.Name == supervise.EventCrash {
		a.unlockOnDemand()
	}
	defer a.followState(ev) // after the event's own log line
	// The record first: whoever reacts to the event or its log line
	// (a hook, `actctl status`) finds the process there.
	if record != "" {
		a.writeRecord(record, ev)
	}
	a.m.settled.poke() // the record changed (Options.Settled)
	data := map[string]any{"state": string(ev.State), "restarts": ev.Restarts}
	if ev.Pid > 0 {
		data["pid"] = ev.Pid
	}
	if ev.Err != nil {
		data["error"] = ev.Err.Error()
	}
	if ev.Delay > 0 {
		data["backoff"] = ev.Delay.String()
	}
	if ev.Name == supervise.EventStop && ev.Pid == 0 {
		// A start stopped before the process was up: no process:start
		// came, so no process:stop goes either.
		a.m.opts.Logf("%s: stopped before it started", a.name)
		return
	}
	if ev.Name == supervise.EventStop || ev.Name == supervise.EventCrash {
		a.m.dropSubscriptions(a.name, ev.Name)
	}
	a.m.opts.Publish(hooks.Event{Name: ev.Name, Agent: a.name, Time: ev.Time, Data: data})
	if ev.Name == supervise.EventStart {
		a.primaryStarted()
	}
	switch ev.Name {
	case supervise.EventCrash:
		a.m.opts.Logf("%s: %s (%s): %v", a.name, ev.Name, ev.State, ev.Err)
	default:
		a.m.opts.Logf("%s: %s pid %d", a.name, ev.Name, ev.Pid)
	}
}

// followState pauses an employee's schedule while its process is down:
// stopped, crashed or fatal (until a person or a config change starts
// it), where every tick would only log a failed task, and in backoff
// (until the restart). A start resumes it: after a restart from backoff
// it goes on from the paused schedule's ticks, so those missed meanwhile
// run once (schedule.Carry); after any other start, ticks are computed
// from then (docs/runtime.md, "Supervision").
func (a *agent) followState(ev supervise.Event) {
	if a.queue == nil || a.m.taskCtx.Err() != nil {
		return // no schedule, or up is shutting down
	}
	switch ev.State {
	case supervise.Backoff:
		a.pauseSchedule(ev.State, true)
	case supervise.Stopped, supervise.Crashed, supervise.Fatal:
		if !ev.Restarting {
			a.pauseSchedule(ev.State, false)
		}
	case supervise.Running:
		if ev.Name == supervise.EventStart {
			a.resumeSchedule()
		}
	}
}

// pauseSchedule ends the running schedule, if any, and waits for it:
// once it returns no tick of it is to come. restarting (backoff) keeps
// it to carry on from; a pause for good drops what was kept.
func (a *agent) pauseSchedule(st supervise.State, restarting bool) {
	a.mu.Lock()
	end, ended, was := a.schedEnd, a.schedDone, a.sched
	if was == nil {
		// Paused already (or removed): a restart that failed for good
		// (fatal) says so and keeps no tick.
		kept := a.carry != nil && !restarting
		if !restarting {
			a.carry = nil
		}
		a.mu.Unlock()
		if kept {
			a.m.opts.Logf("%s: schedule paused: the agent is %s (no tick until it starts again)", a.name, st)
		}
		return
	}
	a.sched, a.schedEnd, a.schedDone, a.paused = nil, nil, nil, true
	if restarting {
		a.carry = was
	}
	a.mu.Unlock()
	end()
	<-ended
	if restarting {
		a.m.opts.Logf("%s: schedule paused: the agent is restarting (ticks due meanwhile run once after the restart)", a.name)
		return
	}
	a.m.opts.Logf("%s: schedule paused: the agent is %s (no tick until it starts again)", a.name, st)
}

// resumeSchedule starts the paused schedule again: from the kept one's
// ticks after a restart from backoff, else from now.
func (a *agent) resumeSchedule() {
	a.mu.Lock()
	if !a.paused || a.sched != nil {
		a.mu.Unlock()
		return
	}
	a.paused = false
	spec, carry := a.spec.Schedule, a.carry
	a.carry = nil
	a.mu.Unlock()
	a.startScheduler(spec, carry)
	if carry != nil {
		a.m.opts.Logf("%s: schedule resumed after the restart", a.name)
		return
	}
	a.m.opts.Logf("%s: schedule resumed", a.name)
}

// writeRecord keeps the agent's runtime record in step: what proxy, run
// and status read to know the agent is held (docs/runtime.md). A process
// that is not running clears the record only where it names that process
// (runrecord.MarkStopped): a stop written late never hides another live one.
func (a *agent) writeRecord(path string, ev supervise.Event) {
	var err error
	if ev.State == supervise.Running && ev.Pid > 0 {
		err = runrecord.MarkRunning(path, ev.Pid)
	} else {
		_, err = runrecord.MarkStopped(path, ev.Pid, string(ev.State))
	}
	if err != nil {
		a.m.opts.Logf("%s: %v", a.name, err)
	}
}

// running waits until the agent has a live process and returns its
// client; an agent that is stopped, crashed or fatal is an error at once,
// and so is a start that fails while it waits (bounded by the start
// timeout): a prompt never waits for an agent that cannot start. A
// process that ended meanwhile (its restart to come) is waited for.
func (a *agent) running(ctx context.Context) (*acpclient.Client, error) {
	a.mu.Lock()
	fails := a.startFails
	a.mu.Unlock()
	for {
		a.mu.Lock()
		c, ch, f := a.client, a.changed, a.startFails
		a.mu.Unlock()
		st := a.sup.Status()
		switch st.State {
		case supervise.Running:
			if c != nil {
				return c, nil
			}
		case supervise.Stopped, supervise.Crashed, supervise.Fatal:
			return nil, a.notRunning(st, "is")
		}
		if f > fails {
			return nil, a.notRunning(st, "did not start; it is")
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// notRunning says that the agent is in st, why, and how to start it.
func (a *agent) notRunning(st supervise.Status, verb string) error {
	msg := fmt.Sprintf("agent %s %s %s", a.name, verb, st.State)
	if st.LastErr != nil {
		msg += ": " + st.LastErr.Error()
	}
	if st.State == supervise.Backoff {
		return errors.New(msg + "; it will be started again")
	}
	if a.onDemand() {
		return errors.New(msg + "; it runs on demand: a new conversation starts it again")
	}
	return errors.New(msg + "; start it with `actctl start " + a.name + "`")
}

// counts returns how many starts and crashes the agent had so far.
func (a *agent) counts() (starts, fails int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.starts, a.fails
}

// started waits for a process start after the given counts: the answer
// to a start or restart request. A crash meanwhile is the error.
func (a *agent) started(ctx context.Context, starts, fails int) error {
	for {
		a.mu.Lock()
		s, f, ch := a.starts, a.fails, a.changed
		a.mu.Unlock()
		if s > starts {
			return nil
		}
		if f > fails {
			st := a.sup.Status()
			msg := fmt.Sprintf("agent %s did not start (%s)", a.name, st.State)
			if st.LastErr != nil {
				msg += ": " + st.LastErr.Error()
			}
			return errors.New(msg)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}
