package up

import "github.com/actctl/actctl/schedule"

// StatusOf returns one agent's state (an unknown agent: an error naming
// those that run).
func (m *Manager) StatusOf(agent string) (AgentStatus, error) {
	a, err := m.agent(agent)
	if err != nil {
		return AgentStatus{}, err
	}
	return a.status(), nil
}

// Queue returns an employee's task running (if any) and those waiting,
// in order; nil for a service.
func (m *Manager) Queue(agent string) (running *schedule.Task, waiting []schedule.Task, err error) {
	a, err := m.agent(agent)
	if err != nil || a.queue == nil {
		return nil, nil, err
	}
	if t, ok := a.queue.Running(); ok {
		running = &t
	}
	return running, a.queue.Pending(), nil
}

// Upcoming returns an employee's next n ticks (none while its schedule
// is paused or for a service).
func (m *Manager) Upcoming(agent string, n int) ([]schedule.Tick, error) {
	a, err := m.agent(agent)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	s := a.sched
	a.mu.Unlock()
	if s == nil {
		return nil, nil
	}
	return s.Upcoming(n), nil
}

// SourceDashboard is the task log's source of a person's prompt from the
// dashboard (docs/json.md).
const SourceDashboard = "dashboard"
