package schedule

import "errors"

// ErrCancelled is the result of a waiting task taken out of the queue
// (Remove): it never ran.
var ErrCancelled = errors.New("the task was cancelled before it ran")

// Remove takes the waiting task id out of the queue and tells before of
// it (nil: nobody; in up, its task log), then its channel receives
// ErrCancelled. false when no task id waits (it runs, has ended, or never
// was): a running task is its executor's to cancel.
func (q *Queue) Remove(id uint64, before func(Task)) (Task, bool) {
	q.mu.Lock()
	var e *entry
	for i, p := range q.pending {
		if p.task.ID == id {
			e = p
			q.pending = append(q.pending[:i:i], q.pending[i+1:]...)
			break
		}
	}
	q.mu.Unlock()
	if e == nil {
		return Task{}, false
	}
	if before != nil {
		before(e.task)
	}
	e.done <- ErrCancelled
	return e.task, true
}
