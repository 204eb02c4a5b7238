package supervise

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// loop is Run's state; only Run's goroutine touches it.
type loop struct {
	s        *Supervisor
	m        *Machine
	proc     Process
	starting context.CancelCauseFunc // set while a start is under way
	started  chan startResult
	restart  bool // the start under way is a restart
	draining bool // an exit is a stop (Drain)
	timer    clock.Timer
	timerFor string // "backoff", "grace" or "start"
	waiters  []chan error
	then     bool // start again once stopped (a restart request)
	lastErr  error
}

type startResult struct {
	p   Process
	err error
}

// Run supervises until ctx is done, then stops the process (grace, then
// the group is killed) and returns ctx's error. The process is not
// started until Start is called.
func (s *Supervisor) Run(ctx context.Context) error {
	l := &loop{s: s, m: NewMachine(s.policy), started: make(chan startResult, 1)}
	defer close(s.quit)
	for l.step(s.reqs, ctx.Done()) {
		l.publish()
	}
	l.shutdown()
	return ctx.Err()
}

// step waits for one thing to happen and handles it; it returns false
// when stop is closed.
func (l *loop) step(reqs <-chan request, stop <-chan struct{}) bool {
	var done <-chan struct{}
	if l.proc != nil {
		done = l.proc.Done()
	}
	var tc <-chan time.Time
	if l.timer != nil {
		tc = l.timer.C()
	}
	select {
	case <-stop:
		return false
	case r := <-reqs:
		l.request(r)
	case res := <-l.started:
		l.onStarted(res)
	case <-done:
		l.onExit()
	case <-tc:
		l.onTimer()
	}
	return true
}

func (l *loop) now() time.Time { return l.s.clock.Now() }

func (l *loop) request(r request) {
	switch r.op {
	case "start":
		if l.m.State() == Stopping {
			r.reply <- fmt.Errorf("%s is stopping; start it again once it has stopped", l.s.name)
			return
		}
		l.cancelTimer()
		if l.m.Start(l.now()) {
			l.launch(false)
		}
		r.reply <- nil
	case "stop":
		l.stop(r.reply, false)
	case "restart":
		l.stop(r.reply, true)
	case "drain":
		l.draining = true
		if l.m.State() == Backoff { // no restart is coming
			l.cancelTimer()
			l.m.Stop()
		}
		r.reply <- nil
	}
}

// stop stops the process; reply gets the result once it is stopped (and,
// with then, once it is starting again).
func (l *loop) stop(reply chan error, then bool) {
	l.then = l.then || then
	l.waiters = append(l.waiters, reply)
	if !l.m.Stop() {
		if l.m.State() == Stopping {
			return // already on its way
		}
		l.cancelTimer()
		l.stopped()
		return
	}
	if l.starting != nil {
		l.starting(nil) // onStarted finishes the stop
		return
	}
	l.terminate()
}

func (l *loop) terminate() {
	l.cancelTimer()
	if err := l.proc.Terminate(); err != nil {
		l.proc.Kill()
		return
	}
	l.arm("grace", l.s.policy.Grace)
}

// stopped starts again after a restart, then answers the stop requests
// with the status already showing it: whoever waited for a restart must
// not see the agent stopped.
func (l *loop) stopped() {
	if l.then {
		l.then = false
		if l.m.Start(l.now()) {
			l.launch(true)
		}
	}
	l.publish()
	for _, w := range l.waiters {
		w <- nil
	}
	l.waiters = nil
}

// launch starts a process, bounded by the policy's StartTimeout.
func (l *loop) launch(restart bool) {
	ctx, cancel := context.WithCancelCause(context.Background())
	l.starting, l.restart, l.draining = cancel, restart, false
	if d := l.s.policy.StartTimeout; d > 0 {
		l.arm("start", d)
	}
	go func() {
		p, err := l.s.starter.Start(ctx)
		l.started <- startResult{p, err}
	}()
}

func (l *loop) onStarted(res startResult) {
	l.starting(nil)
	l.starting = nil
	if l.timerFor == "start" {
		l.cancelTimer()
	}
	if res.err != nil {
		l.lastErr = res.err
		l.exited(res.err)
		return
	}
	l.proc = res.p
	if l.m.State() == Stopping {
		l.terminate()
		return
	}
	l.m.Started(l.now())
	l.emit(EventStart, nil, 0)
	if l.restart {
		l.emit(EventRestart, nil, 0)
	}
}

func (l *loop) onExit() {
	err := l.proc.Err()
	if err == nil {
		err = errors.New("exited with status 0")
	}
	l.cancelTimer()
	l.exited(err)
	l.proc = nil
}

// exited feeds an exit (or a failed start) to the machine; while
// draining it is a stop.
func (l *loop) exited(err error) {
	if l.draining {
		l.m.Stop()
	}
	state, wait := l.m.Exited(l.now())
	if state == Stopped {
		l.emitStop()
		l.stopped()
		return
	}
	l.lastErr = err
	if state == Backoff {
		l.arm("backoff", wait) // first: the event's status has the restart time
	}
	l.emit(EventCrash, err, wait)
}

func (l *loop) onTimer() {
	l.timer = nil
	switch l.timerFor {
	case "backoff":
		if l.m.BackoffDone(l.now()) {
			l.launch(true)
		}
	case "grace":
		if l.proc != nil {
			l.proc.Kill()
		}
	case "start":
		if l.starting != nil {
			l.starting(fmt.Errorf("no answer within %s, the start bound", l.s.policy.StartTimeout))
		}
	}
}

// arm sets the timer. A backoff is published with its restart time
// before the timer exists: whoever sees the timer sees when it is due.
func (l *loop) arm(what string, d time.Duration) {
	l.cancelTimer()
	if what == "backoff" {
		l.s.mu.Lock()
		l.s.status.NextStart = l.now().Add(d)
		l.s.mu.Unlock()
		l.publish()
	}
	l.timer, l.timerFor = l.s.clock.NewTimer(d), what
}

func (l *loop) cancelTimer() {
	if l.timer != nil {
		l.timer.Stop()
		l.timer, l.timerFor = nil, ""
	}
}

// shutdown stops the process and waits for it, answering further
// requests with ErrNotRunning.
func (l *loop) shutdown() {
	reply := make(chan error, 1)
	l.then = false
	l.stop(reply, false)
	l.publish()
	for len(reply) == 0 {
		l.step(nil, nil)
		l.publish()
	}
}

func (l *loop) emit(name string, err error, delay time.Duration) {
	l.observe(l.event(name, err, delay))
}

// emitStop emits process:stop, marked Restarting when a start follows.
func (l *loop) emitStop() {
	ev := l.event(EventStop, nil, 0)
	ev.Restarting = l.then
	l.observe(ev)
}

func (l *loop) event(name string, err error, delay time.Duration) Event {
	ev := Event{Name: name, Agent: l.s.name, State: l.m.State(), Err: err, Restarts: l.m.Restarts(), Delay: delay, Time: l.now()}
	if l.proc != nil {
		ev.Pid = l.proc.Pid()
	}
	return ev
}

func (l *loop) observe(ev Event) {
	l.publish()
	l.s.observe(ev)
}

// publish copies the loop's view into the status snapshot.
func (l *loop) publish() {
	st := Status{State: l.m.State(), Restarts: l.m.Restarts(), LastErr: l.lastErr}
	if l.proc != nil {
		st.Pid = l.proc.Pid()
	}
	if st.State == Running {
		st.StartedAt = l.m.StartedAt()
	}
	l.s.mu.Lock()
	if st.State == Backoff {
		st.NextStart = l.s.status.NextStart
	}
	l.s.status = st
	l.s.mu.Unlock()
}
