package acpclient

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// SessionOptions configure a session opened with Client.NewSession.
type SessionOptions struct {
	// Cwd is the session cwd ("": the primary session's).
	Cwd string
	// MCPServers are passed in session/new.
	MCPServers []acp.McpServer
	// Rule answers permission requests when Ask is nil ("": the Client's
	// Options.Rule).
	Rule Rule
	// Ask, if set, asks a person instead of Rule.
	Ask AskFunc
	// Observer receives the session's messages and events (nil: none).
	Observer Observer
	// Delegate, if set, picks who serves the agent's fs and terminal
	// requests of this session in actctl's place.
	Delegate DelegateFunc
	// Extension, if set, serves the agent's extension methods ("_...")
	// that name this session.
	Extension Extension
}

// Session is one ACP session on a Client's backend. Requests the agent
// sends naming its id (permissions, files, terminals) are served with its
// cwd, rule and observer; its tool calls and permission counts are its own.
type Session struct {
	c        *Client
	id       string
	cwd      string
	dirs     []string // session/new's additionalDirectories (the client's project, CwdPolicy)
	roots    roots
	instance string // the agent's instance workspace, real path ("": none; Options.Instance)
	rule     Rule
	ask      AskFunc
	obs      Observer
	thread   *thread
	primary  bool
	delegate DelegateFunc
	ext      Extension
	filter   *filterState // the session plugins' (nil: none)
	// created is the agent's answer to session/new (its modes, models
	// and config options, which a lease passes on to its client).
	created acp.NewSessionResponse

	mu   sync.Mutex
	turn *turn  // the current turn, nil before the first
	mode string // the current mode the agent reported (Mode)
}

// turn is one Prompt; done is closed when it is cancelled (or its session
// closed), which answers its pending permission requests "cancelled".
type turn struct {
	once sync.Once
	done chan struct{}
}

func (t *turn) cancel() { t.once.Do(func() { close(t.done) }) }

// ID is the ACP session id.
func (s *Session) ID() string { return s.id }

// Cwd is the cwd sent in session/new.
func (s *Session) Cwd() string { return s.cwd }

// NewSession opens another session (session/new) on the client's backend
// (without a cwd, the primary session's cwd and additional directories).
// The session lives until it is closed or the backend ends.
func (c *Client) NewSession(ctx context.Context, o SessionOptions) (*Session, error) {
	var dirs []string
	if o.Cwd == "" {
		o.Cwd, dirs = c.primary.cwd, c.primary.dirs
	}
	if o.Rule == "" {
		o.Rule = c.opts.Rule
	}
	s, err := c.newSession(o, false, dirs...)
	if err != nil {
		return nil, err
	}
	if err := c.open(ctx, s, o.MCPServers); err != nil {
		return nil, err
	}
	return s, nil
}

// newSession builds a session (not yet opened) with its roots: its cwd,
// the agent's workspace and its additional directories dirs.
func (c *Client) newSession(o SessionOptions, primary bool, dirs ...string) (*Session, error) {
	s := &Session{c: c, cwd: o.Cwd, dirs: dirs, rule: o.Rule, ask: o.Ask, obs: o.Observer, primary: primary, delegate: o.Delegate, ext: o.Extension}
	if s.obs == nil {
		s.obs = nopObserver{}
	}
	s.thread = newThread(s.emit)
	s.setFilter()
	var err error
	if s.roots, err = newRoots(append([]string{s.cwd, c.opts.Launch.Workspace}, dirs...)...); err != nil {
		return nil, err
	}
	if c.opts.Instance && c.opts.Launch.Workspace != "" {
		if s.instance, err = filepath.EvalSymlinks(c.opts.Launch.Workspace); err != nil {
			return nil, fmt.Errorf("root %s: %w", c.opts.Launch.Workspace, err)
		}
	}
	return s, nil
}

// open sends session/new and registers the session for routing.
// Notifications the agent sends for it before its answer was handled here
// find no session and are dropped (their lines reach Options.Observer).
func (c *Client) open(ctx context.Context, s *Session, mcp []acp.McpServer) error {
	if mcp == nil {
		mcp = []acp.McpServer{}
	}
	resp, err := call[acp.NewSessionResponse](ctx, c.conn, acp.AgentMethodSessionNew, acp.NewSessionRequest{Cwd: s.cwd, McpServers: mcp, AdditionalDirectories: s.dirs})
	if err != nil {
		return c.failure(ctx, ErrStart, "session/new", err)
	}
	s.id = string(resp.SessionId)
	c.mu.Lock()
	c.sessions[s.id] = s
	c.mu.Unlock()
	if err := c.applyMode(ctx, s, resp.Modes); err != nil {
		return err
	}
	if resp.Modes != nil {
		modes := *resp.Modes
		modes.CurrentModeId = acp.SessionModeId(s.Mode())
		resp.Modes = &modes
	}
	s.created = resp
	return nil
}

// session is the open session id names, or the JSON-RPC error the agent
// gets for a request naming no open session.
func (c *Client) session(id acp.SessionId) (*Session, error) {
	c.mu.Lock()
	s := c.sessions[string(id)]
	c.mu.Unlock()
	if s == nil {
		return nil, &acp.RequestError{Code: -32602, Message: fmt.Sprintf("unknown session %q", id), Data: map[string]any{"sessionId": id}}
	}
	return s, nil
}

// open reports whether the session is open (not closed).
func (s *Session) open() bool {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	return s.c.sessions[s.id] == s
}

// Close stops routing the agent's requests to the session (they are
// refused from now on), answers its pending permission requests
// "cancelled", kills its terminals, and sends session/close if the agent
// advertised it (waiting at most the grace period for the answer). The
// backend keeps running; Client.Close ends it.
func (s *Session) Close() {
	c := s.c
	c.mu.Lock()
	open := c.sessions[s.id] == s
	if open {
		delete(c.sessions, s.id)
	}
	c.mu.Unlock()
	if !open {
		return
	}
	defer s.closeFilter()
	s.mu.Lock()
	if s.turn != nil {
		s.turn.cancel()
	}
	s.mu.Unlock()
	c.killTerminals(s.id)
	if c.info.AgentCapabilities.SessionCapabilities.Close == nil || c.connClosed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.Grace)
	defer cancel()
	sent := make(chan struct{})
	go func() { // the write may block: see cancelTurn
		defer close(sent)
		_, _ = call[acp.CloseSessionResponse](ctx, c.conn, acp.AgentMethodSessionClose, acp.CloseSessionRequest{SessionId: acp.SessionId(s.id)})
	}()
	select {
	case <-sent:
	case <-ctx.Done():
	}
}

type answer struct {
	resp acp.PromptResponse
	err  error
}

// Prompt runs one turn. When ctx ends first, the turn is cancelled
// (session/cancel, the session's pending permission requests answered
// "cancelled"); the error is then context.Cause(ctx), and the Result holds
// what is known (the stop reason if the agent answered in time). If the
// agent has not ended the turn within the grace period, the primary
// session's backend is killed (its process group, terminals and marked
// processes); another session is closed instead (Close), so the backend
// its neighbours share keeps running, and the turn is left to the agent.
// A closed session's Prompt fails at once.
func (s *Session) Prompt(ctx context.Context, text string) (Result, error) {
	return s.PromptBlocks(ctx, []acp.ContentBlock{acp.TextBlock(text)})
}

// PromptBlocks is Prompt with the prompt's content blocks as a client
// sent them (a session lease passes an editor's prompt through whole).
func (s *Session) PromptBlocks(ctx context.Context, blocks []acp.ContentBlock) (Result, error) {
	if !s.open() {
		return Result{SessionID: s.id}, fmt.Errorf("session %s is closed", s.id)
	}
	start := time.Now()
	blocks, err := s.filterPrompt(ctx, blocks)
	if err != nil {
		return Result{SessionID: s.id, Duration: time.Since(start)}, err
	}
	t := &turn{done: make(chan struct{})}
	s.mu.Lock()
	s.turn = t
	s.mu.Unlock()
	before := s.thread.permissions()
	reqCtx, stopReq := context.WithCancel(context.Background())
	defer stopReq()
	done := make(chan answer, 1)
	go func() {
		// reqCtx ends before the answer only once cancelTurn has sent
		// session/cancel (the SDK's Prompt sent it again).
		r, err := call[acp.PromptResponse](reqCtx, s.c.conn, acp.AgentMethodSessionPrompt, acp.PromptRequest{SessionId: acp.SessionId(s.id), Prompt: blocks})
		done <- answer{r, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		a = s.cancelTurn(t, done, stopReq)
	}
	res := Result{SessionID: s.id, Duration: time.Since(start), Permissions: s.thread.permissions().minus(before), StopReason: a.resp.StopReason}
	if ctx.Err() != nil {
		return res, context.Cause(ctx)
	}
	if a.err != nil {
		return res, s.c.failure(ctx, ErrCrash, "the turn", a.err)
	}
	return res, s.filterErr()
}

// cancelTurn cancels t and waits the grace period for the agent's answer;
// past it, the primary session's backend is killed and another session
// closed (see Prompt). The grace starts at once: session/cancel is sent
// beside it, never waited for, since a write to an agent that does not
// read its stdin blocks (and holds the SDK's write lock) until the kill
// ends it (docs/runtime.md, "Nothing waits forever").
func (s *Session) cancelTurn(t *turn, done <-chan answer, stopReq func()) answer {
	t.cancel()
	go func() {
		_ = s.c.conn.notify(context.Background(), acp.AgentMethodSessionCancel, acp.CancelNotification{SessionId: acp.SessionId(s.id)})
	}()
	timer := time.NewTimer(s.c.opts.Grace)
	defer timer.Stop()
	select {
	case a := <-done:
		return a
	case <-timer.C:
	}
	if s.primary {
		s.c.killAll() // which ends a write blocked on it, and the request
		return <-done
	}
	s.Close()
	stopReq()
	select {
	case a := <-done:
		return a
	default: // the prompt's own write may still block: the turn is the agent's
		return answer{err: errTurnLeft}
	}
}

// errTurnLeft is the answer of a turn cancelled past the grace in a
// session that is not the primary one: it was left to the agent.
var errTurnLeft = errors.New("the turn was cancelled and left to the agent")

func (p Permissions) minus(q Permissions) Permissions {
	return Permissions{Allowed: p.Allowed - q.Allowed, Denied: p.Denied - q.Denied, Cancelled: p.Cancelled - q.Cancelled}
}

func (s *Session) emit(e Event) { s.obs.Event(e) }

// update turns one of the agent's session updates into events.
func (s *Session) update(u acp.SessionUpdate) {
	switch {
	case u.AgentMessageChunk != nil:
		if t := u.AgentMessageChunk.Content.Text; t != nil {
			s.emit(Event{Kind: EventText, Text: t.Text})
		}
	case u.AgentThoughtChunk != nil:
		if t := u.AgentThoughtChunk.Content.Text; t != nil {
			s.emit(Event{Kind: EventThought, Text: t.Text})
		}
	case u.ToolCall != nil:
		s.thread.started(u.ToolCall)
	case u.ToolCallUpdate != nil:
		s.thread.updated(u.ToolCallUpdate)
	case u.Plan != nil:
		s.emit(Event{Kind: EventPlan, Plan: u.Plan.Entries})
	case u.CurrentModeUpdate != nil:
		s.setModeID(string(u.CurrentModeUpdate.CurrentModeId))
	}
}

// requestPermission answers by the agent's own rule that matches the
// tool call (Options.Rules: allow and deny decide, ask puts it to the
// person), else with Ask or the Rule; once the turn is cancelled every
// request is answered "cancelled".
func (s *Session) requestPermission(ctx context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	call := s.thread.awaiting(req.ToolCall)
	s.mu.Lock()
	t := s.turn
	s.mu.Unlock()
	var turnDone chan struct{}
	if t != nil {
		turnDone = t.done
	}
	m := s.c.opts.Rules.Match(InputOf(call, req.ToolCall, s.cwd))
	call.Matched = m.Rule
	d, cancelled, by := s.decide(ctx, turnDone, call, m.Verdict, req.Options)
	var rule Rule
	if by == ByPreset || by == ByRule {
		rule = s.rule
	}
	s.thread.decided(call.ID, d, cancelled, by, rule, m.Rule)
	if cancelled || d.OptionID == "" {
		return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}
	}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{OptionId: acp.PermissionOptionId(d.OptionID)}}}
}

// decide answers a permission request: cancelled once the turn is,
// else by the agent's rule whose verdict is allow or deny, else by the
// person (Ask) or, when none answers, unanswered. by says who answered
// (ToolCall.By).
func (s *Session) decide(ctx context.Context, turn chan struct{}, call ToolCall, verdict string, options []acp.PermissionOption) (_ Decision, cancelled bool, by string) {
	if turn != nil {
		select {
		case <-turn:
			return Decision{}, true, ByCancel
		default:
		}
	}
	if verdict == VerdictAllow || verdict == VerdictDeny {
		return Choose(verdict == VerdictAllow, false, options), false, ByAgentRule
	}
	if s.ask == nil {
		return s.unanswered(call, verdict, options)
	}
	actx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-turn:
			stop()
		case <-actx.Done():
		}
	}()
	d, err := s.ask(actx, call, options)
	if errors.Is(err, ErrNoAnswer) {
		return s.unanswered(call, verdict, options)
	}
	if err != nil {
		return Decision{}, true, ByUser
	}
	return d, false, ByUser
}

// unanswered decides a request no person answered: the agent's ask rule
// rejects it (the rule wants a person's consent, and none was given),
// else the session's rule decides.
func (s *Session) unanswered(call ToolCall, verdict string, options []acp.PermissionOption) (_ Decision, cancelled bool, by string) {
	if verdict == VerdictAsk {
		return Choose(false, false, options), false, ByAgentRule
	}
	return Decide(s.rule, call.Kind, options), false, s.ruleBy()
}

// ErrNoAnswer, from an AskFunc, leaves the request to the session's rule
// (the person was not asked, or did not answer in time): the decision is
// then the preset's (or the overriding rule's), and recorded as such; a
// request the agent's ask rule put to the person is rejected.
var ErrNoAnswer = errors.New("no answer from the person: the rule decides")

// ruleBy is who decides by the session's rule: the preset, or a rule
// that overrides it.
func (s *Session) ruleBy() string {
	if p := s.c.opts.Preset; p == "" || p == s.rule {
		return ByPreset
	}
	return ByRule
}

// Rule is the rule that answers the session's permission requests when
// no person does.
func (s *Session) Rule() Rule { return s.rule }

// Created is the agent's answer to the session/new that opened the
// session.
func (s *Session) Created() acp.NewSessionResponse { return s.created }

// SetMode passes session/set_mode to the agent for this session.
func (s *Session) SetMode(ctx context.Context, r acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	r.SessionId = acp.SessionId(s.id)
	return call[acp.SetSessionModeResponse](ctx, s.c.conn, acp.AgentMethodSessionSetMode, r)
}

// SetConfigOption passes session/set_config_option to the agent for this
// session.
func (s *Session) SetConfigOption(ctx context.Context, r acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	switch {
	case r.Boolean != nil:
		r.Boolean.SessionId = acp.SessionId(s.id)
	case r.ValueId != nil:
		r.ValueId.SessionId = acp.SessionId(s.id)
	}
	return call[acp.SetSessionConfigOptionResponse](ctx, s.c.conn, acp.AgentMethodSessionSetConfigOption, r)
}
