package up

import (
	"context"
	"fmt"
	"time"

	"github.com/actctl/actctl/supervise"
)

// AgentStatus is one agent's runtime state, for `actctl status`.
type AgentStatus struct {
	Name       string          `json:"name"`
	Archetype  string          `json:"archetype,omitempty"`
	LaunchMode string          `json:"launchMode"`
	State      supervise.State `json:"state"`
	Pid        int             `json:"pid,omitempty"`
	StartedAt  *time.Time      `json:"startedAt,omitempty"`
	UptimeMs   int64           `json:"uptimeMs,omitempty"`
	Restarts   int             `json:"restarts"`
	LastError  string          `json:"lastError,omitempty"`
	NextStart  *time.Time      `json:"nextStart,omitempty"` // in backoff
	NextTick   *time.Time      `json:"nextTick,omitempty"`  // employees
	Queued     int             `json:"queued,omitempty"`
	Running    uint64          `json:"runningTask,omitempty"`
	// Turn is the turn running (an employee's task; of a service's
	// prompts, the one running longest).
	Turn *TurnStatus `json:"turn,omitempty"`
}

// TurnStatus is a running turn, for `actctl status` (docs/runtime.md,
// "Turns").
type TurnStatus struct {
	Task      uint64    `json:"task"`
	Kind      string    `json:"kind"`
	Source    string    `json:"source,omitempty"`
	Started   time.Time `json:"started"`
	ElapsedMs int64     `json:"elapsedMs"`
	// LastUpdate is the agent's last message in the turn (its start
	// until one came); Stalled when that is stallAfter or more ago.
	LastUpdate time.Time `json:"lastUpdate"`
	Stalled    bool      `json:"stalled,omitempty"`
	// Deadline is when the turn is cancelled (its start + turnTimeout).
	Deadline time.Time `json:"deadline"`
}

// Status returns every agent's state, by name.
func (m *Manager) Status() []AgentStatus {
	var out []AgentStatus
	for _, name := range m.Names() {
		if a, err := m.agent(name); err == nil {
			out = append(out, a.status())
		}
	}
	return out
}

func (a *agent) status() AgentStatus {
	st := a.sup.Status()
	a.mu.Lock()
	spec, sched := a.spec, a.sched
	a.mu.Unlock()
	s := AgentStatus{Name: a.name, Archetype: spec.Archetype, LaunchMode: spec.LaunchMode, State: st.State,
		Pid: st.Pid, Restarts: st.Restarts}
	if st.State == supervise.Running && !st.StartedAt.IsZero() {
		t := st.StartedAt
		s.StartedAt = &t
		s.UptimeMs = a.m.opts.Clock.Now().Sub(t).Milliseconds()
	}
	if st.LastErr != nil {
		s.LastError = st.LastErr.Error()
	}
	if !st.NextStart.IsZero() {
		t := st.NextStart
		s.NextStart = &t
	}
	if sched != nil {
		if t := sched.Next(); !t.IsZero() {
			s.NextTick = &t
		}
	}
	if a.queue != nil {
		s.Queued = a.queue.Len()
		if t, ok := a.queue.Running(); ok {
			s.Running = t.ID
		}
	}
	s.Turn = a.currentTurn()
	return s
}

// currentTurn is the agent's running turn that started first, nil when
// none runs.
func (a *agent) currentTurn() *TurnStatus {
	a.mu.Lock()
	runs := make([]*taskRun, 0, len(a.turns))
	for r := range a.turns {
		runs = append(runs, r)
	}
	a.mu.Unlock()
	var cur *TurnStatus
	for _, r := range runs {
		if t, ok := r.status(); ok && (cur == nil || t.Started.Before(cur.Started)) {
			cur = &t
		}
	}
	return cur
}

// Start starts agent (a stopped, crashed or fatal one too) and waits
// until its process is up; it returns the new status.
func (m *Manager) Start(ctx context.Context, agent string) (AgentStatus, error) {
	a, err := m.agent(agent)
	if err != nil {
		return AgentStatus{}, err
	}
	if st := a.sup.Status(); st.State == supervise.Running {
		return a.status(), nil
	}
	n, f := a.counts()
	if err := a.sup.Start(ctx); err != nil {
		return AgentStatus{}, err
	}
	err = a.started(ctx, n, f)
	return a.status(), err
}

// Stop stops agent (SIGTERM, grace, kill of its group); a running turn
// ends with the process.
func (m *Manager) Stop(ctx context.Context, agent string) (AgentStatus, error) {
	a, err := m.agent(agent)
	if err != nil {
		return AgentStatus{}, err
	}
	err = a.sup.Stop(ctx)
	return a.status(), err
}

// Restart restarts agent between two turns and waits until it is up: the
// running turn gets the turn grace, then it is cancelled (see bound).
func (m *Manager) Restart(ctx context.Context, agent string) (AgentStatus, error) {
	a, err := m.agent(agent)
	if err != nil {
		return AgentStatus{}, err
	}
	unlock, err := a.lockGate(ctx, "restart")
	if err != nil {
		return a.status(), fmt.Errorf("restart %s: %w", agent, err)
	}
	n, f := a.counts()
	err = a.sup.Restart(ctx)
	unlock()
	if err == nil {
		err = a.started(ctx, n, f)
	}
	return a.status(), err
}
