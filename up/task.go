package up

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/control"
	emp "github.com/actctl/actctl/employee"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/internal/clock"
	"github.com/actctl/actctl/model"
	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/tasklog"
)

// Sink receives a turn's output as it streams: kind "message" with every
// ACP message received (json.RawMessage), kind "event" with the client's
// events (acpclient.Event). It must not block for long.
type Sink func(kind string, v any)

// Outcome is the result of one prompt: what `actctl prompt` prints and
// exits with (docs/runtime.md). It is package employee's, shared with `actctl
// task`.
type Outcome = emp.Outcome

// taskRun is one turn's output: its task log and, when someone waits for
// it, a Sink. It is the acpclient.Observer of the turn's session.
type taskRun struct {
	sink Sink
	mu   sync.Mutex
	w    *tasklog.Writer
	out  Outcome

	// chain is the hooks that caused the prompt (docs/runtime.md).
	chain hooks.Chain
	// source is who prompted ("cli", "mcp", "hook"): the task log's
	// source of a prompt (docs/json.md, "actctl logs -o json").
	source string
	// convo is the dashboard conversation whose turn this is: it runs in
	// the conversation's session, not the primary one (converse.go).
	convo *convo
	// task is the task's id when it is known before the turn begins (a
	// conversation's turn: CancelTask finds it by it).
	task uint64
	// pluginFailed publishes plugin:error with a plugin's failed step
	// (set by turn before the turn runs).
	pluginFailed func(data map[string]any)

	// Set by begin once the turn runs (under mu): what `actctl status`
	// shows of it; last is the agent's last update (Message).
	clk          clock.Clock
	cur          TurnStatus
	last         time.Time
	limit, stall time.Duration
}

// begin marks the turn of t as running from now: its start counts as
// the agent's last update.
func (r *taskRun) begin(clk clock.Clock, t schedule.Task, source string, limit, stall time.Duration) {
	now := clk.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clk, r.last, r.limit, r.stall = clk, now, limit, stall
	r.cur = TurnStatus{Task: t.ID, Kind: string(t.Kind), Source: source, Started: now}
}

// status is the running turn as `actctl status` shows it; false before
// begin.
func (r *taskRun) status() (TurnStatus, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.clk == nil {
		return TurnStatus{}, false
	}
	now, t := r.clk.Now(), r.cur
	t.ElapsedMs = now.Sub(t.Started).Milliseconds()
	t.LastUpdate, t.Stalled = r.last, now.Sub(r.last) >= r.stall
	t.Deadline = t.Started.Add(r.limit)
	return t, true
}

// lastUpdate is when the agent last sent something in the turn.
func (r *taskRun) lastUpdate() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// taskSource is the source the task log records for t: its schedule
// entry, or for a prompt who prompted.
func taskSource(t schedule.Task, run *taskRun) string {
	if t.Source == "" && run != nil {
		return run.source
	}
	return t.Source
}

func (r *taskRun) Message(line []byte) {
	r.mu.Lock()
	w := r.w
	if r.clk != nil {
		r.last = r.clk.Now()
	}
	r.mu.Unlock()
	if w != nil {
		w.Message(line)
	}
	if r.sink != nil {
		r.sink("message", json.RawMessage(bytes.Clone(line)))
	}
}

func (r *taskRun) Event(e acpclient.Event) {
	r.mu.Lock()
	w := r.w
	r.mu.Unlock()
	emp.LogDecision(w, e)
	if data, ok := emp.PluginFailed(e); ok && r.pluginFailed != nil {
		r.pluginFailed(data)
	}
	if r.sink != nil {
		r.sink("event", e)
	}
}

// router passes the primary session's output to the task running in it.
type router struct {
	mu  sync.Mutex
	cur *taskRun
}

func (r *router) set(t *taskRun) {
	r.mu.Lock()
	r.cur = t
	r.mu.Unlock()
}

func (r *router) Message(line []byte) {
	r.mu.Lock()
	t := r.cur
	r.mu.Unlock()
	if t != nil {
		t.Message(line)
	}
}

func (r *router) Event(e acpclient.Event) {
	r.mu.Lock()
	t := r.cur
	r.mu.Unlock()
	if t != nil {
		t.Event(e)
	}
}

// execute runs an employee's task in its primary session.
func (a *agent) execute(ctx context.Context, t schedule.Task) error {
	run, _ := t.Data.(*taskRun)
	if run == nil {
		run = &taskRun{}
	}
	if run.convo != nil {
		return a.turn(ctx, t, run, run.convo.prompt(t.Prompt, run))
	}
	return a.turn(ctx, t, run, func(ctx context.Context, c *acpclient.Client) (acpclient.Result, error) {
		a.mu.Lock()
		co := a.spec.Checkout
		a.mu.Unlock()
		if co != nil {
			if _, err := co.Sync(ctx); err != nil {
				return acpclient.Result{}, err
			}
		}
		a.route.set(run)
		defer a.route.set(nil)
		return c.Prompt(ctx, t.Prompt)
	})
}

// promptSession runs a prompt to a service in a new session on its warm
// process, with the agent's MCP servers as its primary session has them.
func (a *agent) promptSession(ctx context.Context, t schedule.Task, run *taskRun) error {
	return a.turn(ctx, t, run, func(ctx context.Context, c *acpclient.Client) (acpclient.Result, error) {
		sess, err := c.NewSession(ctx, acpclient.SessionOptions{MCPServers: c.MCPServers(), Observer: run})
		if err != nil {
			return acpclient.Result{}, err
		}
		a.sessionEvent(model.EventSessionStart, sess.ID(), t, run)
		defer func() {
			sess.Close()
			a.sessionEvent(model.EventSessionEnd, sess.ID(), t, run)
		}()
		return sess.Prompt(ctx, t.Prompt)
	})
}

// turn runs one prompt on the live process, logged as every task is
// (employee.Turn): the task file gets every message, actctl.log one
// summary line. A turn that does not end with end_turn is an error
// (task:failed).
func (a *agent) turn(ctx context.Context, t schedule.Task, run *taskRun, prompt func(context.Context, *acpclient.Client) (acpclient.Result, error)) error {
	a.gate.RLock()
	defer a.gate.RUnlock()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if run.task == 0 {
		run.task = t.ID // before addTurn: CancelTask finds the turn by it
	}
	defer a.addTurn(run, cancel)()
	a.mu.Lock()
	dir, redact := a.spec.LogsDir, a.spec.Redact
	a.mu.Unlock()
	source := taskSource(t, run)
	defer a.watch(t, source, run, cancel)()
	run.pluginFailed = func(data map[string]any) { a.publish(model.EventPluginError, run.chain, data) }
	turn := emp.Turn{Agent: a.name, LogsDir: dir, Task: t, Source: source, Clock: a.m.opts.Clock, Logf: a.m.opts.Logf, Redact: redact,
		Writer: func(w *tasklog.Writer) {
			run.mu.Lock()
			run.w = w
			run.mu.Unlock()
			if f := a.m.opts.TaskStarted; f != nil && w != nil {
				f(a.name, t.ID)
			}
		},
		Ended: a.turnEnded}
	a.promptBefore(t, source, run)
	var used *acpclient.Client
	out, res, err := turn.Run(ctx, func(ctx context.Context) (acpclient.Result, error) {
		c, err := a.running(ctx)
		if err != nil {
			return acpclient.Result{}, err
		}
		used = c
		return prompt(ctx, c)
	})
	if _, ok := context.Cause(ctx).(*deadlineError); ok && used != nil {
		a.settle(used)
	}
	a.promptAfter(t, source, run, res, err)
	run.mu.Lock()
	run.out = out
	run.mu.Unlock()
	return err
}

// turnEnded is the error of a turn that ended with stop reason r and
// err, nil for end_turn. A turn up cut short says why (shutting down, a
// client cut off: ctx's cause); a cancelled one up did not cut, that the
// agent cancelled it on its own (docs/runtime.md).
func (a *agent) turnEnded(ctx context.Context, r acp.StopReason, err error) error {
	if err == nil && r == acp.StopReasonEndTurn {
		return nil
	}
	var deadline *deadlineError
	if cause := a.cutBy(ctx); errors.As(cause, &deadline) {
		return deadline // the turn's deadline says what it did
	} else if cause != nil {
		return fmt.Errorf("%w: the turn was cancelled", cause)
	}
	switch {
	case err != nil:
		return err
	case r == acp.StopReasonCancelled:
		return errors.New("the agent cancelled the turn on its own")
	}
	return fmt.Errorf("the turn ended: %s", r)
}

// cutBy is why up cut the turn of ctx short, nil when it did not: up is
// shutting down, or ctx ended with a cause of its own (a client that
// stopped reading); a plain cancel is the client gone, no reason to give.
func (a *agent) cutBy(ctx context.Context) error {
	cause := context.Cause(ctx)
	switch {
	case a.m.taskCtx.Err() != nil:
		return control.ErrShuttingDown
	case cause != nil && !errors.Is(cause, context.Canceled):
		return cause
	}
	return nil
}

// taskEvent publishes the queue's and the scheduler's events.
func (a *agent) taskEvent(ev schedule.Event) {
	a.m.opts.Publish(hooks.Event{Name: ev.Name, Agent: a.name, Time: a.m.opts.Clock.Now(), Data: emp.EventData(ev), Chain: chainOf(ev.Task)})
}
