package up

import (
	"context"
	"errors"
	"fmt"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/supervise"
)

// An on-demand agent (Spec.OnDemand: a repo or tool agent, which up
// never starts by itself; docs/dashboard.md, "Repo and tool agents") has
// no process until a dashboard conversation or a lease (`actctl chat`,
// `proxy --lease`) asks for one: NewConversation and Upgrade start it,
// and once nothing holds it any more (the conversations closed, idle past
// the lease TTL, or ended with the process; the lease connections gone)
// it is stopped. Its lock (takeLock) is held only while its process runs, and
// its restart policy is the caller's ("never": a crash leaves it crashed
// until the next conversation). A config change stops its process
// instead of restarting it: the next conversation starts it anew.

// onDemand reports whether the agent runs on demand.
func (a *agent) onDemand() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.spec.OnDemand
}

// conversing returns the client a new conversation opens its session on,
// and a function to call once the session is held (or was not opened).
// An agent up runs must be running; an on-demand agent is started, and
// is not stopped (letGo) while a conversation is being opened.
func (a *agent) conversing(ctx context.Context) (*acpclient.Client, func(), error) {
	if !a.onDemand() {
		a.mu.Lock()
		c := a.client
		a.mu.Unlock()
		if st := a.sup.Status(); st.State != supervise.Running || c == nil {
			return nil, nil, fmt.Errorf("agent %s is %s: start it to talk with it", a.name, st.State)
		}
		return c, func() {}, nil
	}
	a.demand.Lock()
	a.opening++
	var err error
	if st := a.sup.Status().State; st != supervise.Running && st != supervise.Starting {
		a.m.opts.Logf("%s: a conversation starts its process (on demand)", a.name)
		err = a.sup.Start(ctx)
	}
	a.demand.Unlock()
	opened := func() {
		a.demand.Lock()
		a.opening--
		a.demand.Unlock()
		a.letGo()
	}
	var c *acpclient.Client
	if err == nil {
		c, err = a.running(ctx)
	}
	if err != nil {
		opened()
		if st := a.sup.Status(); st.LastErr != nil && (st.State == supervise.Crashed || st.State == supervise.Fatal) {
			err = st.LastErr // why its start failed, not what the next one does
		}
		return nil, nil, fmt.Errorf("agent %s: up could not start its process on demand: %w", a.name, err)
	}
	return c, opened, nil
}

// leasing returns the process a lease connection is relayed to, and a
// function to call once the connection has ended. An agent up runs must
// be running; an on-demand agent's process is started (conversing) and
// held until then: the connection counts as a conversation being opened.
func (a *agent) leasing(ctx context.Context) (*acpclient.Client, func(), error) {
	if a.onDemand() {
		return a.conversing(ctx)
	}
	a.mu.Lock()
	c := a.client
	a.mu.Unlock()
	if st := a.sup.Status(); st.State != supervise.Running || c == nil {
		return nil, nil, fmt.Errorf("agent %s is %s: there is no warm process to lease (actctl start %s)", a.name, st.State, a.name)
	}
	return c, func() {}, nil
}

// letGo stops an on-demand agent's process once nothing holds it: no
// dashboard conversation, no lease connection, no conversation being
// opened. A lease client's session left idle (its client gone) does not
// hold it: it ends with the process, as a cold chat's does. It returns
// once the process has stopped (the grace at most).
func (a *agent) letGo() {
	if !a.onDemand() {
		return
	}
	a.demand.Lock()
	defer a.demand.Unlock()
	a.mu.Lock()
	held, c := a.opening > 0 || a.holdsSessions(), a.client
	a.mu.Unlock()
	if held || c == nil || ended(c) {
		// Held, or its process ended: a crash stays one. A running
		// agent without a client is one whose process was reaped
		// (Start's AfterDone) before its supervisor said so.
		return
	}
	switch a.sup.Status().State {
	case supervise.Running, supervise.Starting:
	default:
		return
	}
	m := a.m
	m.opts.Logf("%s: no conversation holds it: its process stops", a.name)
	if err := a.sup.Stop(m.procCtx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, supervise.ErrNotRunning) {
		m.opts.Logf("%s: stop: %v", a.name, err)
	}
}

// holdsSessions reports whether a session holds the agent's process: a
// dashboard conversation's (held until closed or idle past the TTL), or
// a lease client's while its client is connected. Under a.mu.
func (a *agent) holdsSessions() bool {
	for _, l := range a.leases {
		l.mu.Lock()
		held := l.owner != nil || l.setup || l.ownerID == dashboardID()
		l.mu.Unlock()
		if held {
			return true
		}
	}
	return false
}

// ended reports whether c's process has ended.
func ended(c *acpclient.Client) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

// stopForChange stops an on-demand agent's process after a config change
// that alters it, between two turns (the running one gets the turn
// grace): its next conversation starts it with the new config.
func (a *agent) stopForChange() {
	m := a.m
	m.procs.Add(1)
	go func() {
		defer m.procs.Done()
		unlock, err := a.lockGate(m.procCtx, "config changed")
		if err != nil {
			return // up is shutting down
		}
		defer unlock()
		a.demand.Lock()
		defer a.demand.Unlock()
		switch a.sup.Status().State {
		case supervise.Running, supervise.Starting:
		default:
			return
		}
		m.opts.Logf("%s: config changed: its process stops (the next conversation starts it anew)", a.name)
		if err := a.sup.Stop(m.procCtx); err != nil && !errors.Is(err, context.Canceled) {
			m.opts.Logf("%s: stop: %v", a.name, err)
		}
	}()
}

// unlockOnDemand releases an on-demand agent's lock when its process
// has stopped or crashed: its next start takes it again (lockAtStart).
func (a *agent) unlockOnDemand() {
	if !a.onDemand() {
		return
	}
	a.releaseLock()
	a.mu.Lock()
	a.lockLater = true
	a.mu.Unlock()
}

// CloseConversation closes conversation id of agent: its session is
// closed (a running turn is cancelled) and, for an on-demand agent that
// nothing else holds, its process stops.
func (m *Manager) CloseConversation(agent, id string) error {
	a, cv, err := m.convoOf(agent, id)
	if err != nil {
		return err
	}
	a.mu.Lock()
	delete(a.convos, id)
	a.mu.Unlock()
	a.drop(cv.l)
	return nil
}
