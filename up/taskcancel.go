package up

import (
	"errors"
	"fmt"

	"github.com/actctl/actctl/schedule"
)

// ErrCancelledByUser is why a task a person cancelled ended (the task
// log's error: "cancelled by the user: the turn was cancelled").
var ErrCancelledByUser = errors.New("cancelled by the user")

// CancelTask cancels task id of agent (docs/runtime.md, "Cancelling a
// task"): a task waiting in an employee's queue is taken out and logged
// as never run; a running one's turn is cancelled (session/cancel, then
// the grace), not the process. An error says when no such task waits or
// runs.
func (m *Manager) CancelTask(agent string, id uint64) error {
	a, err := m.agent(agent)
	if err != nil {
		return err
	}
	if a.queue != nil {
		if _, ok := a.queue.Remove(id, a.cancelledWaiting); ok {
			a.m.opts.Logf("%s: task %d cancelled before it ran", a.name, id)
			return nil
		}
	}
	if a.cancelRunning(id) {
		a.m.opts.Logf("%s: task %d cancelled while it ran", a.name, id)
		return nil
	}
	return fmt.Errorf("%s has no task %d waiting or running (it has ended, or never was)", agent, id)
}

// cancelledWaiting logs a task taken out of the queue before it ran.
func (a *agent) cancelledWaiting(t schedule.Task) {
	run, _ := t.Data.(*taskRun)
	if run == nil {
		run = &taskRun{}
	}
	a.unrun(t, run, fmt.Errorf("%w: the task was cancelled before it ran", ErrCancelledByUser))
}

// cancelRunning cancels the running turn of task id, if there is one:
// found by its task id among the turns, or, for the task an employee's
// queue has just taken, marked for its turn to cancel itself as it
// registers (addTurn).
func (a *agent) cancelRunning(id uint64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for run, cancel := range a.turns {
		if run.task == id {
			cancel(ErrCancelledByUser)
			return true
		}
	}
	if a.queue != nil {
		if t, ok := a.queue.Running(); ok && t.ID == id {
			a.cancelNext = id
			return true
		}
	}
	return false
}
