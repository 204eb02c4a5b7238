package up

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/internal/clock"
)

// DefaultLeaseTTL is how long a leased session outlives its client's
// disconnect when the archetype sets no leaseTTL.
const DefaultLeaseTTL = 30 * time.Minute

// Upgrade answers a lease request (docs/runtime.md, "Session leases"):
// the connection becomes an ACP stream in which up plays the agent, and
// every session the client opens is a session on the agent's warm
// process. An agent that is not running is refused at once.
func (m *Manager) Upgrade(ctx context.Context, req control.Request) (func(context.Context, io.Reader, io.Writer) error, error) {
	a, err := m.agent(req.Agent)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	c := a.client
	a.mu.Unlock()
	if st := a.sup.Status(); st.State != "running" || c == nil {
		return nil, fmt.Errorf("agent %s is %s: there is no warm process to lease (actctl start %s)", a.name, st.State, a.name)
	}
	return func(ctx context.Context, r io.Reader, w io.Writer) error {
		defer a.guardAgent("a lease connection")
		a.serveLease(ctx, c, r, w)
		return nil
	}, nil
}

// serveLease serves one lease client until it goes, the process ends, or
// up stops; its sessions are then left idle for the lease TTL.
func (a *agent) serveLease(ctx context.Context, c *acpclient.Client, r io.Reader, w io.Writer) {
	lc := &leaseConn{a: a, c: c, ready: make(chan struct{}), fail: make(chan struct{})}
	// Nothing is read before the connection is set up: the SDK's reader
	// would otherwise race with SetLogger.
	in := acpclient.TeeLines(acpclient.Gate(r, lc.ready), lc.notes.Seen)
	conn := acp.NewAgentSideConnection(lc, w, in)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	lc.conn = conn
	close(lc.ready)
	select {
	case <-conn.Done():
	case <-c.Done():
	case <-ctx.Done():
	case <-lc.fail: // a panic for this client (guard)
	}
	a.detach(lc)
}

// leaseConn is one lease client: the ACP agent side of its connection.
type leaseConn struct {
	a     *agent
	c     *acpclient.Client
	ready chan struct{} // closed once conn is set
	conn  *acp.AgentSideConnection

	notes acpclient.ExtensionNotes // the client's extension notifications

	fail     chan struct{} // closed after a panic for this client: its connection ends
	failOnce sync.Once

	mu   sync.Mutex
	caps acp.ClientCapabilities // what the client said it serves
}

// serves reports whether the client offered to serve a client method
// (acpclient.Method*) in its initialize.
func (lc *leaseConn) serves(method string) bool {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	switch method {
	case acpclient.MethodReadTextFile:
		return lc.caps.Fs.ReadTextFile
	case acpclient.MethodWriteTextFile:
		return lc.caps.Fs.WriteTextFile
	case acpclient.MethodTerminal:
		return lc.caps.Terminal
	}
	return false
}

// peer is the connection to the client (its handlers may run before
// NewAgentSideConnection has returned).
func (lc *leaseConn) peer() *acp.AgentSideConnection {
	<-lc.ready
	return lc.conn
}

// leased is a session on the warm process held for lease clients.
type leased struct {
	a    *agent
	c    *acpclient.Client
	sess *acpclient.Session

	mu     sync.Mutex
	owner  *leaseConn         // nil while idle
	idle   *idleTimer         // while idle: the expiry
	cancel context.CancelFunc // of the running turn
}

var _ acp.Agent = (*leaseConn)(nil)
var _ acp.ExtensionMethodHandler = (*leaseConn)(nil)
var _ acp.AgentLoader = (*leaseConn)(nil)

// Initialize is answered from the warm process's own answer: the agent
// is not initialized twice. Sessions can be resumed and loaded (a lease
// client that comes back) and listed and closed, whatever the agent says.
func (lc *leaseConn) Initialize(_ context.Context, p acp.InitializeRequest) (_ acp.InitializeResponse, err error) {
	defer lc.guard("initialize", &err)
	lc.mu.Lock()
	lc.caps = p.ClientCapabilities
	lc.mu.Unlock()
	resp := lc.c.AgentInfo()
	caps := &resp.AgentCapabilities
	caps.LoadSession = true
	caps.SessionCapabilities.Resume = &acp.SessionResumeCapabilities{}
	caps.SessionCapabilities.List = &acp.SessionListCapabilities{}
	caps.SessionCapabilities.Close = &acp.SessionCloseCapabilities{}
	return resp, nil
}

func (lc *leaseConn) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (lc *leaseConn) NewSession(ctx context.Context, p acp.NewSessionRequest) (_ acp.NewSessionResponse, err error) {
	defer lc.guard("session/new", &err)
	l := &leased{a: lc.a, c: lc.c, owner: lc}
	sess, err := lc.c.NewSession(ctx, acpclient.SessionOptions{Cwd: p.Cwd, MCPServers: p.McpServers, Observer: l, Ask: l.ask,
		Delegate: l.delegate, Extension: l.extension})
	if err != nil {
		return acp.NewSessionResponse{}, err
	}
	l.sess = sess
	lc.a.mu.Lock()
	if lc.a.leases == nil {
		lc.a.leases = map[string]*leased{}
	}
	lc.a.leases[sess.ID()] = l
	lc.a.mu.Unlock()
	return sess.Created(), nil
}

// session returns the leased session id, if it is this client's; with
// take, an idle one becomes this client's (resume, load).
func (lc *leaseConn) session(id acp.SessionId, take bool) (*leased, error) {
	lc.a.m.fault("session lookup")
	lc.a.mu.Lock()
	l := lc.a.leases[string(id)]
	lc.a.mu.Unlock()
	if l == nil || l.c != lc.c {
		return nil, acp.NewInvalidParams(map[string]any{"sessionId": id, "error": "unknown session (it expired, was closed, or ended with the agent's process)"})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owner == nil && take {
		l.owner = lc
		if l.idle != nil {
			l.idle.stop()
			l.idle = nil
		}
	}
	if l.owner != lc {
		return nil, acp.NewInvalidParams(map[string]any{"sessionId": id, "error": "the session is leased by another client"})
	}
	return l, nil
}

func (lc *leaseConn) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (_ acp.LoadSessionResponse, err error) {
	defer lc.guard("session/load", &err)
	_, err = lc.session(p.SessionId, true)
	return acp.LoadSessionResponse{}, err
}

func (lc *leaseConn) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (_ acp.ResumeSessionResponse, err error) {
	defer lc.guard("session/resume", &err)
	_, err = lc.session(p.SessionId, true)
	return acp.ResumeSessionResponse{}, err
}

func (lc *leaseConn) Prompt(ctx context.Context, p acp.PromptRequest) (_ acp.PromptResponse, err error) {
	defer lc.guard("session/prompt", &err)
	l, err := lc.session(p.SessionId, false)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	// The turn belongs to the session, not to this request: a client
	// that disconnects leaves it running (cancel is session/cancel).
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	l.mu.Lock()
	l.cancel = cancel
	l.mu.Unlock()
	res, err := l.sess.PromptBlocks(tctx, p.Prompt)
	if err != nil && res.StopReason != "" && tctx.Err() != nil {
		err = nil // cancelled, and the agent answered "cancelled" in time
	}
	return acp.PromptResponse{StopReason: res.StopReason}, err
}

func (lc *leaseConn) Cancel(ctx context.Context, p acp.CancelNotification) (err error) {
	defer lc.guard("session/cancel", &err)
	l, err := lc.session(p.SessionId, false)
	if err != nil {
		return nil
	}
	l.mu.Lock()
	cancel := l.cancel
	l.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

func (lc *leaseConn) CloseSession(ctx context.Context, p acp.CloseSessionRequest) (_ acp.CloseSessionResponse, err error) {
	defer lc.guard("session/close", &err)
	l, err := lc.session(p.SessionId, false)
	if err != nil {
		return acp.CloseSessionResponse{}, err
	}
	lc.a.drop(l)
	return acp.CloseSessionResponse{}, nil
}

// ListSessions lists this client's sessions and the idle ones it may
// resume.
func (lc *leaseConn) ListSessions(context.Context, acp.ListSessionsRequest) (_ acp.ListSessionsResponse, err error) {
	defer lc.guard("session/list", &err)
	out := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	lc.a.mu.Lock()
	defer lc.a.mu.Unlock()
	for id, l := range lc.a.leases {
		l.mu.Lock()
		mine := l.c == lc.c && (l.owner == lc || l.owner == nil)
		l.mu.Unlock()
		if mine {
			out.Sessions = append(out.Sessions, acp.SessionInfo{SessionId: acp.SessionId(id), Cwd: l.sess.Cwd()})
		}
	}
	return out, nil
}

// SetSessionMode and SetSessionConfigOption are passed to the agent for
// the client's own session.
func (lc *leaseConn) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (_ acp.SetSessionModeResponse, err error) {
	defer lc.guard("session/set_mode", &err)
	l, err := lc.session(p.SessionId, false)
	if err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	return l.sess.SetMode(ctx, p)
}

func (lc *leaseConn) SetSessionConfigOption(ctx context.Context, p acp.SetSessionConfigOptionRequest) (_ acp.SetSessionConfigOptionResponse, err error) {
	defer lc.guard("session/set_config_option", &err)
	l, err := lc.session(acpclient.ConfigOptionSession(p), false)
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	return l.sess.SetConfigOption(ctx, p)
}

// Message forwards the agent's session/update notifications of the
// session to the client that owns it (none while idle).
func (l *leased) Message(line []byte) {
	defer l.guard("a session/update", nil)
	if !strings.Contains(string(line), `"session/update"`) {
		return
	}
	var msg struct {
		Method string                  `json:"method"`
		Params acp.SessionNotification `json:"params"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.Method != "session/update" {
		return
	}
	if owner := l.ownerConn(); owner != nil {
		_ = owner.peer().SessionUpdate(context.Background(), msg.Params)
	}
}

func (l *leased) Event(acpclient.Event) {}

// delegate routes the agent's fs and terminal requests of the session to
// the client that owns it, when that client serves them; otherwise (no
// owner, or a client without the capability) up serves them, confined to
// the session's cwd and the agent's workspace.
func (l *leased) delegate(method string) acpclient.Delegate {
	defer l.guard(method, nil)
	owner := l.ownerConn()
	if owner == nil || !owner.serves(method) {
		return nil
	}
	return owner.peer()
}

func (l *leased) ownerConn() *leaseConn {
	l.a.m.fault("session callback")
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.owner
}

// ask passes a permission request to the owning client, with the agent's
// own options; an idle session's requests are answered "cancelled".
func (l *leased) ask(ctx context.Context, call acpclient.ToolCall, options []acp.PermissionOption) (_ acpclient.Decision, err error) {
	defer l.guard("session/request_permission", &err)
	owner := l.ownerConn()
	if owner == nil {
		return acpclient.Decision{}, errors.New("no client holds the session")
	}
	title, kind := call.Title, call.Kind
	resp, err := owner.peer().RequestPermission(ctx, acp.RequestPermissionRequest{SessionId: acp.SessionId(l.sess.ID()),
		ToolCall: acp.ToolCallUpdate{ToolCallId: acp.ToolCallId(call.ID), Title: &title, Kind: &kind}, Options: options})
	if err != nil || resp.Outcome.Selected == nil {
		return acpclient.Decision{}, err
	}
	id := string(resp.Outcome.Selected.OptionId)
	for _, o := range options {
		if string(o.OptionId) == id {
			allowed := o.Kind == acp.PermissionOptionKindAllowOnce || o.Kind == acp.PermissionOptionKindAllowAlways
			return acpclient.Decision{OptionID: id, Allowed: allowed}, nil
		}
	}
	return acpclient.Decision{}, fmt.Errorf("the client chose option %q, which the agent did not offer", id)
}

// detach leaves lc's sessions idle: each expires after the lease TTL
// unless a client resumes it.
func (a *agent) detach(lc *leaseConn) {
	a.mu.Lock()
	ttl := a.spec.LeaseTTL
	var mine []*leased
	for _, l := range a.leases {
		mine = append(mine, l)
	}
	a.mu.Unlock()
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	for _, l := range mine {
		l.mu.Lock()
		if l.owner != lc {
			l.mu.Unlock()
			continue
		}
		l.owner = nil
		it := &idleTimer{t: a.m.opts.Clock.NewTimer(ttl), done: make(chan struct{})}
		l.idle = it
		l.mu.Unlock()
		go a.expire(l, it, ttl)
	}
}

// idleTimer is an idle session's expiry. It is stopped at once when a
// client resumes the session (the clock then holds no timer for it).
type idleTimer struct {
	t    clock.Timer
	done chan struct{}
}

func (it *idleTimer) stop() {
	it.t.Stop()
	close(it.done)
}

// expire closes l when its idle timer fires, unless a client resumed it
// meanwhile, or when the agent's process ends.
func (a *agent) expire(l *leased, it *idleTimer, ttl time.Duration) {
	defer a.guardAgent("an idle session's expiry")
	select {
	case <-it.t.C():
		l.mu.Lock()
		still := l.idle == it
		l.mu.Unlock()
		if still {
			a.m.opts.Logf("%s: leased session %s idle for %s: closed", a.name, l.sess.ID(), ttl)
			a.drop(l)
		}
	case <-it.done:
	case <-l.c.Done():
		a.drop(l)
	}
}

// drop closes a leased session and forgets it.
func (a *agent) drop(l *leased) {
	a.mu.Lock()
	if a.leases[l.sess.ID()] == l {
		delete(a.leases, l.sess.ID())
	}
	a.mu.Unlock()
	l.sess.Close()
}

// HandleExtensionMethod passes the client's extension methods ("_...")
// to the agent as they came, request or notification; one that names a
// session must name one of the client's own.
func (lc *leaseConn) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (_ any, err error) {
	defer lc.guard(method, &err)
	notify := lc.notes.Take(method)
	var m struct {
		SessionID acp.SessionId `json:"sessionId"`
	}
	if json.Unmarshal(params, &m) == nil && m.SessionID != "" {
		if _, err := lc.session(m.SessionID, false); err != nil {
			return nil, err
		}
	}
	if notify {
		return nil, lc.c.NotifyExtension(ctx, method, params)
	}
	return lc.c.CallExtension(ctx, method, params)
}

// extension passes the agent's extension methods that name the session to
// the client that owns it; while the session is idle a request is
// answered "method not found" and a notification dropped.
func (l *leased) extension(ctx context.Context, method string, params json.RawMessage, notify bool) (_ json.RawMessage, err error) {
	defer l.guard(method, &err)
	owner := l.ownerConn()
	switch {
	case owner == nil && notify:
		return nil, nil
	case owner == nil:
		return nil, acp.NewMethodNotFound(method)
	case notify:
		return nil, owner.peer().NotifyExtension(ctx, method, params)
	}
	return owner.peer().CallExtension(ctx, method, params)
}
