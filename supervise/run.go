package supervise

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// loop is Run's state; only Run's goroutine touches it. It owns what the
// Machine decides about: the process, the start under way, the timer and
// the requests waiting for a stop.
type loop struct {
	s        *Supervisor
	m        *Machine
	proc     Process
	starting context.CancelCauseFunc // set while a start is under way
	started  chan startResult
	timer    clock.Timer
	waiters  []chan error
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
		l.timer = nil
		l.handle(InTimer, nil)
	}
	return true
}

func (l *loop) now() time.Time { return l.s.clock.Now() }

func (l *loop) request(r request) {
	in := r.in
	if in == InStop || in == InRestart {
		l.waiters = append(l.waiters, r.reply) // answered once stopped
	}
	a := l.handle(in, nil)
	switch {
	case a.Refuse:
		r.reply <- fmt.Errorf("%s is stopping; start it again once it has stopped", l.s.name)
	case in == InStart || in == InDrain:
		r.reply <- nil
	}
}

func (l *loop) onStarted(res startResult) {
	l.starting(nil)
	l.starting = nil
	if res.err != nil {
		l.lastErr = res.err
		l.handle(InStartFailed, res.err)
		return
	}
	l.proc = res.p
	l.handle(InUp, nil)
}

func (l *loop) onExit() {
	err, in := l.proc.Err(), InExit
	if err == nil {
		err, in = errors.New("exited with status 0"), InExitOK
	}
	l.handle(in, err)
	l.proc = nil
}

// handle feeds an input to the machine and does what it says; err is the
// exit or start error a crash reports.
func (l *loop) handle(in Input, err error) Action {
	_, a := l.m.Handle(in, l.now())
	l.do(a, err)
	return a
}

// do carries out an action, in the order Action documents.
func (l *loop) do(a Action, err error) {
	if a.Disarm {
		l.cancelTimer()
	}
	if a.CancelStart && l.starting != nil {
		var cause error
		if a.TimedOut {
			cause = fmt.Errorf("no answer within %s, the start bound", l.s.policy.StartTimeout)
		}
		l.starting(cause)
	}
	if a.Arm != NoTimer {
		l.arm(a.Arm, a.Delay)
	}
	for _, e := range a.Emit {
		if e.Name == EventCrash {
			l.lastErr = err
			l.emit(e, err)
			continue
		}
		l.emit(e, nil)
	}
	if a.Launch {
		l.launch()
	}
	if a.Terminate {
		if l.proc.Terminate() != nil {
			l.handle(InTermFailed, nil)
		}
	}
	if a.Kill && l.proc != nil {
		l.proc.Kill()
	}
	if a.Answer {
		l.publish()
		for _, w := range l.waiters {
			w <- nil
		}
		l.waiters = nil
	}
}

// launch starts a process in the background; its result comes back to
// step.
func (l *loop) launch() {
	ctx, cancel := context.WithCancelCause(context.Background())
	l.starting = cancel
	go func() {
		p, err := l.s.starter.Start(ctx)
		l.started <- startResult{p, err}
	}()
}

// arm sets the timer. A backoff is published with its restart time
// before the timer exists: whoever sees the timer sees when it is due.
func (l *loop) arm(t Timer, d time.Duration) {
	l.cancelTimer()
	if t == BackoffTimer {
		l.s.mu.Lock()
		l.s.status.NextStart = l.now().Add(d)
		l.s.mu.Unlock()
		l.publish()
	}
	l.timer = l.s.clock.NewTimer(d)
}

func (l *loop) cancelTimer() {
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
}

// shutdown stops the process and waits for it, answering further
// requests with ErrNotRunning.
func (l *loop) shutdown() {
	reply := make(chan error, 1)
	l.waiters = append(l.waiters, reply)
	l.handle(InShutdown, nil)
	l.publish()
	for len(reply) == 0 {
		l.step(nil, nil)
		l.publish()
	}
}

// emit reports a lifecycle event to the observer, the status first.
func (l *loop) emit(e Emit, err error) {
	ev := Event{Name: e.Name, Agent: l.s.name, State: e.State, Err: err, Restarts: l.m.Restarts(), Delay: e.Delay,
		Time: l.now(), Restarting: e.Restarting}
	if l.proc != nil {
		ev.Pid = l.proc.Pid()
	}
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
