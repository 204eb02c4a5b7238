package up

import (
	"context"
	"fmt"
	"time"

	"github.com/actctl/actctl/acpclient"
)

// Nothing up does waits forever (docs/runtime.md, "actctl up"): a restart
// waits for the running turn at most the turn grace, then cancels it,
// then, after the grace, kills the process.

// grace is how long a cancelled turn gets before its process is killed.
func (m *Manager) grace() time.Duration {
	if m.opts.Grace > 0 {
		return m.opts.Grace
	}
	return acpclient.DefaultGrace
}

// bound waits until ended is closed (or receives), the running turn
// having ended, or ctx ends. After the turn grace it cancels the
// agent's running turns, saying why; after the grace more it kills the
// process. why names what is waiting ("restart", "config changed").
func (a *agent) bound(ctx context.Context, ended <-chan struct{}, why string) {
	m := a.m
	wait := func(d time.Duration) bool {
		select {
		case <-ended:
			return true
		default:
		}
		t := m.opts.Clock.NewTimer(d)
		defer t.Stop()
		select {
		case <-ended:
			return true
		case <-ctx.Done():
			return true
		case <-t.C():
		}
		select { // ended with the timer: it ended
		case <-ended:
			return true
		default:
			return false
		}
	}
	if wait(m.opts.TurnGrace) {
		return
	}
	m.opts.Logf("%s: %s: the running turn did not end within %s: cancelling it", a.name, why, m.opts.TurnGrace)
	_ = a.sup.Drain(ctx) // the process's end is a stop, not a crash
	a.cancelTurns(fmt.Errorf("%s: the turn did not end within %s", why, m.opts.TurnGrace))
	if wait(m.grace()) {
		return
	}
	m.opts.Logf("%s: %s: the cancelled turn did not end within %s: killing the process", a.name, why, m.grace())
	a.mu.Lock()
	c := a.client
	a.mu.Unlock()
	if c != nil {
		_ = c.Kill()
	}
	select {
	case <-ended:
	case <-ctx.Done():
	}
}

// lockGate takes the gate exclusively (no turn runs while it is held),
// bounded as bound says; it returns ctx's cause when ctx ends first.
func (a *agent) lockGate(ctx context.Context, why string) (unlock func(), err error) {
	if a.gate.TryLock() {
		return a.gate.Unlock, nil
	}
	a.m.opts.Logf("%s: %s: waiting for the running turn to end (at most %s)", a.name, why, a.m.opts.TurnGrace)
	got := make(chan struct{})
	go func() {
		a.gate.Lock()
		close(got)
	}()
	a.bound(ctx, got, why)
	select {
	case <-got:
		return a.gate.Unlock, nil
	default:
	}
	go func() {
		<-got
		a.gate.Unlock()
	}()
	return nil, context.Cause(ctx)
}

// addTurn registers a running turn's cancel function until done.
func (a *agent) addTurn(run *taskRun, cancel context.CancelCauseFunc) (done func()) {
	a.mu.Lock()
	if a.turns == nil {
		a.turns = map[*taskRun]context.CancelCauseFunc{}
	}
	a.turns[run] = cancel
	if a.cancelNext != 0 && a.cancelNext == run.task { // cancelled between the queue and here
		a.cancelNext = 0
		cancel(ErrCancelledByUser)
	}
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		delete(a.turns, run)
		a.mu.Unlock()
	}
}

// cancelTurns cancels every running turn with cause.
func (a *agent) cancelTurns(cause error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, cancel := range a.turns {
		cancel(cause)
	}
}
