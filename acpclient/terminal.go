package acpclient

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/launch"
)

// DefaultOutputLimit bounds a terminal's retained output when the agent
// gives no outputByteLimit.
const DefaultOutputLimit = 1 << 20

// MaxOutputLimit caps a terminal's retained output whatever
// outputByteLimit the agent asks for: the client's memory is not the
// agent's to size (docs/run.md, "The client methods").
const MaxOutputLimit = 1 << 20

// terminal is one terminal/create: a real process in its own group whose
// combined output is kept up to a byte limit (the oldest bytes go first).
type terminal struct {
	proc    *launch.Proc
	session string        // the id of the session that created it
	done    chan struct{} // closed when the process was reaped

	mu     sync.Mutex
	out    ring
	status *acp.TerminalExitStatus
}

func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out.write(p)
	return len(p), nil
}

func (t *terminal) snapshot() acp.TerminalOutputResponse {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.out.bytes()
	if t.out.truncated() {
		// Cut at a character boundary so the output stays valid UTF-8.
		i := 0
		for i < len(out) && i < utf8.UTFMax && !utf8.RuneStart(out[i]) {
			i++
		}
		out = out[i:]
	}
	return acp.TerminalOutputResponse{Output: string(out), Truncated: t.out.truncated(), ExitStatus: t.status}
}

// ring keeps the last max bytes written to it: a buffer that grows to max
// and then wraps, so a write costs its own length, never a move of what is
// kept.
type ring struct {
	max   int
	buf   []byte // len(buf) <= max
	start int    // once len(buf) == max: the index of the oldest byte
	total int64  // bytes ever written
}

func newRing(max int) ring { return ring{max: max} }

func (r *ring) write(p []byte) {
	r.total += int64(len(p))
	if r.max <= 0 {
		return
	}
	if len(p) >= r.max {
		r.grow(r.max)
		r.buf = append(r.buf[:0], p[len(p)-r.max:]...)
		r.start = 0
		return
	}
	if free := r.max - len(r.buf); free > 0 {
		n := min(free, len(p))
		r.grow(len(r.buf) + n)
		r.buf = append(r.buf, p[:n]...)
		p = p[n:]
	}
	for len(p) > 0 {
		n := copy(r.buf[r.start:], p)
		p = p[n:]
		r.start = (r.start + n) % r.max
	}
}

// grow makes room for n bytes in buf, doubling up to max, never beyond.
func (r *ring) grow(n int) {
	if n <= cap(r.buf) {
		return
	}
	b := make([]byte, len(r.buf), min(r.max, max(n, 2*cap(r.buf))))
	copy(b, r.buf)
	r.buf = b
}

// bytes is what is kept, oldest first (a copy).
func (r *ring) bytes() []byte {
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.start:]...)
	return append(out, r.buf[:r.start]...)
}

// truncated reports whether bytes were dropped.
func (r *ring) truncated() bool { return r.total > int64(len(r.buf)) }

// MaxTerminals bounds the terminals of one client not yet released (each
// is a process and up to MaxOutputLimit of output); terminal/create
// beyond it is refused until the agent releases one.
const MaxTerminals = 64

// terminals are the terminals of one client, each belonging to the
// session that created it.
type terminals struct {
	mu       sync.Mutex
	byID     map[string]*terminal
	next     int
	starting int // places taken by terminals being started
}

// reserve takes a place for a terminal about to start, unless
// MaxTerminals are taken; done gives it back (the terminal, if started,
// took its place in byID).
func (ts *terminals) reserve() (done func(), ok bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.byID)+ts.starting >= MaxTerminals {
		return nil, false
	}
	ts.starting++
	return func() {
		ts.mu.Lock()
		ts.starting--
		ts.mu.Unlock()
	}, true
}

func exitStatus(st *os.ProcessState) *acp.TerminalExitStatus {
	s := &acp.TerminalExitStatus{}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		name := ws.Signal().String()
		s.Signal = &name
		return s
	}
	code := st.ExitCode()
	s.ExitCode = &code
	return s
}

// CreateTerminal starts a terminal for the session the request names, in
// its cwd or a cwd inside its roots.
func (c *Client) CreateTerminal(ctx context.Context, req acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	s, err := c.session(req.SessionId)
	if err != nil {
		return acp.CreateTerminalResponse{}, err
	}
	if d := s.delegateFor(MethodTerminal); d != nil {
		return d.CreateTerminal(ctx, req)
	}
	done, ok := c.terms.reserve()
	if !ok {
		return acp.CreateTerminalResponse{}, &acp.RequestError{Code: -32603,
			Message: fmt.Sprintf("actctl refuses terminal/create: %d terminals are not released; release one first", MaxTerminals)}
	}
	defer done()
	dir := s.cwd
	if req.Cwd != nil && *req.Cwd != "" {
		d, err := s.roots.resolve(*req.Cwd)
		if err != nil {
			return acp.CreateTerminalResponse{}, err
		}
		dir = d
	}
	limit := DefaultOutputLimit
	if req.OutputByteLimit != nil && *req.OutputByteLimit >= 0 {
		limit = min(*req.OutputByteLimit, MaxOutputLimit)
	}
	t := &terminal{session: s.id, out: newRing(limit), done: make(chan struct{})}
	env := os.Environ()
	for _, e := range req.Env {
		env = append(launch.WithoutVar(env, e.Name), e.Name+"="+e.Value)
	}
	// The backend's session mark reaches terminals too: the sweep at the
	// end finds whatever they leave behind.
	env = append(launch.WithoutVar(env, launch.MarkVar), launch.MarkVar+"="+c.proc.Mark)
	// Its own group, kept when the command exits (its background jobs
	// live until the terminal is released); a descendant that keeps the
	// output open does not keep Wait (and the end of the run) waiting.
	p, err := launch.Supervise(launch.Spec{Command: req.Command, Args: req.Args, Env: env, Dir: dir, Output: t, KeepGroup: true})
	if err != nil {
		return acp.CreateTerminalResponse{}, acp.NewInternalError(map[string]any{"command": req.Command, "error": errors.Unwrap(err).Error()})
	}
	t.proc = p
	go func() {
		_ = p.Wait()
		t.mu.Lock()
		t.status = exitStatus(p.Cmd.ProcessState)
		t.mu.Unlock()
		close(t.done)
	}()
	c.terms.mu.Lock()
	c.terms.next++
	id := "term-" + strconv.Itoa(c.terms.next)
	if c.terms.byID == nil {
		c.terms.byID = map[string]*terminal{}
	}
	c.terms.byID[id] = t
	c.terms.mu.Unlock()
	s.emit(Event{Kind: EventTerminal, Text: fmt.Sprintf("%s: %s", id, p.Cmd.String())})
	return acp.CreateTerminalResponse{TerminalId: id}, nil
}

// terminalDelegate is the delegate that serves terminal id of session sid:
// one actctl did not start, in a session whose terminals are delegated.
func (c *Client) terminalDelegate(sid acp.SessionId, id string) Delegate {
	s, err := c.session(sid)
	if err != nil {
		return nil
	}
	c.terms.mu.Lock()
	_, ours := c.terms.byID[id]
	c.terms.mu.Unlock()
	if ours {
		return nil
	}
	return s.delegateFor(MethodTerminal)
}

// terminal is the terminal id of the open session sid: another session's
// terminals are not its to see.
func (c *Client) terminal(sid acp.SessionId, id string) (*terminal, error) {
	if _, err := c.session(sid); err != nil {
		return nil, err
	}
	c.terms.mu.Lock()
	defer c.terms.mu.Unlock()
	t := c.terms.byID[id]
	if t == nil || t.session != string(sid) {
		return nil, acp.NewInvalidParams(map[string]any{"terminalId": id, "error": "no such terminal"})
	}
	return t, nil
}

func (c *Client) TerminalOutput(ctx context.Context, req acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	if d := c.terminalDelegate(req.SessionId, req.TerminalId); d != nil {
		return d.TerminalOutput(ctx, req)
	}
	t, err := c.terminal(req.SessionId, req.TerminalId)
	if err != nil {
		return acp.TerminalOutputResponse{}, err
	}
	return t.snapshot(), nil
}

func (c *Client) WaitForTerminalExit(ctx context.Context, req acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	if d := c.terminalDelegate(req.SessionId, req.TerminalId); d != nil {
		return d.WaitForTerminalExit(ctx, req)
	}
	t, err := c.terminal(req.SessionId, req.TerminalId)
	if err != nil {
		return acp.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return acp.WaitForTerminalExitResponse{}, ctx.Err()
	}
	st := t.snapshot().ExitStatus
	return acp.WaitForTerminalExitResponse{ExitCode: st.ExitCode, Signal: st.Signal}, nil
}

func (c *Client) KillTerminal(ctx context.Context, req acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	if d := c.terminalDelegate(req.SessionId, req.TerminalId); d != nil {
		return d.KillTerminal(ctx, req)
	}
	t, err := c.terminal(req.SessionId, req.TerminalId)
	if err != nil {
		return acp.KillTerminalResponse{}, err
	}
	_ = t.proc.KillGroup()
	return acp.KillTerminalResponse{}, nil
}

func (c *Client) ReleaseTerminal(ctx context.Context, req acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	if d := c.terminalDelegate(req.SessionId, req.TerminalId); d != nil {
		return d.ReleaseTerminal(ctx, req)
	}
	t, err := c.terminal(req.SessionId, req.TerminalId)
	if err != nil {
		return acp.ReleaseTerminalResponse{}, err
	}
	_ = t.proc.KillGroup()
	c.terms.mu.Lock()
	delete(c.terms.byID, req.TerminalId)
	c.terms.mu.Unlock()
	return acp.ReleaseTerminalResponse{}, nil
}

// killTerminals kills the process groups of session's terminals (of every
// terminal for "") and reaps them.
func (c *Client) killTerminals(session string) {
	c.terms.mu.Lock()
	var ts []*terminal
	for id, t := range c.terms.byID {
		if session == "" || t.session == session {
			ts = append(ts, t)
			delete(c.terms.byID, id)
		}
	}
	c.terms.mu.Unlock()
	for _, t := range ts {
		_ = t.proc.KillGroup()
		<-t.done
	}
}
