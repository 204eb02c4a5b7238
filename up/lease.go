package up

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/internal/clock"
	"github.com/actctl/actctl/internal/lineframe"
	"github.com/actctl/actctl/internal/rpcpeer"
	"github.com/actctl/actctl/tasklog"
)

// DefaultLeaseTTL is how long a leased session outlives its client's
// disconnect when the archetype sets no leaseTTL.
const DefaultLeaseTTL = 30 * time.Minute

// setModeWait bounds the session/set_mode up sends for a new leased
// session before its client gets the answer to session/new.
const setModeWait = 60 * time.Second

// Upgrade answers a lease request (docs/runtime.md, "Session leases"):
// the connection becomes an ACP stream relayed to the agent's warm
// process, and every session the client opens is a session on it. An
// agent up runs that is not running is refused at once; an on-demand
// one's process is started, and held while the connection lasts
// (leasing). The client's identity
// (leaseID: req.Client and on Linux the socket peer's uid) decides who
// lists and resumes its idle sessions.
func (m *Manager) Upgrade(ctx context.Context, req control.Request) (func(context.Context, io.Reader, io.Writer) error, error) {
	a, err := m.agent(req.Agent)
	if err != nil {
		return nil, err
	}
	c, held, err := a.leasing(ctx)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, r io.Reader, w io.Writer) error {
		defer held()
		defer a.guardAgent("a lease connection")
		uid, ok := peerUID(w)
		a.serveLease(ctx, c, newLeaseID(req.Client, uid, ok), r, w)
		return nil
	}, nil
}

// serveLease serves one lease client until it goes, the process ends, or
// up stops; its sessions are then left idle for the lease TTL.
func (a *agent) serveLease(ctx context.Context, c *acpclient.Client, client leaseID, r io.Reader, w io.Writer) {
	rl := c.Router(func() acpclient.Router {
		return &leaseRelay{a: a, c: c, calls: rpcpeer.Forwarder[*call]{Prefix: leaseIDPrefix}}
	}).(*leaseRelay)
	lc := &leaseConn{a: a, c: c, rl: rl, client: client, out: newOutQueue(), fail: make(chan struct{})}
	lc.openLog()
	lc.hooks = a.leaseHooks(lc)
	defer lc.closeLog()
	defer lc.hooks.End() // the plugins' sub-agents end with the connection
	// The writer is not waited for: one blocked on a client that stops
	// reading ends when the connection is closed, after serveLease.
	stop := make(chan struct{})
	go func() {
		if lc.out.run(w, stop) != nil {
			lc.end()
		}
	}()
	read := make(chan struct{})
	go func() {
		defer close(read)
		// A message over the agent's own line limit is refused here with
		// an error for its id (it would end the warm agent's connection
		// for every client), never held whole (internal/lineframe).
		in := lineframe.NewReader(r, toClient{lc}, acpclient.MaxMessage, func(n int64) {
			a.m.opts.Logf("%s: lease client: a message of %d bytes refused (the limit is %d bytes)", a.name, n, acpclient.MaxMessage)
		})
		lc.read(bufio.NewReaderSize(in, 64<<10))
	}()
	select {
	case <-read:
	case <-c.Done():
	case <-ctx.Done():
	case <-lc.fail: // a panic for this client (guard), or it stopped reading
	}
	a.detach(lc)
	close(stop)
}

// toClient queues the lines written to it (each ends with a newline) for
// the lease client.
type toClient struct{ lc *leaseConn }

func (t toClient) Write(p []byte) (int, error) {
	t.lc.send(bytes.TrimSuffix(bytes.Clone(p), []byte("\n")))
	return len(p), nil
}

// leaseRelay routes the warm process's lines for the lease clients: the
// answers to their requests and what the agent sends about their
// sessions. One per acpclient.Client (its Router).
type leaseRelay struct {
	a     *agent
	c     *acpclient.Client
	calls rpcpeer.Forwarder[*call] // clients' requests at the agent, under ids of up's
}

// leaseIDPrefix starts the ids of the clients' requests at the agent.
const leaseIDPrefix = "actctl-lease-"

// call is a client's request relayed to the agent.
type call struct {
	lc     *leaseConn
	id     json.RawMessage // the client's own id
	method string
	cwd    string // session/new's
}

// leaseConn is one lease client.
type leaseConn struct {
	a      *agent
	c      *acpclient.Client
	rl     *leaseRelay
	client leaseID // its identity
	out    *outQueue
	hooks  *rpcpeer.Hooks  // the agent's session plugins (leaseplugins.go)
	msgs   *tasklog.Writer // its message log (leaselog.go; nil: none)

	fail     chan struct{} // closed to end the connection (end)
	failOnce sync.Once

	mu    sync.Mutex
	caps  acp.ClientCapabilities    // what the client said it serves
	asked rpcpeer.Pending[struct{}] // the agent's requests it is to answer
	gone  bool
}

// leased is a session on the warm process held for lease clients.
type leased struct {
	a       *agent
	c       *acpclient.Client
	sess    *acpclient.Session
	ownerID leaseID // the identity of the client that opened or last resumed it
	cwd     string

	mu    sync.Mutex
	owner *leaseConn // nil while idle
	idle  *idleTimer // while idle: the expiry
	setup bool       // its session/new is not answered yet: early holds what the agent sent
	early [][]byte
}

// end ends the client's connection.
func (lc *leaseConn) end() { lc.failOnce.Do(func() { close(lc.fail) }) }

// send queues a line for the client; one that does not read is ended.
func (lc *leaseConn) send(line []byte) {
	lc.logLine(line)
	if !lc.out.push(line) {
		lc.a.m.opts.Logf("%s: lease client: over %d KiB queued that it does not read: its connection ends", lc.a.name, lc.out.max>>10)
		lc.end()
	}
}

func (lc *leaseConn) reply(id json.RawMessage, result any) { lc.send(response(id, result, nil)) }

func (lc *leaseConn) replyErr(id json.RawMessage, e *acp.RequestError) {
	lc.send(response(id, nil, e))
}

// handle routes one line from the client (nothing once it is detached).
func (lc *leaseConn) handle(line []byte) {
	if lc.isGone() {
		return
	}
	m, ok := parse(line)
	where := m.Method
	if where == "" {
		where = "a response"
	}
	defer lc.guard(where, m)
	lc.logIn(line, m)
	switch {
	case !ok:
		lc.replyErr(nil, &acp.RequestError{Code: rpcpeer.CodeParseError, Message: "Parse error"})
	case m.response():
		lc.answered(line, m)
	case m.Method == acp.AgentMethodInitialize && m.request():
		lc.initialize(m)
	case m.Method == acp.AgentMethodSessionNew && m.request():
		lc.newSession(line, m)
	case (m.Method == acp.AgentMethodSessionLoad || m.Method == acp.AgentMethodSessionResume) && m.request():
		lc.resume(line, m)
	case m.Method == acp.AgentMethodSessionList && m.request():
		lc.list(m)
	case m.Method == acp.AgentMethodSessionClose && m.request():
		lc.closeSession(m)
	default:
		lc.forward(line, m)
	}
}

// initialize is answered from the warm process's own answer: the agent
// is not initialized twice. Sessions can be resumed and loaded (a lease
// client that comes back) and listed and closed, whatever the agent says.
func (lc *leaseConn) initialize(m message) {
	var p acp.InitializeRequest
	_ = json.Unmarshal(m.Params, &p)
	lc.mu.Lock()
	lc.caps = p.ClientCapabilities
	lc.mu.Unlock()
	resp := lc.c.AgentInfo()
	caps := &resp.AgentCapabilities
	caps.LoadSession = true
	caps.SessionCapabilities.Resume = &acp.SessionResumeCapabilities{}
	caps.SessionCapabilities.List = &acp.SessionListCapabilities{}
	caps.SessionCapabilities.Close = &acp.SessionCloseCapabilities{}
	lc.reply(m.ID, resp)
}

// serves reports whether the agent's request method of one of the
// client's sessions goes to the client: fs and terminal methods when it
// said it serves them (else up serves them, confined), everything else
// (permission requests, extension methods) always.
func (lc *leaseConn) serves(method string) bool {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	switch {
	case method == acp.ClientMethodFsReadTextFile:
		return lc.caps.Fs.ReadTextFile
	case method == acp.ClientMethodFsWriteTextFile:
		return lc.caps.Fs.WriteTextFile
	case strings.HasPrefix(method, "terminal/"):
		return lc.caps.Terminal
	}
	return true
}

// cwdParam is the request's params.cwd, checked by the session cwd rule
// (rpcpeer.ReadCwd); required: the request must carry one, and it must
// be a directory.
func cwdParam(line []byte, m message, required bool) (rpcpeer.Cwd, *acp.RequestError) {
	env := lineframe.Parse(line)
	c, problem := rpcpeer.ReadCwd(line, &env, required)
	if problem != "" {
		return c, rpcpeer.InvalidParams(m.Method, problem)
	}
	if fi, err := os.Stat(c.Path); required && (err != nil || !fi.IsDir()) {
		return c, rpcpeer.InvalidParams(m.Method, fmt.Sprintf("cwd %s is not a directory", c.Path))
	}
	return c, nil
}

// newSession relays session/new as the client sent it (_meta and all)
// but for its cwd, which follows the agent's sessionCwd policy as on
// proxy (acpclient.Client.CwdPolicy: an employee's session works in its
// instance, the client's project among its additionalDirectories); the
// answer registers the session (opened) with the client's cwd.
func (lc *leaseConn) newSession(line []byte, m message) {
	cwd, e := cwdParam(line, m, true)
	if e != nil {
		lc.replyErr(m.ID, e)
		return
	}
	lc.call(lc.c.CwdPolicy().Apply(line, cwd), m, cwd.Path)
}

// call relays a client's request to the agent under an id of up's.
func (lc *leaseConn) call(line []byte, m message, cwd string) {
	out, id, err := lc.rl.calls.Out(line, m.ID, m.Method, &call{lc: lc, id: m.ID, method: m.Method, cwd: cwd})
	if err != nil {
		lc.replyErr(m.ID, acp.NewInvalidRequest(map[string]any{"error": err.Error()}))
		return
	}
	if err := lc.c.WriteRaw(out); err != nil {
		lc.rl.calls.Back(id)
		lc.replyErr(m.ID, acp.NewInternalError(map[string]any{"error": err.Error()}))
	}
}

// forward relays any other message: one that names a session must name
// one of the client's own.
func (lc *leaseConn) forward(line []byte, m message) {
	if m.SessionID != "" {
		if _, err := lc.session(m.SessionID, false); err != nil {
			if m.request() {
				lc.replyErr(m.ID, err)
			}
			return
		}
	}
	if m.request() {
		if line, ok := lc.pluginPrompt(line, m); ok {
			lc.logLine(line)
			lc.call(line, m, "")
		}
		return
	}
	_ = lc.c.WriteRaw(line)
}

// answered relays the client's answer to a request of the agent's it was
// sent; any other answer is dropped.
func (lc *leaseConn) answered(line []byte, m message) {
	lc.mu.Lock()
	_, ok := lc.asked.Take(m.ID)
	lc.mu.Unlock()
	if ok {
		_ = lc.c.WriteRaw(line)
	}
}

// session returns the leased session id, if it is this client's; with
// take, an idle one the client's identity may resume (leaseID.resumes)
// becomes this connection's (resume, load). A session the client could
// not resume is unknown to it.
func (lc *leaseConn) session(id string, take bool) (*leased, *acp.RequestError) {
	lc.a.m.fault("session lookup")
	lc.a.mu.Lock()
	l := lc.a.leases[id]
	lc.a.mu.Unlock()
	unknown := acp.NewInvalidParams(map[string]any{"sessionId": id, "error": "unknown session (it expired, was closed, ended with the agent's process, or is another client's)"})
	if l == nil || l.c != lc.c {
		return nil, unknown
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owner == lc {
		return l, nil
	}
	if !l.ownerID.resumes(lc.client) {
		return nil, unknown
	}
	switch {
	case l.owner != nil:
		return nil, acp.NewInvalidParams(map[string]any{"sessionId": id, "error": "the session is leased by another client"})
	case !take:
		return nil, acp.NewInvalidParams(map[string]any{"sessionId": id, "error": "the session is idle: session/resume or session/load it first"})
	}
	l.owner, l.ownerID = lc, lc.client
	if l.idle != nil {
		l.idle.stop()
		l.idle = nil
	}
	return l, nil
}

// resume answers session/load and session/resume: the session is still
// open on the warm process.
func (lc *leaseConn) resume(line []byte, m message) {
	if _, e := cwdParam(line, m, false); e != nil {
		lc.replyErr(m.ID, e)
		return
	}
	if _, e := lc.session(m.SessionID, true); e != nil {
		lc.replyErr(m.ID, e)
		return
	}
	lc.reply(m.ID, nil)
}

func (lc *leaseConn) closeSession(m message) {
	l, e := lc.session(m.SessionID, false)
	if e != nil {
		lc.replyErr(m.ID, e)
		return
	}
	lc.a.drop(l)
	lc.reply(m.ID, nil)
}

// list lists this connection's sessions and the idle ones of its client
// identity.
func (lc *leaseConn) list(m message) {
	out := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	lc.a.mu.Lock()
	defer lc.a.mu.Unlock()
	for id, l := range lc.a.leases {
		l.mu.Lock()
		mine := l.c == lc.c && (l.owner == lc || l.owner == nil && l.ownerID.lists(lc.client)) && !l.setup
		l.mu.Unlock()
		if mine {
			out.Sessions = append(out.Sessions, acp.SessionInfo{SessionId: acp.SessionId(id), Cwd: l.cwd})
		}
	}
	lc.reply(m.ID, out)
}

// Route takes the answers to the lease clients' requests and what the
// agent sends about a leased session that has a client (see fromAgent).
func (rl *leaseRelay) Route(line []byte) (keep bool) {
	keep = true
	defer rl.a.guardAgent("routing the agent's lines")
	if !bytes.Contains(line, []byte(`"sessionId"`)) && !bytes.Contains(line, []byte(`"`+leaseIDPrefix)) {
		return true
	}
	m, ok := parse(line)
	switch {
	case !ok:
		return true
	case m.response():
		return rl.answer(line, m)
	case m.SessionID != "":
		rl.a.mu.Lock()
		l := rl.a.leases[m.SessionID]
		rl.a.mu.Unlock()
		if l == nil || l.c != rl.c {
			return true
		}
		return l.fromAgent(line, m)
	}
	return true
}

// answer relays the agent's answer to a client's request with the
// client's id; false (the SDK does not see it) if it is one.
func (rl *leaseRelay) answer(line []byte, m message) bool {
	e, ok := rl.calls.Back(m.ID)
	if !ok {
		return true
	}
	cl := e.Value
	if cl.method == acp.AgentMethodSessionNew && m.Error == nil {
		rl.opened(cl, line, m)
		return false
	}
	if out, err := rpcpeer.WithID(line, cl.id); err == nil {
		cl.lc.sendAnswer(out, cl.method)
	}
	return false
}

// opened registers the session the agent opened for a client: its
// notifications wait until the client has the answer, which comes once
// the session is in the preset's mode (acpclient.Session.ApplyMode).
func (rl *leaseRelay) opened(cl *call, line []byte, m message) {
	var r struct {
		SessionID string                `json:"sessionId"`
		Modes     *acp.SessionModeState `json:"modes"`
	}
	if json.Unmarshal(m.Result, &r) != nil || r.SessionID == "" {
		if out, err := rpcpeer.WithID(line, cl.id); err == nil {
			cl.lc.send(out)
		}
		return
	}
	l := &leased{a: rl.a, c: rl.c, ownerID: cl.lc.client, cwd: cl.cwd, owner: cl.lc, setup: true}
	sess, err := rl.c.Adopt(r.SessionID, acpclient.SessionOptions{Cwd: cl.cwd, Ask: l.ask})
	if err != nil {
		cl.lc.replyErr(cl.id, acp.NewInternalError(map[string]any{"error": err.Error()}))
		return
	}
	l.sess = sess
	rl.a.mu.Lock()
	if rl.a.leases == nil {
		rl.a.leases = map[string]*leased{}
	}
	rl.a.leases[r.SessionID] = l
	rl.a.mu.Unlock()
	go l.ready(cl, line, m.Result, r.Modes)
}

// ready puts a new leased session in the preset's mode, answers the
// client's session/new (with the mode the session is in) and passes on
// what the agent sent about the session meanwhile.
func (l *leased) ready(cl *call, line []byte, result json.RawMessage, modes *acp.SessionModeState) {
	defer l.guard("session/new", nil)
	ctx, cancel := context.WithTimeout(context.Background(), setModeWait)
	mode, _ := l.sess.ApplyMode(ctx, modes)
	cancel()
	out, err := rpcpeer.WithID(line, cl.id)
	if modes != nil && mode != string(modes.CurrentModeId) {
		out = response(cl.id, withMode(result, mode), nil)
	}
	l.mu.Lock()
	owner := l.owner
	if owner != nil && owner.isGone() {
		owner = nil
	}
	if owner != nil && err == nil {
		owner.send(out)
		for _, e := range l.early {
			owner.sendUpdate(e)
		}
	}
	l.setup, l.early = false, nil
	l.mu.Unlock()
	if owner == nil {
		l.a.drop(l) // nobody has its id: closed (session/close if the agent offers it)
		l.a.m.opts.Logf("%s: leased session %s closed: its lease client went away before the answer to session/new", l.a.name, l.sess.ID())
	}
}

// withMode is a session/new result whose modes.currentModeId is mode.
func withMode(result json.RawMessage, mode string) json.RawMessage {
	var r map[string]json.RawMessage
	var modes map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil || json.Unmarshal(r["modes"], &modes) != nil {
		return result
	}
	modes["currentModeId"], _ = json.Marshal(mode)
	r["modes"], _ = json.Marshal(modes)
	b, err := json.Marshal(r)
	if err != nil {
		return result
	}
	return b
}

// fromAgent routes what the agent sends naming l: to its client, if it
// has one, notifications (the SDK sees session/update too, for the
// session's state) and the requests the client serves, unless actctl
// refuses them itself (the preset's methods, the protected set:
// acpclient.Session.Refuses); the rest, and everything while idle, to the
// SDK (up serves fs and terminals confined and as the preset allows,
// permission requests are answered "cancelled").
func (l *leased) fromAgent(line []byte, m message) (keep bool) {
	keep = true
	where := m.Method
	if m.notification() {
		where = "a " + m.Method
	}
	defer l.guard(where, nil)
	owner := l.ownerConn()
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case m.notification() && l.setup:
		l.early = append(l.early, line)
		return m.Method == acp.ClientMethodSessionUpdate
	case m.notification() && owner != nil:
		owner.sendUpdate(line)
		return m.Method == acp.ClientMethodSessionUpdate
	case m.request() && owner != nil && !l.setup && owner.serves(m.Method) && !l.sess.Refuses(m.Method, m.Params):
		if !owner.expect(m.ID, m.Method) {
			return true
		}
		owner.send(line)
		return false
	}
	return true
}

// expect records a request of the agent's the client is to answer; false
// if the client is gone.
func (lc *leaseConn) expect(id json.RawMessage, method string) bool {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.gone {
		return false
	}
	lc.asked.Add(id, method, struct{}{})
	return true
}

func (lc *leaseConn) isGone() bool {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.gone
}

func (l *leased) ownerConn() *leaseConn {
	l.a.m.fault("session callback")
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.owner
}

// ask answers the permission requests up itself gets for a leased
// session (while it is idle or being set up): "cancelled".
func (l *leased) ask(context.Context, acpclient.ToolCall, []acp.PermissionOption) (acpclient.Decision, error) {
	return acpclient.Decision{}, fmt.Errorf("no client holds session %s", l.sess.ID())
}

// detach leaves lc's sessions idle: each expires after the lease TTL
// unless a client of the same identity resumes it. The agent's requests
// lc did not answer are answered for it (a permission request
// "cancelled"), and answers to its own requests are dropped.
func (a *agent) detach(lc *leaseConn) {
	lc.mu.Lock()
	lc.gone = true
	asked := lc.asked.Drain()
	lc.mu.Unlock()
	for _, e := range asked {
		_ = lc.c.WriteRaw(unanswered(e.ID, e.Method))
	}
	lc.rl.calls.DeleteFunc(func(e rpcpeer.Entry[*call]) bool {
		return e.Value.lc == lc && e.Method != acp.AgentMethodSessionNew
	})
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
		if l.owner != lc || l.setup {
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

// unanswered is the answer to an agent's request its client left without
// one: a permission request is cancelled, anything else fails.
func unanswered(id json.RawMessage, method string) []byte {
	if method == acp.ClientMethodSessionRequestPermission {
		return response(id, acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil)
	}
	return response(id, nil, acp.NewInternalError(map[string]any{"error": "the lease client that held the session went away"}))
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
	a.letGo()
}
