package acpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/schema"
)

// DefaultGrace is how long a cancelled turn may take to end before the
// backend's process group is killed, and how long a backend may take to
// exit after its stdin was closed.
const DefaultGrace = 5 * time.Second

// EventKind says what an Event carries.
type EventKind string

const (
	EventText     EventKind = "text"      // agent_message_chunk text
	EventThought  EventKind = "thought"   // agent_thought_chunk text
	EventToolCall EventKind = "tool_call" // a tool call changed state (also permission decisions)
	EventPlan     EventKind = "plan"      // the agent's plan
	EventTerminal EventKind = "terminal"  // a terminal was started (Text: id and command)
)

// Event is one thing the session shows.
type Event struct {
	Kind     EventKind
	Text     string
	ToolCall *ToolCall
	Plan     []acp.PlanEntry
}

// Observer receives a session's output. Its methods may be called from
// several goroutines, one call at a time per method is not guaranteed.
type Observer interface {
	// Message is called with every ACP message received from the agent,
	// one JSON-RPC line (without its newline), before it is handled; line
	// is only valid during the call.
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
	// Ask, if set, asks a person instead of Rule.
	Ask AskFunc
	// Observer receives messages and events (nil: none).
	Observer Observer
	// Grace: see DefaultGrace (0 means the default).
	Grace time.Duration
	// BackendStderr receives a copy of the backend's stderr (nil: none);
	// its tail is kept for error messages either way.
	BackendStderr io.Writer
	// OnStart, if set, is called with the backend's pid once it runs.
	OnStart func(pid int)
}

// Result is the outcome of one turn.
type Result struct {
	StopReason  acp.StopReason
	SessionID   string
	Duration    time.Duration
	Permissions Permissions
}

// ErrorKind says why a session ended badly.
type ErrorKind int

const (
	// ErrStart: the backend could not be started, or ended before the
	// session was set up.
	ErrStart ErrorKind = iota + 1
	// ErrCrash: the backend exited or broke the protocol during a turn.
	ErrCrash
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

// Client is one backend process and one ACP session with it.
type Client struct {
	opts   Options
	proc   *launch.Process
	conn   *acp.ClientSideConnection
	roots  roots
	thread *thread
	terms  terminals
	tail   *tail
	obs    Observer

	session    string
	sessionCwd string
	exited     chan struct{} // closed once the backend was reaped
	exitText   string        // valid after exited

	mu       sync.Mutex
	turnDone chan struct{} // closed when the current turn is cancelled
	closed   bool
	badLine  string // the first line that was not JSON: a protocol break
}

// received passes a message to the observer; a line that is not JSON
// breaks the protocol: the backend is killed, which ends the connection,
// and the pending request fails naming the line.
func (c *Client) received(line []byte) {
	if json.Valid(line) {
		c.obs.Message(line)
		return
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
}

var _ acp.Client = (*Client)(nil)

// Start launches the backend, initializes the connection (advertising fs
// read/write and terminals) and opens a session. On failure nothing of the
// backend is left running.
func Start(ctx context.Context, o Options) (*Client, error) {
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	c := &Client{opts: o, obs: o.Observer, tail: newTail(8 << 10), exited: make(chan struct{})}
	if c.obs == nil {
		c.obs = nopObserver{}
	}
	c.thread = newThread(c.emit)
	c.sessionCwd = o.ClientCwd
	if o.Launch.SessionCwd == schema.CwdWorkspace {
		c.sessionCwd = o.Launch.Workspace
	}
	var err error
	if c.roots, err = newRoots(c.sessionCwd, o.Launch.Workspace); err != nil {
		return nil, err
	}
	if err := c.spawn(); err != nil {
		return nil, err
	}
	if err := c.setup(ctx); err != nil {
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
	p, err := launch.Start(l.Command, l.Args, append(env, l.EnvList()...), l.Cwd)
	if err != nil {
		msg := fmt.Sprintf("backend %q could not be started: %v", l.Command, err)
		var dirErr *launch.DirError
		if l.Install != "" && !errors.As(err, &dirErr) {
			msg += "; install it: " + l.Install
		}
		return &Error{Kind: ErrStart, Command: l.Command, Err: err, msg: msg}
	}
	c.proc = p
	if c.opts.OnStart != nil {
		c.opts.OnStart(p.Cmd.Process.Pid)
	}
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		var w io.Writer = c.tail
		if c.opts.BackendStderr != nil {
			w = io.MultiWriter(c.tail, ignoreErrors{c.opts.BackendStderr})
		}
		_, _ = io.Copy(w, p.Stderr)
	}()
	go func() {
		_ = p.Cmd.Wait()
		c.exitText = p.Cmd.ProcessState.String()
		// Whatever the leader left behind dies with it, which also ends
		// the connection: no grandchild keeps stdout open.
		c.killAll()
		_ = p.Stdout.SetReadDeadline(time.Now().Add(time.Second))
		_ = p.Stderr.SetReadDeadline(time.Now().Add(time.Second))
		<-stderrDone
		close(c.exited)
	}()
	c.conn = acp.NewClientSideConnection(c, p.Stdin, &lineTee{r: p.Stdout, fn: c.received})
	c.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	return nil
}

// setup sends initialize and session/new.
func (c *Client) setup(ctx context.Context) error {
	_, err := c.conn.Initialize(ctx, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true},
		ClientInfo:         &acp.Implementation{Name: "actctl", Version: "dev"},
	})
	if err != nil {
		return c.failure(ctx, ErrStart, "initialize", err)
	}
	mcp := c.opts.MCPServers
	if mcp == nil {
		mcp = []acp.McpServer{}
	}
	resp, err := c.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: c.sessionCwd, McpServers: mcp})
	if err != nil {
		return c.failure(ctx, ErrStart, "session/new", err)
	}
	c.session = string(resp.SessionId)
	return nil
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
		return &Error{Kind: kind, Command: l.Command, Err: err, msg: fmt.Sprintf("backend %q: %s failed: %s", l.Command, what, requestErrorText(re))}
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
	bad := c.badLine
	c.mu.Unlock()
	if bad != "" {
		msg = fmt.Sprintf("backend %q broke the protocol during %s: not a JSON-RPC message on stdout: %q; stopped it", l.Command, what, bad)
	} else if kind == ErrStart && l.Install != "" {
		msg += "; is it installed? " + l.Install
	}
	return &Error{Kind: kind, Command: l.Command, Stderr: c.tail.String(), Err: err, msg: msg}
}

func (c *Client) connClosed() bool {
	select {
	case <-c.conn.Done():
		return true
	default:
		return false
	}
}

func requestErrorText(re *acp.RequestError) string {
	s := re.Message
	if re.Data != nil {
		s += fmt.Sprintf(" (%v)", re.Data)
	}
	return s
}

// SessionID is the ACP session id.
func (c *Client) SessionID() string { return c.session }

// SessionCwd is the cwd sent in session/new.
func (c *Client) SessionCwd() string { return c.sessionCwd }

// Pid is the backend's process id.
func (c *Client) Pid() int { return c.proc.Cmd.Process.Pid }

// Prompt runs one turn. When ctx ends first, the turn is cancelled
// (session/cancel, pending permission requests answered "cancelled"); if
// the agent has not ended the turn within the grace period its process
// group is killed; the error is then context.Cause(ctx), and the Result
// holds what is known (the stop reason if the agent answered in time).
func (c *Client) Prompt(ctx context.Context, text string) (Result, error) {
	start := time.Now()
	cancelled := make(chan struct{})
	c.mu.Lock()
	c.turnDone = cancelled
	c.mu.Unlock()
	before := c.thread.permissions()
	type answer struct {
		resp acp.PromptResponse
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		r, err := c.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: acp.SessionId(c.session), Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
		done <- answer{r, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		close(cancelled)
		_ = c.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: acp.SessionId(c.session)})
		t := time.NewTimer(c.opts.Grace)
		select {
		case a = <-done:
		case <-t.C:
			c.killAll()
			a = <-done
		}
		t.Stop()
	}
	res := Result{SessionID: c.session, Duration: time.Since(start), Permissions: c.thread.permissions().minus(before), StopReason: a.resp.StopReason}
	if ctx.Err() != nil {
		return res, context.Cause(ctx)
	}
	if a.err != nil {
		return res, c.failure(ctx, ErrCrash, "the turn", a.err)
	}
	return res, nil
}

func (p Permissions) minus(q Permissions) Permissions {
	return Permissions{Allowed: p.Allowed - q.Allowed, Denied: p.Denied - q.Denied, Cancelled: p.Cancelled - q.Cancelled}
}

// killAll kills the backend's process group, everything that carries the
// session mark, and the terminals.
func (c *Client) killAll() {
	_ = launch.KillGroup(c.proc.Cmd.Process.Pid)
	c.killTerminals()
	launch.KillMarked(c.proc.Mark)
}

// Close ends the session: the backend's stdin is closed, it gets the grace
// period to exit, then its group, the terminals and every process with
// the session mark are killed. Nothing of the backend outlives Close.
func (c *Client) Close() {
	c.mu.Lock()
	if c.closed || c.proc == nil {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.mu.Unlock()
	_ = c.proc.Stdin.Close()
	t := time.NewTimer(c.opts.Grace)
	select {
	case <-c.exited:
	case <-t.C:
	}
	t.Stop()
	c.killAll()
	<-c.exited
	c.killAll()
	_ = c.proc.Stdout.Close()
	_ = c.proc.Stderr.Close()
}

func (c *Client) emit(e Event) { c.obs.Event(e) }

type nopObserver struct{}

func (nopObserver) Message([]byte) {}
func (nopObserver) Event(Event)    {}

// SessionUpdate turns the agent's updates into events.
func (c *Client) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	u := n.Update
	switch {
	case u.AgentMessageChunk != nil:
		if t := u.AgentMessageChunk.Content.Text; t != nil {
			c.emit(Event{Kind: EventText, Text: t.Text})
		}
	case u.AgentThoughtChunk != nil:
		if t := u.AgentThoughtChunk.Content.Text; t != nil {
			c.emit(Event{Kind: EventThought, Text: t.Text})
		}
	case u.ToolCall != nil:
		c.thread.started(u.ToolCall)
	case u.ToolCallUpdate != nil:
		c.thread.updated(u.ToolCallUpdate)
	case u.Plan != nil:
		c.emit(Event{Kind: EventPlan, Plan: u.Plan.Entries})
	}
	return nil
}

// RequestPermission answers with Ask or the Rule; once the turn is
// cancelled every request is answered "cancelled".
func (c *Client) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	call := c.thread.awaiting(req.ToolCall)
	c.mu.Lock()
	turn := c.turnDone
	c.mu.Unlock()
	d, cancelled := c.decide(ctx, turn, call, req.Options)
	c.thread.decided(call.ID, d, cancelled)
	if cancelled || d.OptionID == "" {
		return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
	}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{OptionId: acp.PermissionOptionId(d.OptionID)}}}, nil
}

func (c *Client) decide(ctx context.Context, turn chan struct{}, call ToolCall, options []acp.PermissionOption) (Decision, bool) {
	if turn != nil {
		select {
		case <-turn:
			return Decision{}, true
		default:
		}
	}
	if c.opts.Ask == nil {
		return Decide(c.opts.Rule, call.Kind, options), false
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
	d, err := c.opts.Ask(actx, call, options)
	if err != nil {
		return Decision{}, true
	}
	return d, false
}

// ignoreErrors keeps the backend's stderr drained when its copy fails (a
// full disk must not block the backend on a full pipe).
type ignoreErrors struct{ w io.Writer }

func (e ignoreErrors) Write(p []byte) (int, error) {
	_, _ = e.w.Write(p)
	return len(p), nil
}

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimRight(string(t.buf), "\n")
}
