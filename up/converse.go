package up

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/tasklog"
)

// A dashboard conversation (docs/dashboard.md, "Conversations") is a
// session on the agent's warm process held as a lease of the dashboard's
// identity: it outlives the page, goes idle between turns and is closed
// after the lease TTL, or with the process. Each turn is a task (logged,
// source "dashboard"; an employee's waits in its queue) run in the
// conversation's session, and is cancelled as a task is (CancelTask). A
// permission request the agent's preset does not allow is put to the
// person (the task log records the ask, then the decision) and waits
// AskWait for the answer, after which the preset answers.

// DefaultAskWait is how long a permission request put to a person waits
// for the answer before the agent's preset answers it.
const DefaultAskWait = 5 * time.Minute

// maxConvos bounds one agent's conversations: a new one past it closes
// the oldest that has no turn running.
const maxConvos = 32

// Conversation is a dashboard conversation as its page shows it.
type Conversation struct {
	ID      string     `json:"id"`
	Title   string     `json:"title"` // its first prompt's first line
	Started time.Time  `json:"started"`
	Turns   []ConvTurn `json:"turns"`
	Running uint64     `json:"running,omitempty"` // the task of the turn running, 0 when none
}

// ConvTurn is one turn of a conversation: its task and prompt.
type ConvTurn struct {
	Task   uint64 `json:"task"`
	Prompt string `json:"prompt"`
}

// convo is one conversation.
type convo struct {
	a       *agent
	l       *leased
	route   router        // the session's output, to the running turn's task
	last    chan struct{} // closed when the last turn started has ended (a service's; under mu)
	started time.Time

	mu      sync.Mutex
	title   string
	turns   []ConvTurn
	running uint64
	asks    map[string]*pendingAsk // the requests put to the person, by tool call id
}

// pendingAsk is a permission request waiting for the person's answer.
type pendingAsk struct {
	options []acp.PermissionOption
	answer  chan acpclient.Decision
}

// dashboardID is the lease identity of the dashboard's conversations:
// one no lease client can present (newLeaseID makes a user "uid N" or
// "peer uid N"), so none lists or resumes them.
func dashboardID() leaseID { return leaseID{user: "actctl up", name: "dashboard"} }

// NewConversation opens a conversation with agent: a new session on its
// running process (an on-demand agent's is started: ondemand.go). It
// returns the session id.
func (m *Manager) NewConversation(ctx context.Context, agent string) (string, error) {
	a, err := m.agent(agent)
	if err != nil {
		return "", err
	}
	c, opened, err := a.conversing(ctx)
	if err != nil {
		return "", err
	}
	defer opened()
	cv := &convo{a: a, last: closedChan(), started: m.opts.Clock.Now(), asks: map[string]*pendingAsk{}}
	sess, err := c.NewSession(ctx, acpclient.SessionOptions{MCPServers: c.MCPServers(), Observer: &cv.route, Ask: cv.ask})
	if err != nil {
		return "", fmt.Errorf("agent %s: a new session: %w", a.name, err)
	}
	cv.l = &leased{a: a, c: c, sess: sess, ownerID: dashboardID(), cwd: sess.Cwd()}
	a.mu.Lock()
	if a.leases == nil {
		a.leases = map[string]*leased{}
	}
	if a.convos == nil {
		a.convos = map[string]*convo{}
	}
	a.leases[sess.ID()], a.convos[sess.ID()] = cv.l, cv
	a.mu.Unlock()
	if old := a.oldestConvo(); old != nil {
		a.drop(old.l)
	}
	cv.idle()
	return sess.ID(), nil
}

// closedChan is a closed channel: no turn to wait for.
func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// oldestConvo is the oldest conversation with no turn running, once
// there are more than maxConvos (nil otherwise). A conversation's lock is
// never taken under the agent's (Say takes them the other way round).
func (a *agent) oldestConvo() *convo {
	a.mu.Lock()
	all := make([]*convo, 0, len(a.convos))
	for _, cv := range a.convos {
		all = append(all, cv)
	}
	a.mu.Unlock()
	if len(all) <= maxConvos {
		return nil
	}
	var old *convo
	for _, cv := range all {
		cv.mu.Lock()
		busy := cv.running != 0
		cv.mu.Unlock()
		if !busy && (old == nil || cv.started.Before(old.started)) {
			old = cv
		}
	}
	return old
}

// convo returns conversation id of the agent; one whose session was
// closed (idle past the TTL, the process gone) is forgotten.
func (a *agent) convo(id string) (*convo, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	cv := a.convos[id]
	if cv != nil && a.leases[id] != cv.l {
		delete(a.convos, id)
		cv = nil
	}
	if cv == nil {
		return nil, fmt.Errorf("%s has no conversation %s (it was idle past its lease TTL, or ended with the process)", a.name, id)
	}
	return cv, nil
}

// convoOf returns agent and its conversation id.
func (m *Manager) convoOf(agent, id string) (*agent, *convo, error) {
	a, err := m.agent(agent)
	if err != nil {
		return nil, nil, err
	}
	cv, err := a.convo(id)
	return a, cv, err
}

// Conversations lists agent's open conversations, the newest first.
func (m *Manager) Conversations(agent string) ([]Conversation, error) {
	a, err := m.agent(agent)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	var ids []string
	for id := range a.convos {
		ids = append(ids, id)
	}
	a.mu.Unlock()
	var out []Conversation
	for _, id := range ids {
		if cv, err := a.convo(id); err == nil {
			out = append(out, cv.snapshot())
		}
	}
	slices.SortFunc(out, func(x, y Conversation) int { return y.Started.Compare(x.Started) })
	return out, nil
}

// Conversation returns one conversation of agent.
func (m *Manager) Conversation(agent, id string) (Conversation, error) {
	_, cv, err := m.convoOf(agent, id)
	if err != nil {
		return Conversation{}, err
	}
	return cv.snapshot(), nil
}

func (cv *convo) snapshot() Conversation {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	return Conversation{ID: cv.l.sess.ID(), Title: cv.title, Started: cv.started, Turns: slices.Clone(cv.turns), Running: cv.running}
}

// Say starts a turn of conversation id with text, not waiting for it:
// its task id is returned. A conversation takes its turns one at a time,
// in order: a service's next turn waits for the one before to end, an
// employee's waits in its queue.
func (m *Manager) Say(ctx context.Context, agent, id, text string) (uint64, error) {
	a, cv, err := m.convoOf(agent, id)
	if err != nil {
		return 0, err
	}
	chain, err := m.admit(ctx, agent)
	if err != nil {
		return 0, err
	}
	run := &taskRun{chain: chain, source: SourceDashboard, convo: cv}
	cv.mu.Lock()
	defer cv.mu.Unlock()
	task, err := a.startTurn(text, run)
	if err != nil {
		return 0, err
	}
	cv.running = task
	cv.turns = append(cv.turns, ConvTurn{Task: task, Prompt: text})
	if cv.title == "" {
		cv.title, _, _ = strings.Cut(text, "\n")
	}
	return task, nil
}

// startTurn starts run's task of text without waiting for it: an
// employee queues it, a service runs it once the conversation's turn
// before it has ended. The turn's end is told to run.convo (ended).
// Call with run.convo.mu held.
func (a *agent) startTurn(text string, run *taskRun) (uint64, error) {
	m := a.m
	if a.queue != nil {
		t, done, _ := a.queue.Push(schedule.Task{Kind: schedule.KindPrompt, Prompt: text, Data: run})
		if t.ID == 0 {
			return 0, <-done
		}
		a.userPrompt(t.ID, text, run)
		go func() {
			<-done
			run.convo.ended(t.ID)
		}()
		return t.ID, nil
	}
	a.mu.Lock()
	a.seq++
	t := schedule.Task{ID: a.seq, Kind: schedule.KindPrompt, Prompt: text, Queued: m.opts.Clock.Now()}
	a.mu.Unlock()
	a.userPrompt(t.ID, text, run)
	// Cancellable from now on (CancelTask), before the turn has begun.
	ctx, cancel := context.WithCancelCause(m.taskCtx)
	run.task = t.ID
	forget := a.addTurn(run, cancel)
	prev, mine := run.convo.last, make(chan struct{})
	run.convo.last = mine
	m.tasks.Add(1)
	go func() {
		defer m.tasks.Done()
		defer cancel(nil)
		defer close(mine)
		select { // the conversation's turn before this one ends first
		case <-prev:
		case <-ctx.Done():
		}
		_ = a.turn(ctx, t, run, run.convo.prompt(text, run))
		forget()
		run.convo.ended(t.ID)
	}()
	return t.ID, nil
}

// prompt is the turn of run in the conversation's session: the
// session is busy (no idle expiry) meanwhile.
func (cv *convo) prompt(text string, run *taskRun) func(context.Context, *acpclient.Client) (acpclient.Result, error) {
	return func(ctx context.Context, c *acpclient.Client) (acpclient.Result, error) {
		if cv.l.c != c {
			return acpclient.Result{}, errors.New("the conversation's process has ended: open a new conversation")
		}
		if ctx.Err() != nil { // cancelled before it began: the agent never sees it
			return acpclient.Result{SessionID: cv.l.sess.ID()}, context.Cause(ctx)
		}
		cv.busy()
		defer cv.idle()
		cv.route.set(run)
		defer cv.route.set(nil)
		return cv.l.sess.Prompt(ctx, text)
	}
}

// ended notes that the turn of task has ended.
func (cv *convo) ended(task uint64) {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	if cv.running == task {
		cv.running = 0
	}
}

// busy stops the conversation's idle expiry while a turn runs.
func (cv *convo) busy() {
	l := cv.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.idle != nil {
		l.idle.stop()
		l.idle = nil
	}
}

// idle starts the conversation's expiry: the lease TTL, as an idle
// leased session's.
func (cv *convo) idle() {
	a, l := cv.a, cv.l
	a.mu.Lock()
	ttl := a.spec.LeaseTTL
	a.mu.Unlock()
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	it := &idleTimer{t: a.m.opts.Clock.NewTimer(ttl), done: make(chan struct{})}
	l.mu.Lock()
	if l.idle != nil {
		l.idle.stop()
	}
	l.idle = it
	l.mu.Unlock()
	go a.expire(l, it, ttl)
}

// CancelTurn cancels the running turn of conversation id
// (session/cancel: the process goes on).
func (m *Manager) CancelTurn(agent, id string) error {
	c, err := m.Conversation(agent, id)
	if err != nil {
		return err
	}
	if c.Running == 0 {
		return fmt.Errorf("no turn of conversation %s is running", id)
	}
	return m.CancelTask(agent, c.Running)
}

// ask puts a permission request the preset does not allow, or the
// agent's ask rule matched, to the person: the task log records the ask,
// and the answer (Answer) or, past AskWait, the preset's decides it
// (acpclient.ErrNoAnswer; an ask rule's request is then rejected).
func (cv *convo) ask(ctx context.Context, call acpclient.ToolCall, options []acp.PermissionOption) (acpclient.Decision, error) {
	if !call.AskedByRule() && cv.l.sess.Rule().Allows(call.Kind) {
		return acpclient.Decision{}, acpclient.ErrNoAnswer
	}
	m := cv.a.m
	wait := m.opts.AskWait
	if wait <= 0 {
		wait = DefaultAskWait
	}
	p := &pendingAsk{options: options, answer: make(chan acpclient.Decision, 1)}
	cv.mu.Lock()
	cv.asks[call.ID] = p
	cv.mu.Unlock()
	defer func() {
		cv.mu.Lock()
		delete(cv.asks, call.ID)
		cv.mu.Unlock()
	}()
	t := m.opts.Clock.NewTimer(wait)
	defer t.Stop()
	cv.logAsk(call, options, m.opts.Clock.Now().Add(wait))
	select {
	case d := <-p.answer:
		return d, nil
	case <-t.C():
		return acpclient.Decision{}, acpclient.ErrNoAnswer
	case <-ctx.Done():
		return acpclient.Decision{}, ctx.Err()
	}
}

// logAsk records the ask in the running turn's task log, where the
// conversation's page sees it.
func (cv *convo) logAsk(call acpclient.ToolCall, options []acp.PermissionOption, deadline time.Time) {
	cv.route.mu.Lock()
	run := cv.route.cur
	cv.route.mu.Unlock()
	if run == nil {
		return
	}
	run.mu.Lock()
	w := run.w
	run.mu.Unlock()
	if w == nil {
		return
	}
	a := tasklog.Ask{ToolCallID: call.ID, Title: call.Title, Kind: string(call.Kind), Deadline: deadline}
	for _, o := range options {
		a.Options = append(a.Options, tasklog.AskOption{ID: string(o.OptionId), Name: o.Name, Kind: string(o.Kind)})
	}
	w.Ask(a)
	if f := cv.a.m.opts.Asked; f != nil {
		run.mu.Lock()
		task := run.cur.Task
		run.mu.Unlock()
		f(cv.a.name, task)
	}
}

// Answer gives the person's answer, option (one the agent offered), to
// the pending permission request of tool call call in conversation id.
func (m *Manager) Answer(agent, id, call, option string) error {
	_, cv, err := m.convoOf(agent, id)
	if err != nil {
		return err
	}
	cv.mu.Lock()
	p := cv.asks[call]
	var kind acp.PermissionOptionKind
	if p != nil {
		for _, o := range p.options {
			if string(o.OptionId) == option {
				kind = o.Kind
			}
		}
		if kind != "" {
			delete(cv.asks, call)
		}
	}
	cv.mu.Unlock()
	switch {
	case p == nil:
		return fmt.Errorf("no permission request for tool call %s is waiting in conversation %s (it was answered, or its time ran out)", call, id)
	case kind == "":
		return fmt.Errorf("the agent offered no option %q for tool call %s", option, call)
	}
	p.answer <- acpclient.Decision{OptionID: option, Allowed: strings.HasPrefix(string(kind), "allow")}
	return nil
}
