package employee

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/internal/clock"
	"github.com/actctl/actctl/model"
	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/tasklog"
)

// CoalescedError is `--if-busy skip` finding the agent busy with another
// task: this one is not run (exit 0: the running task does the work).
type CoalescedError struct{ Busy *control.AgentBusyError }

func (e *CoalescedError) Error() string {
	return e.Busy.Error() + ": this task coalesced into the running one (--if-busy skip)"
}

// UpError is the agent run by an `actctl up`: its schedule runs there, so
// a task is refused (exit 1).
type UpError struct{ Busy *control.AgentBusyError }

func (e *UpError) Error() string {
	return e.Busy.Error() + ": its tasks run there; queue one with `actctl prompt " + e.Busy.Agent + "`, or stop that up"
}

// Acquire takes the agent's task lock (control.LockAgent). Held by an up,
// it is an *UpError; held by another task, it waits (wait set: waiting
// is called once, the lock polled until it is free or ctx ends) or is a
// *CoalescedError. A kernel lock: a killed holder never leaves it held.
func Acquire(ctx context.Context, root, agent string, wait bool, waiting func(*control.AgentBusyError)) (*control.AgentLock, error) {
	told := false
	for delay := 10 * time.Millisecond; ; delay = min(delay*2, 500*time.Millisecond) {
		l, err := control.LockAgent(root, agent, "task")
		var busy *control.AgentBusyError
		switch {
		case err == nil:
			return l, nil
		case !errors.As(err, &busy):
			return nil, err
		case busy.Holder == "up":
			return nil, &UpError{busy}
		case !wait:
			return nil, &CoalescedError{busy}
		case !told && waiting != nil:
			told = true
			waiting(busy)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, context.Cause(ctx)
		case <-t.C:
		}
	}
}

// TaskEvents are the events a task publishes.
var TaskEvents = []string{schedule.EventHeartbeatTick, schedule.EventCronTick, model.EventPromptBefore, model.EventPromptAfter,
	model.EventError, schedule.EventTaskDone, schedule.EventTaskFailed, model.EventPluginError}

// Hooks returns the workspace's hooks that agent's task events run: the
// run hooks of TaskEvents for it (or every agent). Prompt hooks need up's
// queue: they are returned in skipped, sorted, for the caller to warn of
// once.
func Hooks(all map[string]model.Hook, agent string) (run map[string]model.Hook, skipped []string) {
	run = map[string]model.Hook{}
	for _, name := range slices.Sorted(maps.Keys(all)) {
		h := all[name]
		if !slices.Contains(TaskEvents, h.On) || (len(h.Agents) > 0 && !slices.Contains(h.Agents, agent)) {
			continue
		}
		if h.Run == nil {
			skipped = append(skipped, name)
			continue
		}
		run[name] = h
	}
	return run, skipped
}

// Options are one task's agent and what it reports to.
type Options struct {
	Agent string
	// Workspace is the agent's workspace, where .heartbeat is seeded from
	// Seed (when Seed is set and the file is missing).
	Workspace, Seed string
	// LogsDir is where its task logs go (tasklog.Dir).
	LogsDir string
	Clock   clock.Clock
	// Publish receives the tick and task events (nil: none).
	Publish func(hooks.Event)
	Logf    func(format string, args ...any)
	// Start starts the agent's backend with its session open: obs must
	// receive the session's messages and events.
	Start func(ctx context.Context, obs acpclient.Observer) (*acpclient.Client, error)
	// Checkout, if set, is synced before the backend starts (its dir is
	// the session's cwd: the caller's Start sees to it, CheckoutCwd).
	Checkout *Checkout
	// Observer also receives the session's messages and events (the
	// command's output); nil: none.
	Observer acpclient.Observer
	// Redact, if set, is applied to the prompt the task log records.
	Redact func(string) string
}

// Run runs task t to its end as up runs an employee's task
// (docs/runtime.md): .heartbeat seeded when missing, the next task id
// after the last one logged, the tick event, one turn in a session of a
// process of its own (Turn: the task log), task:done or task:failed.
// The caller holds the agent's lock (Acquire).
func Run(ctx context.Context, o Options, t schedule.Task) (Outcome, acpclient.Result, error) {
	if o.Clock == nil {
		o.Clock = clock.Real()
	}
	if o.Publish == nil {
		o.Publish = func(hooks.Event) {}
	}
	if o.Seed != "" {
		if _, err := schedule.SeedHeartbeat(o.Workspace, o.Seed); err != nil {
			return Outcome{Agent: o.Agent}, acpclient.Result{}, err
		}
	}
	last, err := tasklog.LastID(o.LogsDir)
	if err != nil {
		o.Logf("%s: %v (task ids start at 1)", o.Agent, err)
	}
	t.ID, t.Queued = last+1, o.Clock.Now()
	switch t.Kind {
	case schedule.KindHeartbeat:
		o.publish(schedule.Event{Name: schedule.EventHeartbeatTick, Task: t})
	case schedule.KindCron:
		o.publish(schedule.Event{Name: schedule.EventCronTick, Task: t})
	}
	obs := &tee{user: o.Observer, event: o.event}
	turn := Turn{Agent: o.Agent, LogsDir: o.LogsDir, Task: t, Source: t.Source, Clock: o.Clock, Logf: o.Logf, Writer: obs.setLog, Redact: o.Redact}
	o.event(model.EventPromptBefore, PromptBeforeData(t, t.Source))
	out, res, err := turn.Run(ctx, func(ctx context.Context) (acpclient.Result, error) {
		if o.Checkout != nil {
			if _, err := o.Checkout.Sync(ctx); err != nil {
				return acpclient.Result{}, err
			}
		}
		c, err := o.Start(ctx, obs)
		if err != nil {
			return acpclient.Result{}, err
		}
		defer c.Close()
		return c.Prompt(ctx, t.Prompt)
	})
	after, failed := PromptAfterData(t, t.Source, res, err)
	o.event(model.EventPromptAfter, after)
	if failed != nil {
		o.event(model.EventError, failed)
	}
	ev := schedule.Event{Name: schedule.EventTaskDone, Task: t}
	if err != nil {
		ev.Name, ev.Err = schedule.EventTaskFailed, err
	}
	o.publish(ev)
	return out, res, err
}

func (o Options) publish(ev schedule.Event) {
	o.event(ev.Name, EventData(ev))
}

// event publishes the event name of o's agent with data.
func (o Options) event(name string, data map[string]any) {
	o.Publish(hooks.Event{Name: name, Agent: o.Agent, Time: o.Clock.Now(), Data: data})
}

// PluginFailed is the data of the event plugin:error when e is a
// plugin's failed step (docs/plugins.md); false for every other event.
func PluginFailed(e acpclient.Event) (map[string]any, bool) {
	p := e.Plugin
	if e.Kind != acpclient.EventPlugin || p == nil || p.Outcome == "ok" {
		return nil, false
	}
	return map[string]any{"plugin": p.Plugin, "direction": p.Direction, "outcome": p.Outcome, "error": p.Error}, true
}

// tee passes a session's output to the task log and to the user, and
// publishes plugin:error for a plugin's failed step.
type tee struct {
	mu    sync.Mutex
	log   *tasklog.Writer
	user  acpclient.Observer
	event func(name string, data map[string]any)
}

func (t *tee) setLog(w *tasklog.Writer) {
	t.mu.Lock()
	t.log = w
	t.mu.Unlock()
}

func (t *tee) Message(line []byte) {
	t.mu.Lock()
	w := t.log
	t.mu.Unlock()
	if w != nil {
		w.Message(line)
	}
	if t.user != nil {
		t.user.Message(line)
	}
}

func (t *tee) Event(e acpclient.Event) {
	t.mu.Lock()
	w := t.log
	t.mu.Unlock()
	LogDecision(w, e)
	if data, ok := PluginFailed(e); ok {
		t.event(model.EventPluginError, data)
	}
	if t.user != nil {
		t.user.Event(e)
	}
}
