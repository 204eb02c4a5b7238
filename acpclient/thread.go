package acpclient

import (
	"strings"
	"sync"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"
)

// State is the client's view of one tool call (docs/run.md, "Output"): the agent's
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
	// By says who answered the last permission request (ByUser, ByPreset,
	// ByRule, ByAgentRule, ByCancel); Rule is the rule that answered it
	// (ByPreset, ByRule).
	By   string
	Rule Rule
	// Matched is the agent's own permission rule that matched the
	// request, as RuleMatch.Rule ("deny Bash(rm:*)"; "" none): it decided
	// (ByAgentRule), or, an ask rule, put the request to the person.
	Matched string
}

// AskedByRule reports whether the agent's own ask rule matched the
// request: it is put to a person whatever the preset allows.
func (c ToolCall) AskedByRule() bool { return strings.HasPrefix(c.Matched, VerdictAsk+" ") }

// Who answers a permission request (ToolCall.By).
const (
	ByUser   = "user"   // a person (Options.Ask)
	ByPreset = "preset" // the agent's own preset (Options.Preset)
	ByRule   = "rule"   // a rule that overrides the preset: --approve-all, --approve-reads, --deny-all
	// ByAgentRule: one of the agent's own permission rules (Options.Rules,
	// ToolCall.Matched): an allow or deny rule, or an ask rule no person
	// answered.
	ByAgentRule = "permissions"
	ByCancel    = "cancel" // the turn was cancelled
)

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

// The agent chooses how many tool calls it makes and how long their
// titles are; a session keeps at most maxCalls of them (past that the
// finished ones are forgotten) and at most maxTitle bytes of a title.
const (
	maxCalls = 4096
	maxTitle = 4 << 10
)

// get returns the tool call id, creating it pending. Call with mu held.
func (t *thread) get(id string) *ToolCall {
	c := t.calls[id]
	if c == nil {
		if len(t.calls) >= maxCalls {
			t.forget()
		}
		c = &ToolCall{ID: id, State: StatePending}
		t.calls[id] = c
	}
	return c
}

// forget drops the finished tool calls, or, when none is, half of them.
// Call with mu held.
func (t *thread) forget() {
	for id, c := range t.calls {
		switch c.State {
		case StateCompleted, StateFailed, StateDenied, StateCancelled:
			delete(t.calls, id)
		}
	}
	for id := range t.calls {
		if len(t.calls) < maxCalls/2 {
			break
		}
		delete(t.calls, id)
	}
}

// title is s cut to maxTitle bytes at a character boundary.
func title(s string) string {
	if len(s) <= maxTitle {
		return s
	}
	i := maxTitle
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
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
		c.Title, c.Kind = title(u.Title), u.Kind
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

func mergeFields(c *ToolCall, t *string, kind *acp.ToolKind) {
	if t != nil {
		c.Title = title(*t)
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

// decided records the answer to a permission request, counts it and
// emits it (every decision, as an Event with Decision set, even one that
// changes nothing visible).
func (t *thread) decided(id string, d Decision, cancelled bool, by string, rule Rule, matched string) ToolCall {
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
	c := t.get(id)
	c.OptionID, c.State, c.By, c.Rule, c.Matched = d.OptionID, state, by, rule, matched
	snap := *c
	t.mu.Unlock()
	t.emit(Event{Kind: EventToolCall, ToolCall: &snap, Decision: true})
	return snap
}

func (t *thread) permissions() Permissions {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.perms
}
