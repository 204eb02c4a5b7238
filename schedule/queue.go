package schedule

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// Kind says where a task came from.
type Kind string

const (
	KindHeartbeat Kind = "heartbeat"
	KindCron      Kind = "cron"
	KindPrompt    Kind = "prompt" // `actctl prompt`, a prompt hook
)

// Task is one prompt for the agent.
type Task struct {
	ID     uint64
	Kind   Kind
	Prompt string
	// Source identifies the schedule entry that queued the task
	// ("heartbeat", "cron[0]"); ticks of one source coalesce. Empty for
	// prompts, which never coalesce.
	Source string
	// Due is when the tick was due (zero for prompts); Queued when the
	// task entered the queue.
	Due, Queued time.Time
	// Data is the caller's, carried to the Executor untouched (in up: who
	// waits for the task's output).
	Data any
}

// Executor runs one task to its end: in up, a turn in the employee's
// primary session on its ACP client.
type Executor interface {
	Execute(ctx context.Context, t Task) error
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(ctx context.Context, t Task) error

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, t Task) error { return f(ctx, t) }

// Event names the queue and the scheduler report (the hook events of the
// same names, docs/runtime.md).
const (
	EventHeartbeatTick = "heartbeat:tick"
	EventCronTick      = "cron:tick"
	EventTaskDone      = "task:done"
	EventTaskFailed    = "task:failed"
	EventIdle          = "idle"
)

// Event is something the scheduler or the queue did. Coalesced is set on
// a tick that did not queue a task because one from its source was
// already waiting.
type Event struct {
	Name      string
	Task      Task
	Err       error
	Coalesced bool
}

// ErrStopped is the result of tasks still waiting when the queue stops.
var ErrStopped = errors.New("task queue stopped")

// MaxWaiting bounds the tasks without a source (prompts: a person's, a
// hook's, a webhook's) that wait in one queue: a flood of prompts cannot
// grow an agent's queue without end. Ticks, which coalesce by their
// source, are always taken.
const MaxWaiting = 256

// ErrQueueFull is the result of a prompt pushed while MaxWaiting tasks
// wait: it was not queued (its task has no ID).
var ErrQueueFull = fmt.Errorf("the agent's task queue is full (%d tasks wait): the prompt was not queued; try again when it has drained", MaxWaiting)

// Queue is one agent's serial task queue: Run executes its tasks one at a
// time, in the order they were pushed.
type Queue struct {
	exec   Executor
	clock  clock.Clock
	notify func(Event)

	mu      sync.Mutex
	pending []*entry
	running *Task
	lastID  uint64
	stopped bool
	onDrop  func(Task) // told of each task dropped at the stop (OnDrop)
	between []betweenReq
	wake    chan struct{}
}

type betweenReq struct {
	f    func()
	done chan error
}

type entry struct {
	task Task
	done chan error
	held bool // pushed by pushHeld and not released yet: it does not start
}

// NewQueue returns a queue running its tasks through exec. notify, if not
// nil, receives task:done, task:failed and idle; it is called from the
// queue's goroutine and must not block for long.
func NewQueue(exec Executor, clk clock.Clock, notify func(Event)) *Queue {
	if notify == nil {
		notify = func(Event) {}
	}
	return &Queue{exec: exec, clock: clk, notify: notify, wake: make(chan struct{}, 1)}
}

// StartAfter makes the next task's id follow id (ids already given are
// not reused): `up` continues after the last task it logged.
func (q *Queue) StartAfter(id uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.lastID = max(q.lastID, id)
}

// Push adds t (its ID and Queued are set here) and returns the task as
// queued and a channel receiving its result. When a task of the same
// non-empty Source is already waiting, t is dropped and the waiting one is
// returned instead, with coalesced true. A stopped queue refuses the task:
// its channel receives ErrStopped; so does a full one a task without a
// source (MaxWaiting): ErrQueueFull, and the task has no ID.
func (q *Queue) Push(t Task) (queued Task, done <-chan error, coalesced bool) {
	e, coalesced := q.push(t, false)
	return e.task, e.done, coalesced
}

// pushHeld is Push for a task that must not start before release is
// called: the scheduler reports the tick first, so that its event comes
// before anything the task does.
func (q *Queue) pushHeld(t Task) (queued Task, coalesced bool, release func()) {
	e, coalesced := q.push(t, true)
	if coalesced {
		return e.task, true, func() {}
	}
	return e.task, false, func() {
		q.mu.Lock()
		e.held = false
		q.mu.Unlock()
		q.signal()
	}
}

// push adds t (held or not), or returns the waiting entry of its source
// with coalesced true.
func (q *Queue) push(t Task, held bool) (e *entry, coalesced bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t.Source != "" {
		for _, e := range q.pending {
			if e.task.Source == t.Source {
				return e, true
			}
		}
	}
	if t.Source == "" && len(q.pending) >= MaxWaiting {
		e = &entry{task: t, done: make(chan error, 1)}
		e.done <- ErrQueueFull
		return e, false
	}
	q.lastID++
	t.ID = q.lastID
	t.Queued = q.clock.Now()
	e = &entry{task: t, done: make(chan error, 1), held: held}
	if q.stopped {
		e.done <- ErrStopped
		return e, false
	}
	q.pending = append(q.pending, e)
	q.signal()
	return e, false
}

// signal wakes Run.
func (q *Queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Len returns how many tasks wait (the running one not counted).
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending)
}

// Running returns the task being executed, if any.
func (q *Queue) Running() (Task, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.running == nil {
		return Task{}, false
	}
	return *q.running, true
}

// Between arranges for f to run between two tasks: at once if none runs,
// else as soon as the running one ends; no task starts until f returns.
// It is how a config change restarts an agent without cutting a turn
// short. The channel receives nil once f has run, or ErrStopped when the
// queue stops first (or has stopped).
func (q *Queue) Between(f func()) <-chan error {
	r := betweenReq{f: f, done: make(chan error, 1)}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped {
		r.done <- ErrStopped
		return r.done
	}
	q.between = append(q.between, r)
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return r.done
}

// runBetween runs the pending Between functions.
func (q *Queue) runBetween() {
	q.mu.Lock()
	reqs := q.between
	q.between = nil
	q.mu.Unlock()
	for _, r := range reqs {
		r.f()
		r.done <- nil
	}
}

// Run executes tasks until ctx is done; the running task's context is ctx.
// Tasks still waiting then receive ErrStopped, as does any pushed later.
func (q *Queue) Run(ctx context.Context) error {
	defer q.stop()
	for {
		q.runBetween()
		e := q.next()
		if e == nil {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-q.wake:
				continue
			}
		}
		err := q.exec.Execute(ctx, e.task)
		e.done <- err
		q.finish(e.task, err)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func (q *Queue) next() *entry {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 || q.pending[0].held {
		return nil // (a held task: its release wakes Run)
	}
	e := q.pending[0]
	q.pending = q.pending[1:]
	q.running = &e.task
	return e
}

func (q *Queue) finish(t Task, err error) {
	q.mu.Lock()
	q.running = nil
	idle := len(q.pending) == 0
	q.mu.Unlock()
	if err != nil {
		q.notify(Event{Name: EventTaskFailed, Task: t, Err: err})
	} else {
		q.notify(Event{Name: EventTaskDone, Task: t})
	}
	if idle {
		q.notify(Event{Name: EventIdle, Task: t})
	}
}

func (q *Queue) stop() {
	q.mu.Lock()
	q.stopped = true
	pending, between, drop := q.pending, q.between, q.onDrop
	q.pending, q.between = nil, nil
	q.mu.Unlock()
	for _, e := range pending {
		if drop != nil {
			drop(e.task)
		}
		e.done <- ErrStopped
	}
	for _, r := range between {
		r.done <- ErrStopped
	}
}

// OnDrop sets f to be told of each task still waiting when the queue
// stops, before its result (ErrStopped) is given: in up, the task log of
// a task dropped at shutdown. Call it before Run.
func (q *Queue) OnDrop(f func(Task)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.onDrop = f
}
