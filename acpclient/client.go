package acpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/lineframe"
	"github.com/actctl/actctl/internal/rpcpeer"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/model"
)

// DefaultGrace is how long a cancelled turn may take to end before the
// backend's process group is killed, and how long a backend may take to
// exit after its stdin was closed.
const DefaultGrace = 5 * time.Second

// tailSize is how much of the backend's stderr is kept for error
// messages.
const tailSize = 8 << 10

// EventKind says what an Event carries.
type EventKind string

const (
	EventText     EventKind = "text"      // agent_message_chunk text
	EventThought  EventKind = "thought"   // agent_thought_chunk text
	EventToolCall EventKind = "tool_call" // a tool call changed state (also permission decisions)
	EventPlan     EventKind = "plan"      // the agent's plan
	EventTerminal EventKind = "terminal"  // a terminal was started (Text: id and command)
	// EventPlugin (filter.go): a session plugin's step (Plugin).
)

// Event is one thing the session shows.
type Event struct {
	Kind     EventKind
	Text     string
	ToolCall *ToolCall
	Plan     []acp.PlanEntry
	// Plugin is the step of an EventPlugin.
	Plugin *PluginStep
	// Decision marks the tool call event of a permission decision
	// (ToolCall.By says who decided): one per request answered.
	Decision bool
}

// Observer receives a session's output. Its methods may be called from
// several goroutines, one call at a time per method is not guaranteed.
type Observer interface {
	// Message is called with every ACP message received from the agent,
	// one JSON-RPC line (without its newline), before it is handled; line
	// is only valid during the call. A message whose params name an open
	// session (params.sessionId) goes to that session's observer; every
	// other one (answers to the client's requests, messages naming no or
	// an unknown session) to Options.Observer.
	Message(line []byte)
	// Event is called for text, tool calls, plans and terminals.
	Event(Event)
}

// AskFunc asks a person about a permission request. An error (ctx is
// cancelled when the turn is) answers the request "cancelled".
type AskFunc func(ctx context.Context, call ToolCall, options []acp.PermissionOption) (Decision, error)

// Options configure a Client.
type Options struct {
	// Launch is how to start the backend (launch.Resolve with mode acp).
	Launch launch.Launch
	// Env is the base environment (nil: os.Environ()); Launch.Env is added.
	Env []string
	// ClientCwd is the client's project directory: the session cwd,
	// unless the archetype's sessionCwd policy says "workspace".
	ClientCwd string
	// MCPServers are passed in session/new.
	MCPServers []acp.McpServer
	// Rule answers permission requests when Ask is nil.
	Rule Rule
	// Rules are the agent's own permission rules (RulesOf its
	// permissions), which decide before Ask and Rule: allow and deny
	// answer, ask puts the request to Ask (docs/run.md, "Permission
	// rules"). Only the deny rules when a flag's Rule overrides the agent's
	// permissions.
	Rules Rules
	// Mode is the ACP session mode every session is put in when the agent
	// offers it (ModeFor; "": the agent's own).
	Mode string
	// Warn, if set, receives a warning about the session mode, once.
	Warn func(msg string)
	// Note, if set, receives a note about where the agent's sessions
	// work, once: a sessionCwd "workspace+client" the agent cannot honour
	// (rpcpeer.NoDirectoriesNote).
	Note func(msg string)
	// Preset is the agent's own preset as a Rule (RuleFor of its
	// permissions; "": Rule). With a session's rule it decides which
	// client methods the agent may call in that session, and with Rule
	// which are advertised in initialize (ClientMethods): a flag's Rule
	// narrows them, never widens them.
	Preset Rule
	// Instance: the agent's workspace (Launch.Workspace) is an instance,
	// one agent's directory, whose records (InstanceRecord) the client
	// never writes.
	Instance bool
	// Ask, if set, asks a person instead of Rule.
	Ask AskFunc
	// Observer receives the primary session's messages and events, and
	// the messages of no session (nil: none).
	Observer Observer
	// Grace: see DefaultGrace (0 means the default).
	Grace time.Duration
	// BackendStderr receives a copy of the backend's stderr (nil: none);
	// its tail is kept for error messages either way.
	BackendStderr io.Writer
	// OnStart, if set, is called with the backend's pid once it runs.
	OnStart func(pid int)
	// Filter, if set, makes the Filter of each session Start and
	// NewSession open (the session plugins, filter.go).
	Filter FilterFunc
	// Trace, if set, gets one line per message written to the backend
	// and read from it (--debug-acp: rpcpeer.Trace, never a message's
	// text).
	Trace *rpcpeer.Trace
}

// Result is the outcome of one turn.
type Result struct {
	StopReason  acp.StopReason
	SessionID   string
	Duration    time.Duration
	Permissions Permissions
}

// ErrorKind says why a session ended badly (see launch.ErrorKind).
type ErrorKind = launch.ErrorKind

const (
	// ErrStart: the backend could not be started, or ended before the
	// session was set up.
	ErrStart = launch.ErrStart
	// ErrCrash: the backend exited or broke the protocol during a turn.
	ErrCrash = launch.ErrCrash
	// ErrAnswered: the agent answered the turn's session/prompt with an
	// error; the backend still runs and the session can take another turn
	// (chat reports it and reads the next line).
	ErrAnswered = launch.ErrAnswered
)

// Error is a failed start or turn, with the backend's stderr tail.
type Error struct {
	Kind    ErrorKind
	Command string
	Stderr  string
	Err     error
	msg     string
}

func (e *Error) Error() string {
	if e.Stderr == "" {
		return e.msg
	}
	return e.msg + "\nbackend stderr (last lines):\n" + e.Stderr
}
func (e *Error) Unwrap() error { return e.Err }

// Client is one backend process, its ACP connection and the sessions on
// it: the primary one Start opens (Prompt, SessionID and SessionCwd act on
// it) and those NewSession opens. The agent's requests are served by the
// session their sessionId names.
type Client struct {
	opts    Options
	proc    *launch.Proc
	conn    *conn
	info    acp.InitializeResponse
	primary *Session
	terms   terminals
	obs     Observer
	methods Methods // advertised in initialize: the primary session's

	exited   chan struct{} // closed once the backend was reaped
	exitText string        // valid after exited
	exitErr  error         // valid after exited

	mu       sync.Mutex
	sessions map[string]*Session // the open sessions by id
	closed   bool
	badLine  string // the first line that was not JSON: a protocol break
	tooBig   bool   // a message over MaxMessage was read: a protocol break

	out     *outbound       // the backend's stdin
	pending pending         // the agent's requests in flight
	readCtx context.Context // the handlers' context of notifications: done when the backend exited

	wire wireLog // prompts written and answers read (see wireLog)

	modeWarned sync.Once // see warnMode
	router     Router    // a lease's, if any (see Router)

	remote io.ReadWriteCloser // Connect's stream: no process of the client's own (proc nil)
}

// received passes a message to its observer and reports whether it is
// JSON (env is the line's, parsed once by the reader); a line that is not
// breaks the protocol: the backend is killed, which ends the connection,
// and the pending request fails naming the line. The answer to a
// session's prompt goes to that session's observer, as its updates do.
func (c *Client) received(line []byte, env *lineframe.Envelope) bool {
	if env.Valid {
		if sid := c.wire.read(env); sid != "" {
			c.sessionObserver(sid).Message(line)
		} else {
			c.observerOf(line, env).Message(line)
		}
		return true
	}
	c.mu.Lock()
	first := c.badLine == ""
	if first {
		c.badLine = string(line[:min(len(line), 200)])
	}
	c.mu.Unlock()
	if first {
		c.killAll()
	}
	return false
}

// oversize notes that the backend sent a message over MaxMessage and
// kills it, which ends the connection; the pending request fails saying
// so.
func (c *Client) oversize() {
	c.mu.Lock()
	c.tooBig = true
	c.mu.Unlock()
	c.killAll()
}

var sessionIDKey = []byte(`"sessionId"`)

// observerOf is the observer of the open session the message's
// params.sessionId names, else Options.Observer. Only lines that mention
// a sessionId at all are looked into.
func (c *Client) observerOf(line []byte, env *lineframe.Envelope) Observer {
	if !bytes.Contains(line, sessionIDKey) {
		return c.obs
	}
	sid, ok := lineframe.Unquote(lineframe.Member(line, env.Params, "sessionId"))
	if !ok || len(sid) == 0 {
		return c.obs
	}
	return c.sessionObserver(string(sid))
}

// sessionObserver is the observer of the open session sid, else
// Options.Observer.
func (c *Client) sessionObserver(sid string) Observer {
	c.mu.Lock()
	s := c.sessions[sid]
	c.mu.Unlock()
	if s == nil {
		return c.obs
	}
	return s.obs
}

var _ acp.Client = (*Client)(nil)
var _ acp.ExtensionMethodHandler = (*Client)(nil)

// Start launches the backend, initializes the connection (advertising fs
// reads, and writes and terminals as Options.Preset and Rule allow) and
// opens a session. On failure nothing of the
// backend is left running.
func Start(ctx context.Context, o Options) (*Client, error) {
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	c := &Client{opts: o, obs: o.Observer, exited: make(chan struct{}), sessions: map[string]*Session{},
		methods: ClientMethods(o.Preset, o.Rule)}
	if c.obs == nil {
		c.obs = nopObserver{}
	}
	cwd := o.ClientCwd
	if o.Launch.SessionCwd == model.CwdWorkspace {
		cwd = o.Launch.Workspace
	}
	var err error
	if c.primary, err = c.newSession(SessionOptions{Cwd: cwd, Rule: o.Rule, Ask: o.Ask, Observer: c.obs}, true); err != nil {
		return nil, err
	}
	if err := c.spawn(); err != nil {
		return nil, err
	}
	// Writes do not watch ctx: one blocked on an agent that does not
	// read ends only with the backend (see cancelTurn).
	stopKill := context.AfterFunc(ctx, c.killAll)
	err = c.setup(ctx)
	stopKill()
	if err != nil {
		c.killAll()
		c.Close()
		return nil, err
	}
	return c, nil
}

// spawn starts the backend and the goroutines that watch it.
func (c *Client) spawn() error {
	l := c.opts.Launch
	env := c.opts.Env
	if env == nil {
		env = os.Environ()
	}
	readCtx, stopRead := context.WithCancel(context.Background())
	c.readCtx = readCtx
	// The exit is handled by the goroutine that reaped the backend
	// (launch.Spec.OnExit), once spawn is done with c.proc and OnStart.
	started := make(chan struct{})
	onExit := func(p *launch.Proc) {
		<-started
		c.exitText = p.Cmd.ProcessState.String()
		// Whatever the leader left behind dies with it, which also ends
		// the connection: no grandchild keeps stdout open.
		c.killAll()
		p.Drain(time.Now().Add(time.Second))
		c.exitErr = c.exitError(p.Cmd.ProcessState)
		close(c.exited)
		stopRead()
	}
	p, err := launch.Supervise(launch.Spec{Command: l.Command, Args: l.Args, Env: append(env, l.EnvList()...), Dir: l.Cwd,
		Install: l.Install, Stderr: c.opts.BackendStderr, TailSize: tailSize, OnExit: onExit})
	if err != nil {
		stopRead()
		return &Error{Kind: ErrStart, Command: l.Command, Err: errors.Unwrap(err), msg: err.Error()}
	}
	c.proc = p
	if c.opts.OnStart != nil {
		c.opts.OnStart(p.Pid())
	}
	close(started)
	c.out = &outbound{w: p.Stdin, fn: c.wire.sent, pending: &c.pending, trace: c.opts.Trace}
	c.conn = newConn(c, c.out)
	go c.conn.serve(newInbound(c, p.Stdout))
	return nil
}

// setup sends initialize, advertising what the agent may call (reads,
// and writes and terminals as its preset allows), and opens the primary
// session.
func (c *Client) setup(ctx context.Context) error {
	info, err := call[acp.InitializeResponse](ctx, c.conn, acp.AgentMethodInitialize, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: c.methods.Write}, Terminal: c.methods.Terminal},
		ClientInfo:         &acp.Implementation{Name: "actctl", Version: "dev"},
	})
	if err != nil {
		return c.failure(ctx, ErrStart, "initialize", err)
	}
	c.info = info
	c.noteCwd()
	c.primary.cwd, c.primary.dirs = c.sessionCwd(c.primary.cwd)
	return c.open(ctx, c.primary, c.opts.MCPServers)
}

// CwdPolicy is the archetype's sessionCwd policy of the client's agent
// (Options.Launch.SessionCwd) once the agent answered initialize, as a
// session's cwd follows it here and as up's lease applies it to a
// client's session/new (docs/runtime.md, "An employee reached from an
// editor"): "workspace" the agent's workspace; "workspace+client" the
// workspace with the client's project among the additionalDirectories
// when the agent takes them, else the client's project; "client" the
// client's project.
func (c *Client) CwdPolicy() rpcpeer.CwdPolicy {
	l := c.opts.Launch
	switch {
	case l.SessionCwd == model.CwdWorkspace:
		return rpcpeer.CwdPolicy{Workspace: l.Workspace}
	case l.SessionCwd == model.CwdWorkspaceClient && l.Workspace != "" && c.takesDirectories():
		return rpcpeer.CwdPolicy{Workspace: l.Workspace, AddClient: true}
	}
	return rpcpeer.CwdPolicy{}
}

// noteCwd says, through Options.Note, when the agent's sessionCwd is
// "workspace+client" and it does not take additionalDirectories: its
// sessions then work in the client's project, as proxy says too.
func (c *Client) noteCwd() {
	l := c.opts.Launch
	if c.opts.Note != nil && l.SessionCwd == model.CwdWorkspaceClient && l.Workspace != "" && !c.takesDirectories() {
		c.opts.Note(rpcpeer.NoDirectoriesNote)
	}
}

// takesDirectories reports whether the agent takes additionalDirectories
// in session/new (agentCapabilities.sessionCapabilities).
func (c *Client) takesDirectories() bool {
	return c.info.AgentCapabilities.SessionCapabilities.AdditionalDirectories != nil
}

// sessionCwd is the cwd and the additional directories of a session for
// the client's project client, by CwdPolicy. The session's roots, made
// from client and the workspace, hold both.
func (c *Client) sessionCwd(client string) (string, []string) {
	p := c.CwdPolicy()
	cwd := p.Session(client)
	if p.AddClient && client != "" && client != cwd {
		return cwd, []string{client}
	}
	return cwd, nil
}

// failure turns a failed request into an Error: a backend that exited is
// named with its exit status and stderr tail, an error answer is quoted.
func (c *Client) failure(ctx context.Context, kind ErrorKind, what string, err error) error {
	l := c.opts.Launch
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", what, context.Cause(ctx))
	}
	var re *acp.RequestError
	if errors.As(err, &re) && !c.connClosed() {
		if kind == ErrCrash {
			kind = ErrAnswered // the backend runs on
		}
		return &Error{Kind: kind, Command: l.Command, Err: err, msg: fmt.Sprintf("backend %q: %s failed: %s", l.Command, what, c.requestErrorText(re))}
	}
	// The connection ended: wait (bounded) for the backend to be reaped.
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	status := "its output ended"
	select {
	case <-c.exited:
		status = c.exitText
	case <-t.C:
	}
	msg := fmt.Sprintf("backend %q exited during %s (%s)", l.Command, what, status)
	c.mu.Lock()
	bad, tooBig := c.badLine, c.tooBig
	c.mu.Unlock()
	if bad != "" {
		msg = fmt.Sprintf("backend %q broke the protocol during %s: not a JSON-RPC message on stdout: %q; stopped it", l.Command, what, bad)
	} else if tooBig {
		msg = fmt.Sprintf("backend %q broke the protocol during %s: it sent a message of more than %d MiB (the limit of one JSON-RPC line); stopped it", l.Command, what, MaxMessage>>20)
	} else if kind == ErrStart {
		msg += launch.InstallHint(l.Install)
	}
	return &Error{Kind: kind, Command: l.Command, Stderr: c.stderrTail(), Err: err, msg: msg}
}

func (c *Client) connClosed() bool {
	select {
	case <-c.conn.Done():
		return true
	default:
		return false
	}
}

// SessionID is the primary session's id.
func (c *Client) SessionID() string { return c.primary.id }

// SessionCwd is the cwd sent in the primary session's session/new.
func (c *Client) SessionCwd() string { return c.primary.cwd }

// MCPServers are the MCP servers the primary session was opened with
// (Options.MCPServers), for the sessions opened beside it.
func (c *Client) MCPServers() []acp.McpServer { return c.opts.MCPServers }

// Primary is the session Start opened.
func (c *Client) Primary() *Session { return c.primary }

// AgentInfo is the agent's answer to initialize (its capabilities).
func (c *Client) AgentInfo() acp.InitializeResponse { return c.info }

// Prompt runs one turn in the primary session (see Session.Prompt).
func (c *Client) Prompt(ctx context.Context, text string) (Result, error) {
	return c.primary.Prompt(ctx, text)
}

// Pid is the backend's process id.
func (c *Client) Pid() int {
	if c.proc == nil {
		return 0 // Connect's: another process holds the backend
	}
	return c.proc.Pid()
}

// Done is closed once the backend has exited and its group, its
// terminals and the processes with its session mark were killed.
func (c *Client) Done() <-chan struct{} { return c.exited }

// AfterDone arranges for f to run in a goroutine of its own once Done is
// closed, holding none until then (context.AfterFunc): what a caller
// does when the backend ends, without a goroutine per idle agent waiting
// for it. stop cancels it, reporting whether it did.
func (c *Client) AfterDone(f func()) (stop func() bool) { return context.AfterFunc(c.readCtx, f) }

// Err is the backend's exit error once Done is closed (nil before, and
// for exit status 0): an *Error naming the exit status, with the stderr
// tail.
func (c *Client) Err() error {
	select {
	case <-c.exited:
		return c.exitErr
	default:
		return nil
	}
}

// exitError is the Err of a backend that ended with st.
func (c *Client) exitError(st *os.ProcessState) error {
	if st.Success() {
		return nil
	}
	cmd := c.opts.Launch.Command
	return &Error{Kind: ErrCrash, Command: cmd, Stderr: c.stderrTail(), msg: fmt.Sprintf("backend %q exited (%s)", cmd, st.String())}
}

// Terminate asks the backend's process group to end (SIGTERM; outside
// Unix the backend is killed).
func (c *Client) Terminate() error {
	if c.proc == nil {
		return c.remote.Close()
	}
	return c.proc.Terminate()
}

// Kill kills the backend's process group, its terminals and every process
// with its session mark.
func (c *Client) Kill() error {
	c.killAll()
	return nil
}

// killAll kills the backend's process group, everything that carries the
// session mark, and the terminals.
func (c *Client) killAll() {
	if c.proc == nil {
		_ = c.remote.Close() // Connect's: the stream ends, not a process
		return
	}
	_ = c.proc.KillGroup()
	c.killTerminals("")
	_, _ = c.proc.KillMarked()
}

// Close ends the client: the backend's stdin is closed, it gets the grace
// period to exit, then its group, the terminals and every process with
// the session mark are killed. Nothing of the backend outlives Close;
// the sessions' Filters are closed (FilterCloser).
func (c *Client) Close() {
	defer c.closeFilters()
	if c.remote != nil {
		c.closeRemote()
		return
	}
	c.mu.Lock()
	if c.closed || c.proc == nil {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.mu.Unlock()
	c.proc.Stop(context.Background(), launch.StopPolicy{Ask: launch.AskEOF, Grace: c.opts.Grace})
	c.killAll()
	<-c.exited
	c.killAll()
	_ = c.proc.Stdout.Close()
	_ = c.proc.Stderr.Close()
}

// closeFilters closes the Filters of the sessions still open (their
// plugins' sub-agents end with the Client).
func (c *Client) closeFilters() {
	c.mu.Lock()
	open := make([]*Session, 0, len(c.sessions))
	for _, s := range c.sessions {
		open = append(open, s)
	}
	c.mu.Unlock()
	for _, s := range open {
		s.closeFilter()
	}
}

type nopObserver struct{}

func (nopObserver) Message([]byte) {}
func (nopObserver) Event(Event)    {}

// SessionUpdate passes the agent's update to the session it names.
func (c *Client) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	s, err := c.session(n.SessionId)
	if err != nil {
		return err
	}
	s.update(n.Update)
	return nil
}

// RequestPermission is answered by the session the request names.
func (c *Client) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	s, err := c.session(req.SessionId)
	if err != nil {
		return acp.RequestPermissionResponse{}, err
	}
	return s.requestPermission(ctx, req), nil
}

// stderrTail is the end of the backend's stderr for error messages.
func (c *Client) stderrTail() string {
	if c.proc == nil {
		return ""
	}
	return strings.TrimRight(c.proc.Tail().Raw(), "\n")
}
