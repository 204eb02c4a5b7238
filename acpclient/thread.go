package acpclient

import (
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// State is the client's view of one tool call (seed 004): the agent's
// status plus the permission step the client took part in.
type State string

const (
	StatePending    State = "pending"
	StateAwaiting   State = "awaiting_permission"
	StateAllowed    State = "allowed"
	StateDenied     State = "denied"
	StateCancelled  State = "cancelled" // the permission request was answered cancelled
	StateInProgress State = "in_progress"
	StateCompleted  State = "completed"
	StateFailed     State = "failed"
)

// ToolCall is a snapshot of one tool call.
type ToolCall struct {
	ID    string
	Title string
	Kind  acp.ToolKind
	State State
	// OptionID is the permission option chosen, if one was.
	OptionID string
}

// Permissions counts the permission requests of a session by answer.
type Permissions struct {
	Allowed   int `json:"allowed"`
	Denied    int `json:"denied"`
	Cancelled int `json:"cancelled,omitempty"`
}

// thread keeps every tool call of a session: the one place from which the
// observer's tool-call events and the permission counts derive.
type thread struct {
	mu    sync.Mutex
	calls map[string]*ToolCall
	perms Permissions
	emit  func(Event)
}

func newThread(emit func(Event)) *thread {
	return &thread{calls: map[string]*ToolCall{}, emit: emit}
}

// get returns the tool call id, creating it pending. Call with mu held.
func (t *thread) get(id string) *ToolCall {
	c := t.calls[id]
	if c == nil {
		c = &ToolCall{ID: id, State: StatePending}
		t.calls[id] = c
	}
	return c
}

// set applies change to call id and emits the snapshot when anything
// visible changed.
func (t *thread) set(id string, change func(*ToolCall)) ToolCall {
	t.mu.Lock()
	c := t.get(id)
	before := *c
	change(c)
	snap := *c
	t.mu.Unlock()
	if snap != before {
		t.emit(Event{Kind: EventToolCall, ToolCall: &snap})
	}
	return snap
}

// statusState maps the agent's tool call status to a State ("" for none).
func statusState(s acp.ToolCallStatus) State {
	switch s {
	case acp.ToolCallStatusPending:
		return StatePending
	case acp.ToolCallStatusInProgress:
		return StateInProgress
	case acp.ToolCallStatusCompleted:
		return StateCompleted
	case acp.ToolCallStatusFailed:
		return StateFailed
	}
	return ""
}

// started records a tool_call update.
func (t *thread) started(u *acp.SessionUpdateToolCall) {
	state := statusState(u.Status)
	if state == "" {
		state = StatePending
	}
	t.set(string(u.ToolCallId), func(c *ToolCall) {
		c.Title, c.Kind = u.Title, u.Kind
		advance(c, state)
	})
}

// advance sets c's state unless state is empty or a "pending" that would
// step back: the agent's tool_call notification may be handled after its
// permission request (requests are served concurrently, notifications in
// order), and the decision must stay visible.
func advance(c *ToolCall, state State) {
	if state != "" && (state != StatePending || c.State == StatePending) {
		c.State = state
	}
}

// updated records a tool_call_update.
func (t *thread) updated(u *acp.SessionToolCallUpdate) {
	var state State
	if u.Status != nil {
		state = statusState(*u.Status)
	}
	t.set(string(u.ToolCallId), func(c *ToolCall) {
		mergeFields(c, u.Title, u.Kind)
		advance(c, state)
	})
}

func mergeFields(c *ToolCall, title *string, kind *acp.ToolKind) {
	if title != nil {
		c.Title = *title
	}
	if kind != nil {
		c.Kind = *kind
	}
}

// awaiting records a permission request for the call in req.
func (t *thread) awaiting(req acp.ToolCallUpdate) ToolCall {
	return t.set(string(req.ToolCallId), func(c *ToolCall) {
		mergeFields(c, req.Title, req.Kind)
		c.State = StateAwaiting
	})
}

// decided records the answer to a permission request and counts it.
func (t *thread) decided(id string, d Decision, cancelled bool) ToolCall {
	state := StateDenied
	t.mu.Lock()
	switch {
	case cancelled:
		state = StateCancelled
		t.perms.Cancelled++
	case d.Allowed:
		state = StateAllowed
		t.perms.Allowed++
	default:
		t.perms.Denied++
	}
	t.mu.Unlock()
	return t.set(id, func(c *ToolCall) { c.OptionID, c.State = d.OptionID, state })
}

func (t *thread) permissions() Permissions {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.perms
}
