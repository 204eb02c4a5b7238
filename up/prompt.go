package up

import (
	"context"
	"errors"
	"fmt"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/control"
	emp "github.com/actctl/actctl/employee"
	"github.com/actctl/actctl/schedule"
)

// Prompt gives agent a prompt (docs/runtime.md): an employee queues a
// task behind the ones waiting, a service answers it in a new session on
// its warm process. With wait, Prompt returns once the turn ended, its
// output streamed to sink; without, once the prompt is taken. A caller
// that stops waiting (ctx) cancels a service's turn; an employee's queued
// task still runs.
func (m *Manager) Prompt(ctx context.Context, agent, text string, wait bool, sink Sink) (Outcome, error) {
	return m.PromptFrom(ctx, SourceCLI, agent, text, wait, sink)
}

// Who prompted, as the task log records it (docs/json.md).
const (
	SourceCLI  = "cli"  // actctl prompt
	SourceMCP  = "mcp"  // actctl mcp's prompt_agent
	SourceHook = "hook" // a prompt hook, or a command a hook ran
)

// PromptFrom is Prompt with who prompted (SourceCLI, ...), which the task
// log records as the task's source.
func (m *Manager) PromptFrom(ctx context.Context, source, agent, text string, wait bool, sink Sink) (Outcome, error) {
	a, err := m.agent(agent)
	if err != nil {
		return Outcome{}, err
	}
	if !wait {
		// Nobody reads the output; and the turn may start (and stream)
		// before Prompt returns, so the sink is dropped before it is queued.
		sink = nil
	}
	chain, err := m.admit(ctx, agent)
	if err != nil {
		return Outcome{}, err
	}
	run := &taskRun{sink: sink, chain: chain, source: source}
	if a.queue != nil {
		return a.promptQueued(ctx, text, wait, run)
	}
	return a.promptService(ctx, text, wait, run)
}

func (a *agent) promptQueued(ctx context.Context, text string, wait bool, run *taskRun) (Outcome, error) {
	t, done, _ := a.queue.Push(schedule.Task{Kind: schedule.KindPrompt, Prompt: text, Data: run})
	if t.ID == 0 { // not queued: the queue is full (schedule.MaxWaiting)
		return Outcome{Agent: a.name}, <-done
	}
	a.userPrompt(t.ID, text, run)
	if !wait {
		return Outcome{Agent: a.name, Task: t.ID, Queued: true}, nil
	}
	select {
	case err := <-done:
		return queuedEnd(a.name, t, run, err)
	case <-ctx.Done():
		cause := context.Cause(ctx)
		if !errors.Is(cause, control.ErrShuttingDown) {
			return Outcome{Agent: a.name, Task: t.ID, Queued: true}, cause
		}
		// up is stopping: its stop cancels the task (within the grace),
		// whose end says so.
		return queuedEnd(a.name, t, run, <-done)
	}
}

// queuedEnd is the outcome of a queued prompt's task that ended with err.
func queuedEnd(agent string, t schedule.Task, run *taskRun, err error) (Outcome, error) {
	if errors.Is(err, schedule.ErrStopped) {
		if o := run.outcome(); o.Error != "" { // logged as dropped
			return o, errors.New(o.Error)
		}
		return Outcome{Agent: agent, Task: t.ID}, fmt.Errorf("%w: the task did not run", control.ErrShuttingDown)
	}
	return run.outcome(), err
}

// dropped logs a task the queue dropped when it stopped (up shutting
// down, the agent removed): a summary line saying it did not run, so
// that `actctl logs` shows what became of it (docs/runtime.md).
func (a *agent) dropped(t schedule.Task) {
	run, _ := t.Data.(*taskRun)
	if run == nil {
		run = &taskRun{}
	}
	err := errors.New("the agent was removed from the config: the task did not run")
	if a.m.taskCtx.Err() != nil {
		err = fmt.Errorf("%w: the task did not run", control.ErrShuttingDown)
	}
	a.unrun(t, run, err)
	a.m.opts.Logf("%s: task %d dropped: %v", a.name, t.ID, err)
}

// unrun logs task t, which never ran, as ended with err (its summary
// line; run's outcome says so to whoever waits for it).
func (a *agent) unrun(t schedule.Task, run *taskRun, err error) {
	a.mu.Lock()
	dir := a.spec.LogsDir
	a.mu.Unlock()
	turn := emp.Turn{Agent: a.name, LogsDir: dir, Task: t, Source: taskSource(t, run), Clock: a.m.opts.Clock, Logf: a.m.opts.Logf}
	out, _, _ := turn.Run(context.Background(), func(context.Context) (acpclient.Result, error) { return acpclient.Result{}, err })
	run.mu.Lock()
	run.out = out
	run.mu.Unlock()
}

func (a *agent) promptService(ctx context.Context, text string, wait bool, run *taskRun) (Outcome, error) {
	m := a.m
	// An on-demand agent's process is started for the prompt, and held
	// until its turn has ended (ondemand.go).
	held := func() {}
	if a.onDemand() {
		_, opened, err := a.conversing(ctx)
		if err != nil {
			return Outcome{Agent: a.name}, err
		}
		held = opened
	}
	a.mu.Lock()
	a.seq++
	t := schedule.Task{ID: a.seq, Kind: schedule.KindPrompt, Prompt: text, Queued: m.opts.Clock.Now()}
	a.mu.Unlock()
	a.userPrompt(t.ID, text, run)
	m.tasks.Add(1)
	if !wait {
		go func() {
			defer m.tasks.Done()
			defer held()
			_ = a.promptSession(m.taskCtx, t, run)
		}()
		return Outcome{Agent: a.name, Task: t.ID, Queued: true}, nil
	}
	defer m.tasks.Done()
	defer held()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(m.taskCtx, func() { cancel(control.ErrShuttingDown) })
	defer stop()
	err := a.promptSession(ctx, t, run)
	return run.outcome(), err
}

func (r *taskRun) outcome() Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out
}

// HookPrompter is the Prompter of prompt hooks: the prompt is queued (or,
// for a service, started) and not waited for.
type HookPrompter struct{ M *Manager }

// Prompt implements hooks.Prompter.
func (p HookPrompter) Prompt(ctx context.Context, agent, text string) error {
	_, err := p.M.PromptFrom(ctx, SourceHook, agent, text, false, nil)
	return err
}
